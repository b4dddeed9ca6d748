"""A hostile model: replies that fit the output schema but are adversarial (seeded).

It starts from the offline model's answer, takes a random route among those offered (back and
forth through the graph), then rewrites the reply's texts, ids and arrays within the schema's
bounds: duplicate, empty and maximal ids, path characters, unicode, empty and maximal arrays. A
share of its translations is not JSON at all. What it writes is what a grammar-constrained decoder
with a perverse model could write; the run must end COMPLETED or asking a person.
"""

from __future__ import annotations

import json
import random
from typing import Any

from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.models.graph import NODES_BY_OUTPUT
from agent_interrupts.models.routing import Routing
from agent_interrupts.teams.software.routings import InterruptRouting

ESCAPES = ("../../escaped.txt", "/tmp/hostile-escaped.txt", "src/../../../escaped.txt", "~/x")
"""Paths its tool calls write to instead of the workspace's files."""
IDS = ("T-001", "T-001", "../../etc/passwd", "a/b\\c", "..", " ", "🙂 ticket", "x" * 500)
TEXTS = ("", "ü" * 40, "line\nbreak", "<script>alert(1)</script>", "{{ jinja }}", "%s %(x)s")


class HostileModel(OfflineModel):
    """The offline model's transport with adversarial answers, drawn from ``seed`` (in the
    order the run's calls reach it)."""

    def __init__(self, seed: int, invalid_translations: float = 0.3) -> None:
        super().__init__(OfflineScenario())
        self.rng = random.Random(seed)
        self.invalid_translations = invalid_translations
        self.replies = 0
        self.rewritten = 0
        """Replies sent rewritten (the rest as the offline model wrote them)."""
        self.escapes = 0
        """Tool calls sent with a path outside the workspace."""

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        """The offline reply; half its tool calls' paths point outside the workspace."""
        reply = super().completion(body)
        for call in reply["choices"][0]["message"].get("tool_calls") or []:
            args = json.loads(call["function"]["arguments"])
            if "path" in args and self.rng.random() < 0.5:
                args["path"] = self.rng.choice(ESCAPES)
                self.escapes += 1
                call["function"]["arguments"] = json.dumps(args)
        return reply

    def pick_route(
        self, model: type[Routing], present: list[str], interrupt: bool, context: bool, stop: bool
    ) -> str:
        """Any route offered, half the time: back and forth, questions, detours, the end."""
        if self.rng.random() < 0.5:
            return self.rng.choice(present)
        return super().pick_route(model, present, interrupt, context, stop)

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        self.replies += 1
        is_translation = name == InterruptRouting.__name__
        if is_translation and self.rng.random() < self.invalid_translations:
            return '{"not": "a routing"'
        reply = json.loads(super().answer(name, schema, messages))
        node = NODES_BY_OUTPUT.get(name)
        model = InterruptRouting if is_translation else (node.output_model if node else None)
        if model is None or not isinstance(reply, dict):
            return json.dumps(reply)
        for _ in range(8):  # a rewrite the model refuses (a rule beyond the schema) is redrawn
            hostile = _Rewriter(self.rng, schema).value(reply, schema, "")
            try:
                model.model_validate(hostile)
            except ValueError:
                continue
            self.rewritten += 1
            return json.dumps(hostile)
        return json.dumps(reply)


class _Rewriter:
    def __init__(self, rng: random.Random, root: dict[str, Any]) -> None:
        self.rng = rng
        self.root = root

    def _deref(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            node: Any = self.root
            for part in schema["$ref"].removeprefix("#/").split("/"):
                node = node[part]
            schema = node
        return schema

    def _variant(self, value: Any, schema: dict[str, Any]) -> dict[str, Any]:
        schema = self._deref(schema)
        options = [self._deref(s) for s in schema.get("anyOf") or schema.get("oneOf") or []]
        if not options:
            return schema
        if isinstance(value, dict):
            fits = [o for o in options if set(value) <= set(o.get("properties", {}))]
            return fits[0] if fits else options[0]
        wanted = {str: "string", list: "array", bool: "boolean", int: "integer", float: "number"}
        kind = wanted.get(type(value))
        return next((o for o in options if o.get("type") == kind), options[0])

    def value(self, value: Any, schema: dict[str, Any], key: str) -> Any:
        schema = self._variant(value, schema)
        if isinstance(value, dict):
            props = schema.get("properties", {})
            return {k: self.value(v, props.get(k, {}), k) for k, v in value.items()}
        if isinstance(value, list):
            return self._array(value, schema, key)
        if isinstance(value, str):
            return self._text(value, schema, key)
        return value

    def _array(self, value: list[Any], schema: dict[str, Any], key: str) -> list[Any]:
        items = [self.value(v, schema.get("items", {}), key) for v in value]
        low, high = schema.get("minItems", 0), schema.get("maxItems", len(items) + 3)
        pick = self.rng.random()
        if pick < 0.25 and low == 0:
            return []
        if pick < 0.5 and items:
            return (items * high)[:high]  # maximal, with duplicates
        return items

    def _text(self, value: str, schema: dict[str, Any], key: str) -> str:
        if any(k in schema for k in ("enum", "const", "pattern", "format")):
            return value
        low, high = schema.get("minLength", 0), schema.get("maxLength", 200)
        pool = IDS if key.lower().endswith("id") else TEXTS
        text = value if self.rng.random() < 0.3 else self.rng.choice(pool)
        text = text[:high]
        return text if len(text) >= low else value
