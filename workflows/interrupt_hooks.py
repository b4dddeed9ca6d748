"""The decorator pipeline of interrupt processing (spec 002 FR-011), in its fixed order:
request hooks, then resolution hooks, then translation hooks. Each hook is a pure function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from models.interrupt_flow import InterruptInput
from models.interrupts import InterruptResolution


def _unique_ids(job: InterruptInput) -> InterruptInput:
    """Give repeated choice/confirmation ids a suffix so every answer has one target."""
    seen: set[str] = set()
    for choice in job.request.choices:
        base, n = choice.choice_id, 1
        while choice.choice_id in seen:
            n += 1
            choice.choice_id = f"{base}-{n}"
        seen.add(choice.choice_id)
    seen.clear()
    for item in job.request.confirmation_items:
        base, n = item.confirmation_id, 1
        while item.confirmation_id in seen:
            n += 1
            item.confirmation_id = f"{base}-{n}"
        seen.add(item.confirmation_id)
    return job


def _apply_event(job: InterruptInput) -> InterruptInput:
    """A supervisor's choices and confirmations are what the person is shown (US3 scenario 4)."""
    event = job.event
    if event is None:
        return job
    update: dict[str, Any] = {"type": event.interrupt_type}
    if event.choices:
        update["choices"] = event.shown_choices()
    if event.confirmation_items:
        update["confirmation_items"] = list(event.confirmation_items)
    if event.context_for_decision:
        update["context_for_decision"] = event.context_for_decision
    request = job.request.model_copy(update=update)
    return job.model_copy(update={"request": request})


def _trim_answers(resolution: InterruptResolution) -> InterruptResolution:
    """Strip write-ins and drop empty ones."""
    custom = {k: v.strip() for k, v in resolution.custom_inputs.items() if v.strip()}
    text = resolution.free_text.strip() if resolution.free_text else None
    return resolution.model_copy(update={"custom_inputs": custom, "free_text": text or None})


def _carry_goal(routing: dict[str, Any], goal: str) -> dict[str, Any]:
    """The translated request works on the run's goal, whatever the LLM wrote."""
    return {k: ({**v, "goal": goal} if isinstance(v, dict) else v) for k, v in routing.items()}


REQUEST_HOOKS: tuple[tuple[str, Callable[[InterruptInput], InterruptInput]], ...] = (
    ("request:apply_event", _apply_event),
    ("request:unique_ids", _unique_ids),
)
RESOLUTION_HOOKS: tuple[tuple[str, Callable[[InterruptResolution], InterruptResolution]], ...] = (
    ("resolution:trim_answers", _trim_answers),
)
TRANSLATION_HOOKS: tuple[tuple[str, Callable[[dict[str, Any], str], dict[str, Any]]], ...] = (
    ("translation:carry_goal", _carry_goal),
)
