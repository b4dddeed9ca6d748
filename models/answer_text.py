"""An answer told part by part, for the agent the run continues at: who asked what, and where
each part went (handler US3: a supervisor's event joined to a question). Pure functions.

A question may join parts of two askers: the asking agent's own question and a supervisor's
event (its choice ``supervisor`` and its confirmation items). The agent that asked reads both
parts, each with its question, the chosen option's text (a write-in as typed), each
confirmation's statement and its answer. When the answer sends the run to another agent, that
agent is told it did not ask, who sent the run to it and why; the asking agent's own part is
not taken, which ``own_part_not_taken`` says for the run's events.
"""

from __future__ import annotations

from agent_interrupts.models.interrupt_events import EVENT_CHOICE_ID, InterruptRequestEvent
from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    ResolvedBy,
)
from agent_interrupts.models.limits import clip
from agent_interrupts.models.resolution_rules import (
    answer_lines,
    closing_lines,
    describe_resolution,
)

NOT_ASKED = "You did not ask a question earlier"
"""How the account given to an agent that did not ask begins (the resumed prompt's contributor
then says so instead of "You asked a question earlier")."""
NOT_TAKEN_CHARS = 2_000
"""The longest account of a part not taken, in a run's event."""


def describe_answer(
    asked: InterruptRequestBase,
    resolution: InterruptResolution,
    *,
    origin: str,
    event: InterruptRequestEvent | None,
    resumes_at: str,
) -> str:
    """The answer to ``origin``'s question as the person saw it (``asked``: the supervisor's
    ``event``, if any, joined to the agent's own), told to ``resumes_at``, the agent the run
    continues at. A question of the agent alone, answered back to it, reads as before
    (``describe_resolution``)."""
    if event is None and resumes_at == origin:
        return describe_resolution(asked, resolution)
    mine = [i for i in _ids(asked) if i not in event_ids(asked, event)]
    whose = "yours" if resumes_at == origin else f"{origin}'s"
    supervisor = supervisor_part(asked, resolution, event, whose)
    if resumes_at == origin:
        lines = [
            f"Your question: {asked.reason}",
            *answer_lines(asked, resolution, mine),
            *supervisor,
        ]
    else:
        lines = [
            f"{NOT_ASKED}: {origin} asked one, and "
            f"{sent_here(resolution, origin, event, resumes_at)}.",
            *supervisor,
            f"{origin}'s own part of the question ({asked.reason}) is not taken: the run left "
            f"{origin} and continues at you, {resumes_at}.",
        ]
    return "\n".join([*lines, *closing_lines(resolution)])


def supervisor_part(
    asked: InterruptRequestBase,
    resolution: InterruptResolution,
    event: InterruptRequestEvent | None,
    joined_to: str,
) -> list[str]:
    """The supervisor's part of ``asked`` and its answer, one line each (none without an
    event): the event's reason, then each of its choices and confirmations answered."""
    if event is None:
        return []
    return [
        f"A supervisor's question (event {event.event_id}), joined to {joined_to}: {event.reason}",
        *answer_lines(asked, resolution, event_ids(asked, event)),
    ]


def sent_here(
    resolution: InterruptResolution,
    origin: str,
    event: InterruptRequestEvent | None,
    resumes_at: str,
) -> str:
    """Who sent the run from ``origin``'s question to ``resumes_at``, and why, as a clause."""
    by = "a person" if resolution.resolved_by is ResolvedBy.HUMAN else "the reviewer"
    if resolution.continue_at is not None and resolution.continue_at == resumes_at:
        return f"{by} who answered chose to continue the run at you"
    if event is not None:
        key = resolution.selected_choices.get(EVENT_CHOICE_ID)
        options = {o.key: o.description for c in event.shown_choices() for o in c.options}
        if key is not None and key in options:
            return (
                f"{by} chose the supervisor's option {key.value} ({options[key]}) of event "
                f"{event.event_id} ({event.reason}), which sends the run to you"
            )
        if event.reroute_to_agent_type == resumes_at:
            return (
                f"a supervisor's event {event.event_id} re-routes the run to you once it is "
                f"answered ({event.reason})"
            )
    return f"the answer {by} gave sends the run to you"


def own_part_not_taken(
    asked: InterruptRequestBase,
    resolution: InterruptResolution,
    event: InterruptRequestEvent | None,
) -> str | None:
    """The asking agent's own part of the answer, in one line, when the run goes elsewhere (for
    the run's events); None when it had no answered part."""
    theirs = event_ids(asked, event)
    mine = [i for i in _ids(asked) if i not in theirs]
    lines = [line.removeprefix("- ") for line in answer_lines(asked, resolution, mine)]
    if not lines:
        return None
    return clip(f"{asked.reason} -> " + "; ".join(lines), NOT_TAKEN_CHARS)


def event_ids(asked: InterruptRequestBase, event: InterruptRequestEvent | None) -> set[str]:
    """The choice and confirmation ids of the supervisor's part of ``asked``: the event's choice
    and confirmation items, joined after the agent's own (``interrupt_hooks``)."""
    if event is None:
        return set()
    choices = asked.choices[max(0, len(asked.choices) - len(event.shown_choices())) :]
    items = asked.confirmation_items[
        max(0, len(asked.confirmation_items) - len(event.confirmation_items)) :
    ]
    return {*(c.choice_id for c in choices), *(c.confirmation_id for c in items)}


def _ids(request: InterruptRequestBase) -> list[str]:
    return [
        *(c.choice_id for c in request.choices),
        *(c.confirmation_id for c in request.confirmation_items),
    ]
