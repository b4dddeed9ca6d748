"""The ways out of a stuck agent's question (``workflows/stuck_questions.py``): what an answer
chose, and the request of the agent the run goes on at. Pure functions.

An answer that picks "Stop the run here" stops the run; one that picks "Continue at AGENT" runs
that agent next, with the person's free text as its guidance; CUSTOM (answer in the agent's
place) runs that agent next with the person's words, unchanged, as its guidance. Any other
answer runs the stuck agent again, as before.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    OptionKey,
    answerer,
)
from agent_interrupts.models.limits import MAX_TEXT_CHARS, clip
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.workflows.stuck_questions import (
    ROUTE_CHOICE_ID,
    STOP,
    continue_text,
    in_place_text,
)


@dataclass(frozen=True)
class Stop:
    """The answer stops the run; ``who`` answered (``answerer``), ``why`` in their words."""

    who: str
    why: str


@dataclass(frozen=True)
class ContinueAt:
    """The answer sends the run on to ``target`` with ``guidance``; ``in_place``: the guidance
    is the person's answer in the stuck agent's place, word for word."""

    target: str
    guidance: str
    in_place: bool


def chosen_way(
    agent: str,
    question: InterruptRequestBase,
    resolution: InterruptResolution | None,
    targets: Sequence[str],
) -> Stop | ContinueAt | None:
    """The way out ``resolution`` takes from ``agent``'s stuck ``question``, whose continue
    options name agents of ``targets``; None when it runs the agent again (or the question
    offered no ways out)."""
    if resolution is None:
        return None
    choice = next((c for c in question.choices if c.choice_id == ROUTE_CHOICE_ID), None)
    picked = resolution.selected_choices.get(ROUTE_CHOICE_ID)
    if choice is None or picked is None:
        return None
    text = {o.key: o.description for o in choice.options}.get(picked, "")
    words = (resolution.free_text or "").strip()
    if text == STOP:
        return Stop(answerer(resolution), words or "no reason given")
    if picked is OptionKey.CUSTOM:
        written = resolution.custom_inputs.get(ROUTE_CHOICE_ID, "")
        for target in targets:
            if text == in_place_text(agent, target) and written:
                return ContinueAt(target, written, in_place=True)
        return None
    for target in targets:
        if text == continue_text(target):
            said = f"{answerer(resolution)} skipped {agent}, which could not finish its step"
            guidance = f"{said}, and sent the run on to you." + (f"\n\n{words}" if words else "")
            return ContinueAt(target, clip(guidance, MAX_TEXT_CHARS), in_place=False)
    return None


def request_for(
    model: type[AgentRequest], carried: dict[str, Any] | None, guidance: str
) -> dict[str, Any] | None:
    """The request ``model`` gets when the run continues there: its last request (``carried``)
    or else blanks for what it requires, with ``guidance``; None when none is valid."""
    data = dict(carried or {})
    for name, field in model.model_fields.items():
        key = field.alias or name
        if field.is_required() and key not in data and name not in data:
            data[key] = _blank(field.annotation)
    data["guidance"] = guidance
    try:
        return model.model_validate(data).to_wire()
    except ValidationError:
        return None


def _blank(annotation: Any) -> Any:
    """An empty value of a required field's type: ``""``, ``[]``, ``False``, ``0``, else None."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return None
    kind = origin or annotation
    if kind is str:
        return ""
    if kind in (list, tuple, set):
        return []
    if kind is bool:
        return False
    if kind in (int, float):
        return 0
    return None
