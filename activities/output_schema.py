"""The schema a model is asked to write: bounded, and one closed variant per route.

A grammar-constrained decoder (llama.cpp, Ollama, vLLM) or OpenAI's strict mode writes exactly
what the ``response_format`` schema admits. The strict conversion of a Routing lets every route be
null and leaves arrays and strings unbounded, so a small model filled every route, or one array,
until its output limit. Here every string has a ``maxLength`` and every array a ``maxItems``
(``OutputBounds``: per field, per profile), and a Routing with several routes becomes
``{"routing": {"anyOf": [one closed object per route]}}``: each variant holds its one route,
non-null, and the payload fields. OpenAI's strict mode refuses ``anyOf`` at the root, hence the
wrapper; a schema of a single route (the resume schema of an interrupt) is that route's variant
itself. ``reply_json`` takes the wrapper off before pydantic validates, so the models (and every
recorded result) are unchanged. What the schema admits the validator accepts:
``tests/activities/test_output_schema.py`` generates instances of every schema and validates them.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from agent_interrupts.models.interrupts import MAX_CHOICES, MAX_CONFIRMATIONS, MAX_QUESTION_ID_CHARS
from agent_interrupts.models.limits import MAX_FAN_OUT, MAX_GOAL_CHARS
from agent_interrupts.models.routing import Routing

REPLY_KEY = "routing"
"""The root property that holds a reply's one variant when a schema offers several routes."""


class OutputProfile(StrEnum):
    """How much a model may write per field (LLM_PROFILE)."""

    STANDARD = "standard"
    """Hosted and large local models: room for real prose, bounded so nothing runs away."""
    SMALL = "small"
    """Models of a few hundred million parameters on a CPU: they repeat a word until a field's
    bound, so the bounds are what end their replies."""


@dataclass(frozen=True)
class OutputBounds:
    """``maxLength`` of strings and ``maxItems`` of arrays, by JSON property name, else the
    defaults. ``min_items`` sets ``minItems`` where the validator needs some; a model's own
    ``minItems`` (a discovery report's SC-011 minimums) is kept, and its ``maxItems`` is never
    below it."""

    text: int
    items: int
    lengths: Mapping[str, int] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)
    min_items: Mapping[str, int] = field(default_factory=dict)

    def length(self, name: str) -> int:
        return self.lengths.get(name, self.text)

    def count(self, name: str) -> int:
        return self.counts.get(name, self.items)


_QUESTION_COUNTS = {"choices": MAX_CHOICES, "confirmationItems": MAX_CONFIRMATIONS, "options": 4}
"""A question: at most its model's choices and confirmations; options A-D (CUSTOM is added by
the validator when missing)."""
_MIN_ITEMS = {"requests": 1, "options": 2}
"""A fan-out runs at least one agent; a choice offers at least two options."""

BOUNDS: dict[OutputProfile, OutputBounds] = {
    OutputProfile.STANDARD: OutputBounds(
        text=4_000,  # a page of prose; an agent's whole output is cut at 256 KB in any case
        items=MAX_FAN_OUT,  # no list an agent writes needs more entries than a fan-out
        lengths={
            "goal": MAX_GOAL_CHARS,
            "choiceId": MAX_QUESTION_ID_CHARS,
            "confirmationId": MAX_QUESTION_ID_CHARS,
        },
        counts={**_QUESTION_COUNTS, "requests": MAX_FAN_OUT},
        min_items=_MIN_ITEMS,
    ),
    OutputProfile.SMALL: OutputBounds(
        # measured with SmolLM2-135M: arrays of 2 and strings of 160 characters still reached a
        # 1,024-token cap; with 1 and 80 a collector (40 strings) reached 700 tokens; it copies
        # digits from the prompt's ids, a token a character, so 48 keeps the longest variant
        # near 2,000 characters; a discovery report's SC-011 minimums (5 tags, 3 generated
        # queries, 10 file references: the model's own minItems) hold here too, tags of 24
        text=48,
        items=1,
        lengths={"goal": 160, "choiceId": 24, "confirmationId": 24, "tags": 24},
        counts={"requests": 2, "options": 3},
        min_items=_MIN_ITEMS,
    ),
}


@functools.cache
def shared_strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema OpenAI's strict mode accepts for ``model``: one object per model, shared;
    never modify it (a copy per agent step cost a tenth of the step's time)."""
    import openai  # the SDK's public helper: the strict conversion structured outputs apply

    return openai.pydantic_function_tool(model)["function"]["parameters"]


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The strict schema of ``model``, a fresh copy to edit."""
    return copy.deepcopy(shared_strict_schema(model))


def decoder_schema(
    model: type[BaseModel],
    profile: OutputProfile = OutputProfile.STANDARD,
    routes: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The schema a model is asked to write for ``model``, a fresh copy to edit."""
    return copy.deepcopy(shared_decoder_schema(model, profile, routes))


@functools.cache
def shared_decoder_schema(
    model: type[BaseModel],
    profile: OutputProfile = OutputProfile.STANDARD,
    routes: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The strict schema of ``model`` bounded by ``profile``, with one variant per route of a
    Routing (only ``routes``, by JSON name, when given). Shared: never modify it."""
    schema = strict_schema(model)
    _bound(schema, BOUNDS[profile])
    if not issubclass(model, Routing):
        return schema
    every = model.route_aliases()
    kept = [r for r in every if r in schema["properties"] and (routes is None or r in routes)]
    if not kept:
        raise ValueError(f"{model.__name__} has none of the routes {routes!r}")
    defs = schema.pop("$defs", {})
    variants = [_variant(schema, route, every) for route in kept]
    if len(variants) == 1:
        root = variants[0]
    else:
        root = {
            "type": "object",
            "properties": {REPLY_KEY: {"anyOf": variants}},
            "required": [REPLY_KEY],
            "additionalProperties": False,
        }
    reached = _reached(root, defs)
    if reached:
        root["$defs"] = {name: defs[name] for name in defs if name in reached}
    return root


def _variant(schema: dict[str, Any], route: str, every: Mapping[str, Any]) -> dict[str, Any]:
    """The closed object of one route: that route (non-null) and the payload, in field order."""
    properties = {
        name: _non_null(prop) if name == route else prop
        for name, prop in schema["properties"].items()
        if name == route or name not in every
    }
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _non_null(prop: dict[str, Any]) -> dict[str, Any]:
    options = prop.get("anyOf")
    if not options:
        return prop
    rest = [o for o in options if o.get("type") != "null"]
    return rest[0] if len(rest) == 1 else {**prop, "anyOf": rest}


def _bound(node: Any, bounds: OutputBounds, name: str = "") -> None:
    """Put ``maxLength``/``maxItems`` on every string and array under ``node``; a property's
    bound comes from its name (an array's items share their array's name)."""
    if isinstance(node, list):
        for each in node:
            _bound(each, bounds, name)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "string" in kinds and "enum" not in node and "const" not in node:
        node["maxLength"] = min(node.get("maxLength", bounds.length(name)), bounds.length(name))
    if "array" in kinds:
        least = node.get("minItems", 0)  # a model's own minimum (SC-011) holds in every profile
        most = min(node.get("maxItems", bounds.count(name)), bounds.count(name))
        node["maxItems"] = max(most, least)
        if name in bounds.min_items:
            node["minItems"] = max(least, min(bounds.min_items[name], node["maxItems"]))
        _bound(node.get("items"), bounds, name)
    for each in node.get("properties", {}).items():
        _bound(each[1], bounds, each[0])
    for key in ("anyOf", "allOf", "oneOf"):
        _bound(node.get(key), bounds, name)
    for each in node.get("$defs", {}).values():
        _bound(each, bounds)


def _reached(root: dict[str, Any], defs: dict[str, Any]) -> set[str]:
    """The ``$defs`` names ``root`` reaches, transitively."""
    reached: set[str] = set()
    pending = _refs(root)
    while pending:
        name = pending.pop()
        if name in reached or name not in defs:
            continue
        reached.add(name)
        pending |= _refs(defs[name])
    return reached


def _refs(node: Any) -> set[str]:
    """The ``#/$defs/...`` names ``node`` refers to directly."""
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= _refs(value)
    return found


def longest_reply(schema: dict[str, Any]) -> int:
    """An upper bound of the tokens a reply to ``schema`` takes: a token per character of every
    key and value at their bounds (a small model may write one per character, digits above all)
    and two per key, item and bracket for the whitespace a grammar allows between them."""
    return _longest(schema, schema, frozenset())


def _longest(node: dict[str, Any], root: dict[str, Any], seen: frozenset[str]) -> int:
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            raise ValueError(f"{ref} refers to itself: no reply to it is bounded")
        target: Any = root
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        return _longest(target, root, seen | {ref})
    if "anyOf" in node:
        return max(_longest(branch, root, seen) for branch in node["anyOf"])
    if "enum" in node or "const" in node:
        return max(len(json.dumps(v)) for v in node.get("enum", [node.get("const")]))
    kind = node.get("type")
    if kind == "object":
        properties = node.get("properties", {}).items()
        return 4 + sum(len(k) + 6 + _longest(p, root, seen) for k, p in properties)
    if kind == "array":
        return 4 + node["maxItems"] * (2 + _longest(node.get("items", {}), root, seen))
    if kind == "string":
        return node["maxLength"] + 2
    return 24  # a number (the grammar bounds its digits), a boolean, null


def variants(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The variants a decoder schema offers (the schema itself when it has one)."""
    wrapped = schema.get("properties", {}).get(REPLY_KEY)
    if isinstance(wrapped, dict) and "anyOf" in wrapped and len(schema["properties"]) == 1:
        return list(wrapped["anyOf"])
    return [schema]


def is_wrapped(schema: dict[str, Any]) -> bool:
    """Whether a reply to ``schema`` holds its routing under REPLY_KEY."""
    return len(variants(schema)) > 1


def reply_json(content: str, schema: dict[str, Any]) -> str:
    """The routing's JSON inside a reply to ``schema``: the wrapper taken off. A reply without
    the wrapper (a model that wrote the routing itself) is returned as it is, for the validator
    to judge."""
    if not is_wrapped(schema):
        return content
    try:
        value = json.loads(content)
    except ValueError:
        return content
    if isinstance(value, dict) and set(value) == {REPLY_KEY}:
        return json.dumps(value[REPLY_KEY], ensure_ascii=False)
    return content


def reply_object(
    output: dict[str, Any], model: type[BaseModel], schema: dict[str, Any]
) -> dict[str, Any]:
    """A validated output in the shape a model writes it for ``schema``: without the routes it
    left null, wrapped when the schema offers several (what ``agents export`` shows)."""
    if not issubclass(model, Routing):
        return output
    routes = model.route_aliases()
    value = {k: v for k, v in output.items() if not (k in routes and v is None)}
    return {REPLY_KEY: value} if is_wrapped(schema) else value
