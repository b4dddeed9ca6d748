"""The bounded blackboard. State keeps payloads for a window only, continue-as-new
carries a bounded state whatever the run's length, previous attempts and counters survive."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_interrupts.models.state import (
    EntryKind,
    EventKind,
    GraphEvent,
    OrchestratorState,
    PendingStep,
)
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows import blackboard

NOW = datetime(2026, 1, 1, tzinfo=UTC)
BIG = {"collectorResult": {"summary": "s" * 500, "findings": ["f" * 200] * 40}}


def _state() -> OrchestratorState:
    return OrchestratorState(goal="g" * 8_000, max_steps=1_000_000)


def _step(state: OrchestratorState, n: int, agent: AgentType = AgentType.REVIEW_AGENT) -> None:
    request = blackboard.record(
        state,
        node_id=f"n-{n}",
        agent=agent,
        kind=EntryKind.REQUEST,
        payload={"guidance": "g" * 2_000},
        context_id=f"c-{n}-req",
        at=NOW,
    )
    output = blackboard.record(
        state,
        node_id=f"n-{n}",
        agent=agent,
        kind=EntryKind.OUTPUT,
        payload=BIG,
        context_id=f"c-{n}-out",
        at=NOW,
        route="mergerRequest",
        upstream=[
            request.context_id,
            *(f"wf-{'r' * 36}/review-agent/{i}/{NOW}" for i in range(200)),
        ],
    )
    blackboard.remember_output(state, output)


def test_payloads_are_kept_only_for_the_window_and_indexes_count_up() -> None:
    state = _state()
    for n in range(100):
        _step(state, n)
    assert [e.index for e in state.history] == list(range(200))
    held = [e for e in state.history if e.payload is not None]
    assert len(held) == blackboard.PAYLOAD_WINDOW
    assert held[0].index == 200 - blackboard.PAYLOAD_WINDOW
    assert all(len(e.upstream_context_ids) <= blackboard.MAX_UPSTREAM_IDS for e in state.history)
    assert state.history[-1].summary.startswith("sss") and len(state.history[-1].summary) < 300


def test_carried_state_is_bounded_whatever_the_run_length() -> None:
    """The aim: <= 64 KB of carried state, flat in the number of steps."""
    sizes = []
    for steps in (10, 100, 1_000):
        state = _state()
        for n in range(steps):
            _step(state, n, agent=list(AgentType)[n % len(AgentType)])
            blackboard_event(state, n)
        carried = blackboard.carried(state)
        sizes.append(len(carried.model_dump_json()))
        assert len(carried.history) <= blackboard.CARRIED_ENTRIES
        assert carried.entries_recorded == 2 * steps
    assert sizes[2] <= 64 * 1024, sizes
    assert sizes[2] <= sizes[1] * 1.05, "flat in run length"


def blackboard_event(state: OrchestratorState, n: int) -> None:
    state.events.append(GraphEvent(kind=EventKind.INFO, message=f"event {n} " + "e" * 300, at=NOW))


def test_previous_attempt_outlives_the_payload_window() -> None:
    state = _state()
    _step(state, 0, agent=AgentType.ORCHESTRATOR)
    for n in range(1, 60):
        _step(state, n)
    current = blackboard.record(
        state,
        node_id="n-x",
        agent=AgentType.ORCHESTRATOR,
        kind=EntryKind.REQUEST,
        payload={},
        context_id="c-x",
        at=NOW,
    )
    previous = blackboard.previous_attempt(state, AgentType.ORCHESTRATOR, current)
    assert previous is not None and previous.context_id == "c-0-out"
    assert previous.output_excerpt.startswith('{"collectorResult"')
    assert previous.output_excerpt.endswith("more characters]")
    assert "REVIEW_AGENT routed the run back here" in previous.outcome
    assert blackboard.previous_attempt(state, AgentType.MERGER_AGENT, current) is None


def test_interrupts_are_counted_per_agent_type() -> None:
    state = _state()
    for agent in (AgentType.REVIEW_AGENT, AgentType.REVIEW_AGENT, AgentType.MERGER_AGENT):
        blackboard.record(
            state,
            node_id="n",
            agent=agent,
            kind=EntryKind.INTERRUPT,
            payload={},
            context_id="c",
            at=NOW,
        )
    assert state.interrupt_counts == {AgentType.REVIEW_AGENT: 2, AgentType.MERGER_AGENT: 1}


def test_pages_start_at_an_index_and_say_what_this_run_holds() -> None:
    state = _state()
    for n in range(30):
        _step(state, n)
    carried = blackboard.carried(state)
    page = blackboard.page(carried, 0, 10)
    assert page.first_held == 60 - blackboard.CARRIED_ENTRIES
    assert [e.index for e in page.entries] == list(range(page.first_held, page.first_held + 10))
    assert page.total == 60
    assert blackboard.page(state, 55, 100).entries[-1].index == 59


def test_the_status_entries_carry_payloads_under_a_query_answers_limit() -> None:
    """Ten entries of 256 KB outputs made a 2.5 MB status answer, which the server refused."""
    state = _state()
    huge = {"collectorResult": {"summary": "s", "findings": ["f" * 250_000]}}
    for n in range(blackboard.STATUS_ENTRIES):
        blackboard.record(
            state,
            node_id=f"n-{n}",
            agent=AgentType.REVIEW_AGENT,
            kind=EntryKind.OUTPUT,
            payload=huge if n != 0 else {"summary": "small and old"},
            context_id=f"c-{n}",
            at=NOW,
        )
    shown = blackboard.status_entries(state)
    assert [e.index for e in shown] == [e.index for e in state.history]
    sizes = [len(e.model_dump_json()) for e in shown]
    assert sum(sizes) <= blackboard.STATUS_PAYLOAD_BYTES + 10_000
    assert shown[-1].payload == huge, "the newest keep theirs"
    assert shown[0].payload == {"summary": "small and old"}, "an older one that fits keeps it"
    assert any(e.payload is None for e in shown) and state.history[1].payload == huge


def test_carried_state_over_its_bytes_is_cut_and_still_valid() -> None:
    state = _state()
    for n in range(blackboard.CARRIED_ENTRIES):
        _step(state, n)
    state.pending = PendingStep(
        agent_type=AgentType.TICKET_COLLECTOR,
        request={"agentResults": [{"summary": "r" * 150_000} for _ in range(16)]},
    )
    carried = blackboard.carried(state)
    assert len(carried.model_dump_json()) <= blackboard.CARRIED_STATE_BYTES
    assert carried.pending is not None and len(carried.pending.request["agentResults"]) == 16
    assert "[cut: " in carried.pending.request["agentResults"][0]["summary"]
    assert carried.goal == state.goal, "what fits is not cut"
