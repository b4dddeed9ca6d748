"""Payloads recorded before issue 10, as the current models read them (runs in flight replay).

Before issue 10 a dispatched agent returned its bare result with a ``needsInput`` text, and each
typed interrupt request had one text per agent-specific field. Recorded histories hold such
payloads; the workflows read them through these upgrades, so a run in flight makes the same
decisions on the new code. The upgrades touch only data in the old shape: a payload in the
current shape is returned as it is. Pure functions.
"""

from __future__ import annotations

import functools
import typing
from enum import Enum
from typing import Any

from pydantic import TypeAdapter, ValidationError

from models.agent_types import DISPATCHED_AGENTS, AgentType
from models.interrupts import AnyInterruptRequest, InterruptRequestBase
from models.results import LEGACY_NEEDS_INPUT

_QUESTIONS: dict[str, type[InterruptRequestBase]] = {
    str(cls.model_fields["origin"].default): cls
    for cls in typing.get_args(typing.get_args(AnyInterruptRequest)[0])
}
_BASE = {f.alias or n for n, f in InterruptRequestBase.model_fields.items()}


def upgrade_output(agent: AgentType, output: dict[str, Any]) -> dict[str, Any]:
    """An agent's output (wire form) in the current shape."""
    if agent in DISPATCHED_AGENTS and LEGACY_NEEDS_INPUT in output:
        return {"result": output, "interruptRequest": None}
    question = output.get("interruptRequest")
    if isinstance(question, dict):
        return {**output, "interruptRequest": upgrade_question(question)}
    return output


def upgrade_start(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """InterruptWorkflow's start arguments with a recorded question in the current shape."""
    if len(args) == 1 and isinstance(args[0], dict) and isinstance(args[0].get("request"), dict):
        return ({**args[0], "request": upgrade_question(args[0]["request"])},)
    return args


def upgrade_question(question: dict[str, Any]) -> dict[str, Any]:
    """A typed question in the current shape: agent-specific values that no longer fit their
    field are kept as text in ``contextForDecision``, and the field is left empty (a list empty,
    a text blank, a choice of values its first value)."""
    cls = _QUESTIONS.get(str(question.get("origin")))
    if cls is None:
        return question
    fields = _own_fields(cls)
    if set(fields) <= set(question) and all(_fits(cls, fields[k], question[k]) for k in fields):
        return question
    upgraded = {k: v for k, v in question.items() if k in _BASE or k in fields or k == "origin"}
    notes = [f"{k}: {v}" for k, v in question.items() if k not in upgraded]
    for key, name in fields.items():
        if key in question and _fits(cls, name, question[key]):
            continue
        if question.get(key) not in (None, "", []):
            notes.append(f"{key}: {question[key]}")
        upgraded[key] = _empty(cls.model_fields[name].annotation)
    context = str(question.get("contextForDecision", ""))
    upgraded["contextForDecision"] = "\n".join([context, *notes]).strip()
    return upgraded


@functools.cache
def _own_fields(cls: type[InterruptRequestBase]) -> dict[str, str]:
    """JSON name -> field name of the fields the model writes beyond the base ones."""
    written = cls.model_json_schema(by_alias=True)["properties"]
    return {
        f.alias or n: n
        for n, f in cls.model_fields.items()
        if (f.alias or n) in written and (f.alias or n) not in _BASE
    }


def _fits(cls: type[InterruptRequestBase], name: str, value: Any) -> bool:
    try:
        _adapter(cls, name).validate_python(value)
    except ValidationError:
        return False
    return True


@functools.cache
def _adapter(cls: type[InterruptRequestBase], name: str) -> TypeAdapter[Any]:
    return TypeAdapter(typing.cast(Any, cls.model_fields[name].annotation))


def _empty(annotation: Any) -> Any:
    if typing.get_origin(annotation) is list:
        return []
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return next(iter(annotation)).value
    return ""
