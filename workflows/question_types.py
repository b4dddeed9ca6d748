"""Reading and filling the agent-specific fields of a typed interrupt request: shared by the
readers of old payloads (``legacy``) and the questions the workflow asks in an agent's place
(``event_questions``). Pure functions."""

from __future__ import annotations

import functools
import typing
from enum import Enum
from typing import Any

from pydantic import TypeAdapter, ValidationError

from agent_interrupts.models.interrupts import InterruptRequestBase

BASE_FIELDS = {f.alias or n for n, f in InterruptRequestBase.model_fields.items()}
"""JSON names of the fields every interrupt request has."""


@functools.cache
def own_fields(cls: type[InterruptRequestBase]) -> dict[str, str]:
    """JSON name -> field name of the fields the model writes beyond the base ones."""
    written = cls.model_json_schema(by_alias=True)["properties"]
    return {
        f.alias or n: n
        for n, f in cls.model_fields.items()
        if (f.alias or n) in written and (f.alias or n) not in BASE_FIELDS
    }


def fits(cls: type[InterruptRequestBase], name: str, value: Any) -> bool:
    try:
        _adapter(cls, name).validate_python(value)
    except ValidationError:
        return False
    return True


@functools.cache
def _adapter(cls: type[InterruptRequestBase], name: str) -> TypeAdapter[Any]:
    return TypeAdapter(typing.cast(Any, cls.model_fields[name].annotation))


def empty_fields(cls: type[InterruptRequestBase]) -> dict[str, Any]:
    """The agent-specific fields of ``cls``, each empty: a question the workflow asks itself."""
    return {
        key: empty_value(cls.model_fields[name].annotation) for key, name in own_fields(cls).items()
    }


def empty_value(annotation: Any) -> Any:
    """A value of ``annotation`` that says nothing: an empty list or text, the first of an
    enum's or a literal's values, zero, no."""
    if typing.get_origin(annotation) is list:
        return []
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)[0]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return next(iter(annotation)).value
    return {bool: False, int: 0, float: 0.0}.get(annotation, "")
