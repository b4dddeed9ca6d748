"""InterruptRequestEvent (the routing contract's event): a supervisor's or a
person's request that the running agent stop and ask, then continue at another agent."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from pydantic import Field

from agent_interrupts.models.agent_types import AgentName, agent_name
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupts import (
    ChoiceOption,
    ConfirmationItem,
    InterruptType,
    OptionKey,
    StructuredChoice,
)
from agent_interrupts.models.limits import MAX_ITEMS, Id, Text

INTERRUPT_REQUEST_EVENT_SIGNAL = "interrupt_request_event"
"""The orchestrator's signal that carries an InterruptRequestEvent."""
EVENT_CHOICE_ID = "supervisor"
"""choiceId under which an event's choices are shown to the person."""
_KEYS = (OptionKey.A, OptionKey.B, OptionKey.C, OptionKey.D)


class EventChoice(WireModel):
    """One option of an event, as in the routing contract: ``{"label", "value", "description"}``."""

    label: Text
    value: Text
    description: Text = ""


class InterruptRequestEvent(WireModel):
    """The signal ``interrupt_request_event``'s JSON. ``nodeId`` may be omitted: the event then
    targets the running node of ``sourceAgentType``. Whether its agents are the run's is for the
    run to say, against its own team (``workflows/event_rules.py::unknown_agents``)."""

    event_id: Id
    timestamp: datetime | None = None
    node_id: Id | None = None
    source_agent_type: AgentName
    reroute_to_agent_type: AgentName | None = None
    interrupt_type: InterruptType = InterruptType.HUMAN_REVIEW
    reason: Text = Field(min_length=1)
    choices: list[EventChoice] = Field(default_factory=list, max_length=len(_KEYS))
    confirmation_items: list[ConfirmationItem] = Field(default_factory=list, max_length=MAX_ITEMS)
    context_for_decision: Text = ""

    def shown_choices(self) -> list[StructuredChoice]:
        """The event's options as one A-D (+CUSTOM) choice for the person (handler US3
        scenario 4)."""
        if not self.choices:
            return []
        return [
            StructuredChoice(
                choice_id=EVENT_CHOICE_ID,
                question=self.reason,
                context=self.context_for_decision,
                options=[
                    ChoiceOption(key=key, description=f"{c.label}: {c.description}".rstrip(": "))
                    for key, c in zip(_KEYS, self.choices, strict=False)
                ],
                recommended=None,
            )
        ]

    def route_of_option(self, key: OptionKey, targets: Collection[str]) -> str | None:
        """The agent an option leads to, when the option's ``value`` names one of ``targets``
        (the agents the run's team may resume at)."""
        index = _KEYS.index(key) if key in _KEYS else len(self.choices)
        if index >= len(self.choices):
            return None
        value = self.choices[index].value.upper()
        return agent_name(value) if value in targets else None


class EventAck(WireModel):
    """The validated update's answer to a supervisor."""

    accepted: bool
    node_id: str
    message: str
