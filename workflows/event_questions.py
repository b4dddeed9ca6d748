"""The question a supervisor's event asked for, when the agent did not ask it.

An accepted InterruptRequestEvent is a promise: if the agent's reply has no ``interruptRequest``,
the workflow asks in its place. The question is typed as the asking agent's own interrupt, built
from the event's fields; its agent-specific fields are filled from the ignored reply where a
value of the same name fits, else left empty; the reply itself is summarised in
``contextForDecision`` (it is kept on the blackboard and never acted on). Pure functions.
"""

from __future__ import annotations

from typing import Any

from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import MAX_TEXT_CHARS, compact_json
from agent_interrupts.models.team import Team
from agent_interrupts.workflows.question_types import empty_value, fits, own_fields

REPLY_EXCERPT_CHARS = 1_500


def question_from_event(
    agent: str, event: InterruptRequestEvent, reply: dict[str, Any], team: Team
) -> InterruptRequestBase:
    """``agent``'s typed question carrying ``event``'s reason, type and context (its choices and
    confirmation items join in InterruptWorkflow's request hook, as for any event)."""
    cls = team.questions[agent]
    found = _values_by_name(reply)
    fields: dict[str, Any] = {}
    for key, name in own_fields(cls).items():
        value = found.get(key)
        fields[key] = (
            value
            if value is not None and fits(cls, name, value)
            else empty_value(cls.model_fields[name].annotation)
        )
    ignored = compact_json(reply, REPLY_EXCERPT_CHARS)
    context = (f"{event.context_for_decision}\n\n" if event.context_for_decision else "") + (
        f"A supervisor asked {agent} to stop and ask (event {event.event_id}), but its "
        f"reply did not ask; the workflow asks in its place. The reply, kept and not acted on: "
        f"{ignored}"
    )
    return cls.model_validate(
        {
            **fields,
            "type": event.interrupt_type.value,
            "reason": event.reason,
            "choices": [],
            "confirmationItems": [],
            "contextForDecision": context[:MAX_TEXT_CHARS],
        }
    )


def _values_by_name(reply: dict[str, Any]) -> dict[str, Any]:
    """Top-level values of the reply and of its route's payload, by JSON name (first wins)."""
    found: dict[str, Any] = {}
    for value in [reply, *(v for v in reply.values() if isinstance(v, dict))]:
        for key, item in value.items():
            found.setdefault(key, item)
    return found
