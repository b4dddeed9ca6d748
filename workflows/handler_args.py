"""Turn whatever a caller sent to a handler into a model, or into one clipped line saying why not.

Handlers take any arity and any payload, and never raise on them: a signal's or an update's one
payload arrives raw (``one_raw_payload``), other arities and the start input as decoded JSON
values.
Nothing here raises on bad input.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError
from temporalio import workflow
from temporalio.common import RawValue

from agent_interrupts.models.errors import describe_validation_error
from agent_interrupts.models.limits import MAX_PAYLOAD_BYTES, echo

M = TypeVar("M", bound=BaseModel)
H = TypeVar("H", bound=Callable[..., Any])


@dataclass(frozen=True)
class Parsed(Generic[M]):
    """A validated value, or the problem (one clipped line) that kept it out."""

    value: M | None
    problem: str | None = None
    raw: object = None
    """The decoded JSON that did not validate (for a refusal in the caller's terms)."""
    error: ValidationError | None = None
    """Why it did not validate, when it was decoded."""


def one_raw_payload(handler: H) -> H:
    """Declare the handler ``handler(self, *args)`` to the SDK as taking one RawValue.

    A named handler (which the Temporal UI lists) gets its payloads converted by
    the parameters it declares, and only when their count matches. Declared with one RawValue
    parameter, it receives one payload of any encoding undecoded; none as no argument; two or more
    decoded, never a TypeError that would fail the workflow task. (Two or more of which one cannot
    be decoded are dropped by the SDK, with a warning in the worker's log.) An update keeps its
    return type, which typed clients decode the result by.
    """
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    payload = inspect.Parameter(
        "payload", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=RawValue
    )
    setattr(handler, "__signature__", inspect.Signature([self_param, payload]))  # noqa: B010
    handler.__annotations__ = {
        "payload": RawValue,
        "return": handler.__annotations__.get("return", None),
    }
    return handler


def parse_raw(name: str, args: Sequence[object], model: type[M]) -> Parsed[M]:
    """A signal's or an update's arguments -> one ``model``; arity, size, encoding and schema.

    One argument is the raw payload; other arities arrive decoded, and are refused for it."""
    if len(args) != 1:
        return Parsed(None, _arity(name, len(args), model))
    if not isinstance(args[0], RawValue):
        return parse_values(name, args, model)
    payload = args[0].payload
    if len(payload.data) > MAX_PAYLOAD_BYTES:
        return Parsed(None, _too_large(name, len(payload.data)))
    try:
        value = workflow.payload_converter().from_payload(payload)
    except Exception as err:  # any decoding failure is the caller's problem, never the task's
        encoding = payload.metadata.get("encoding", b"").decode("utf-8", "replace")
        return Parsed(
            None,
            f"the payload of {name} is not JSON (encoding {echo(encoding, 40)}, "
            f"{type(err).__name__}); send one JSON object",
        )
    return _validate(value, model)


def parse_values(
    name: str, args: Sequence[object], model: type[M], max_bytes: int | None = MAX_PAYLOAD_BYTES
) -> Parsed[M]:
    """Decoded arguments -> one ``model``; arity, size (unless ``max_bytes`` is None) and schema.

    Start inputs pass ``max_bytes=None``: their fields carry their own limits, and the state a
    continue-as-new carries is bounded by the blackboard, not by this door.
    """
    if len(args) != 1:
        return Parsed(None, _arity(name, len(args), model))
    value = args[0]
    if isinstance(value, model):
        return Parsed(value)
    if max_bytes is not None:
        size = len(json.dumps(value, default=str))
        if size > max_bytes:
            return Parsed(None, _too_large(name, size))
    return _validate(value, model)


def _validate(value: object, model: type[M]) -> Parsed[M]:
    try:
        return Parsed(model.model_validate(value))
    except ValidationError as err:
        problem = f"not a valid {model.__name__}: {describe_validation_error(err)}"
        return Parsed(None, problem, raw=value, error=err)


def _arity(name: str, count: int, model: type[BaseModel]) -> str:
    return f"{name} takes one {model.__name__} JSON argument, got {count}"


def _too_large(name: str, size: int) -> str:
    """One line for any client: only the sender can check sizes over the server's payload limit,
    where no workflow can answer (``SERVER_PAYLOAD_BYTES``)."""
    return (
        f"the payload of {name} is {size} bytes, over the {MAX_PAYLOAD_BYTES} byte limit; "
        "send less text, and check the size before sending: over the server's payload limit the "
        "workflow cannot even refuse it (see the limits in docs/questions-and-supervisors.md)"
    )
