"""What prompts say about an agent's output, read from its Routing model (never hand-written).

Route names, their targets and descriptions, the agent's own typed interrupt request and that
request's fields all come from the pydantic models, so a prompt cannot drift from the schema the
LLM must answer.
"""

from __future__ import annotations

import functools
import types
import typing
from dataclasses import dataclass
from typing import Any

from agent_interrupts.models.agent_types import RouteTarget, Terminal
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_spec import Role

INTERRUPT_LABEL = "INTERRUPT (unified handler)"
"""The one interrupt node every routing agent can route to (research R8)."""


@dataclass(frozen=True)
class RouteOption:
    """One route field of a Routing: its JSON name, where it leads, and its help text."""

    alias: str
    target: RouteTarget
    description: str


@dataclass(frozen=True)
class FieldDoc:
    """One field of a model as the LLM sees it: JSON name, JSON type, help text."""

    name: str
    kind: str
    description: str


@dataclass(frozen=True)
class InterruptInfo:
    """An agent's own typed interrupt request: the class, its route, and its fields."""

    class_name: str
    route: str
    base_fields: tuple[FieldDoc, ...]
    own_fields: tuple[FieldDoc, ...]
    """Fields beyond the ones every interrupt request has (the agent-specific context)."""


@functools.cache
def route_options(model: type[WireModel]) -> tuple[RouteOption, ...]:
    """The route fields of ``model`` in declaration order; none if it is not a Routing."""
    if not issubclass(model, Routing):
        return ()
    options = []
    for name, target in model.route_fields.items():
        info = model.model_fields[name]
        options.append(RouteOption(info.alias or name, target, info.description or ""))
    return tuple(options)


def forward_route(model: type[WireModel], team: Team) -> RouteOption | None:
    """The first route that moves the work on: not the interrupt, not to an agent whose role in
    ``team`` is the context manager.

    The offline model walks the graph by the same rule (its ``_pick_route``).
    """
    detours = team.with_role(Role.CONTEXT_MANAGER)
    for option in route_options(model):
        if option.target is not Terminal.INTERRUPT and option.target not in detours:
            return option
    return None


@functools.cache
def interrupt_info(model: type[WireModel]) -> InterruptInfo | None:
    """The typed interrupt request of ``model``'s interrupt route, with its own fields."""
    for option in route_options(model):
        if option.target is not Terminal.INTERRUPT:
            continue
        assert issubclass(model, Routing)
        name = next(n for n, t in model.route_fields.items() if t is Terminal.INTERRUPT)
        request = _interrupt_class(model.model_fields[name].annotation)
        if request is None:
            return None
        base = _field_docs(InterruptRequestBase)
        base_names = {f.name for f in base}
        own = tuple(f for f in _field_docs(request) if f.name not in base_names)
        return InterruptInfo(request.__name__, option.alias, base, own)
    return None


def _interrupt_class(annotation: Any) -> type[InterruptRequestBase] | None:
    """``XInterruptRequest | None`` -> ``XInterruptRequest``."""
    if isinstance(annotation, type) and issubclass(annotation, InterruptRequestBase):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _interrupt_class(arg)
            if found is not None:
                return found
    return None


def _field_docs(model: type[WireModel]) -> tuple[FieldDoc, ...]:
    """Fields in the model's JSON schema (so system-set fields stay out), in order, each with
    its shape (``list of {path, change}``, ``one of A, B``) and its ``Field`` description."""
    schema = model.model_json_schema(by_alias=True)
    defs = schema.get("$defs", {})
    return tuple(
        FieldDoc(name, _kind(prop, defs), prop.get("description", ""))
        for name, prop in schema.get("properties", {}).items()
    )


_TYPE_WORDS = {"string": "text", "boolean": "yes/no", "integer": "whole number"}
"""JSON types in the words a prompt uses (``number`` is itself)."""


def _kind(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    """The JSON shape of a property in a few words: an enum by its values (``one of LOW,
    HIGH``), a list by its items and its bounds (``list of text, 3 to 16 items``), an optional
    value as its type ``, or null``."""
    ref = prop.get("$ref")
    if ref is not None:
        target = defs.get(ref.rsplit("/", 1)[-1], {})
        if "enum" in target:
            return _kind(target, defs)
        return "{" + ", ".join(target.get("properties", {})) + "}"
    if "enum" in prop:
        return "one of " + ", ".join(map(str, prop["enum"]))
    options = [o for o in prop.get("anyOf", []) if o.get("type") != "null"]
    if len(options) == 1 < len(prop["anyOf"]):  # an optional value (``optional = true``)
        return f"{_kind(options[0], defs)}, or null"
    if prop.get("type") == "array":
        return f"list of {_kind(prop.get('items', {}), defs)}{_count(prop)}"
    kind = str(prop.get("type", "value"))
    return _TYPE_WORDS.get(kind, kind)


def _count(prop: dict[str, Any]) -> str:
    """An array's bounds as words: ``, 3 to 16 items``, ``, at most 16 items``, or none."""
    low, high = prop.get("minItems", 0), prop.get("maxItems")
    if high is None:
        return f", at least {low} items" if low else ""
    return f", {low} to {high} items" if low else f", at most {high} items"
