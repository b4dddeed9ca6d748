"""The decorator pipeline of interrupt processing (handler FR-011), in its fixed order:
request hooks, then resolution hooks, then translation hooks. Each hook is a pure function."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import InterruptRequestBase, InterruptResolution
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS


def _unique_ids(job: InterruptInput) -> InterruptInput:
    """Give repeated choice/confirmation ids a suffix so every answer has one target."""
    _suffix_repeats(job.request.choices, "choice_id")
    _suffix_repeats(job.request.confirmation_items, "confirmation_id")
    return job


def _suffix_repeats(items: Sequence[object], id_field: str) -> None:
    seen: set[str] = set()
    for item in items:
        base = unique = getattr(item, id_field)
        n = 1
        while unique in seen:
            n += 1
            unique = f"{base}-{n}"
        setattr(item, id_field, unique)
        seen.add(unique)


def _join_event(job: InterruptInput) -> InterruptInput:
    """A supervisor's choices and confirmations join the asking agent's own (at a dispatch node,
    the agents' lifted questions): the person answers both, the event's part decides the route
    and the agent's part reaches the agent. The event's context is added to
    the question's."""
    return _with_event(job, keep_own=True)


def _replace_with_event(job: InterruptInput) -> InterruptInput:
    """Before version f10337d a supervisor's choices replaced the agent's own, except at a
    dispatch node (replayed so by runs that asked then)."""
    return _with_event(job, keep_own=job.origin in set(DISPATCHED_AGENTS.values()))


def _with_event(job: InterruptInput, *, keep_own: bool) -> InterruptInput:
    event = job.event
    if event is None:
        return job
    asked = job.request
    update: dict[str, Any] = {"type": event.interrupt_type}
    if event.choices:
        update["choices"] = [*(asked.choices if keep_own else []), *event.shown_choices()]
    if event.confirmation_items:
        own = asked.confirmation_items if keep_own else []
        update["confirmation_items"] = [*own, *event.confirmation_items]
    if event.context_for_decision:
        context = asked.context_for_decision.strip()
        supervisor = f"Supervisor: {event.context_for_decision}"
        update["context_for_decision"] = f"{context}\n\n{supervisor}" if context else supervisor
    request = job.request.model_copy(update=update)
    return job.model_copy(update={"request": request})


def _drop_empty_answers(resolution: InterruptResolution) -> InterruptResolution:
    """Drop write-ins of blanks only; every other write-in reaches its agent exactly as typed
    (its spaces and line breaks too)."""
    custom = {k: v for k, v in resolution.custom_inputs.items() if v.strip()}
    text = resolution.free_text if resolution.free_text and resolution.free_text.strip() else None
    return resolution.model_copy(update={"custom_inputs": custom, "free_text": text})


def _goal_by_reference(routing: dict[str, Any]) -> dict[str, Any]:
    """Requests never carry a copy of the goal (the run holds it once), whatever the LLM wrote."""
    return {k: ({**v, "goal": ""} if isinstance(v, dict) else v) for k, v in routing.items()}


RequestHooks = tuple[tuple[str, Callable[[InterruptInput], InterruptInput]], ...]
REQUEST_HOOKS: RequestHooks = (
    ("request:apply_event", _join_event),
    ("request:unique_ids", _unique_ids),
)
REPLACING_REQUEST_HOOKS: RequestHooks = (
    ("request:apply_event", _replace_with_event),
    ("request:unique_ids", _unique_ids),
)
"""The request hooks of a question asked before an event's choices joined the agent's own."""


def asked_question(job: InterruptInput) -> InterruptRequestBase:
    """The question as the person sees it: ``job``'s request after the request hooks (a
    supervisor's choices and confirmations joined to the agent's own), as InterruptWorkflow
    prepares it; a carried job's request has them applied already."""
    if job.carried is not None:
        return job.request
    asked = job.model_copy(deep=True)  # the hooks change ids in place
    for _, request_hook in REQUEST_HOOKS:
        asked = request_hook(asked)
    return asked.request


RESOLUTION_HOOKS: tuple[tuple[str, Callable[[InterruptResolution], InterruptResolution]], ...] = (
    ("resolution:drop_empty_answers", _drop_empty_answers),
)
TRANSLATION_HOOKS: tuple[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]], ...] = (
    ("translation:goal_by_reference", _goal_by_reference),
)
