"""The one owner of a supervisor's accepted events (pure): where each waits, and how it moves."""

from __future__ import annotations

from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.limits import MAX_REMEMBERED_EVENT_IDS
from agent_interrupts.models.state import OrchestratorState
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.supervisor_events import SupervisorEvents


def _event(event_id: str) -> InterruptRequestEvent:
    return InterruptRequestEvent(
        event_id=event_id, source_agent_type=AgentType.TICKET_DISPATCH, reason="look again"
    )


def test_an_event_waits_where_it_was_taken_until_a_question_takes_it() -> None:
    state = OrchestratorState(goal="g", max_steps=10)
    events = SupervisorEvents(state)
    first, second = _event("e-1"), _event("e-2")
    events.accept("ticket-dispatch-033", first)
    events.also_at("ticket-dispatch-033/ticket-agent-1", first)
    events.also_at("ticket-dispatch-033", second)  # one event per node: the first stays
    assert events.waiting_at("ticket-dispatch-033") is first
    assert events.seen("e-1") and not events.seen("e-2")
    assert events.take("ticket-dispatch-033/ticket-agent-1") is first
    assert events.take("ticket-dispatch-033/ticket-agent-1") is None
    assert events.move("ticket-dispatch-033", "ticket-dispatch-040") is first
    assert state.stored_events == {"ticket-dispatch-040": first}
    assert events.move("ticket-dispatch-033", "ticket-dispatch-041") is None


def test_only_the_newest_event_ids_are_remembered() -> None:
    state = OrchestratorState(goal="g", max_steps=10)
    events = SupervisorEvents(state)
    for n in range(MAX_REMEMBERED_EVENT_IDS + 5):
        events.accept(f"node-{n}", _event(f"e-{n}"))
    assert len(state.processed_event_ids) == MAX_REMEMBERED_EVENT_IDS
    assert not events.seen("e-0") and events.seen(f"e-{MAX_REMEMBERED_EVENT_IDS + 4}")
