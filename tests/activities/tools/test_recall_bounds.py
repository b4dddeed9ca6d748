"""What a step's recall sees, decided from its agent call alone: memories
retained before the step was scheduled; in a fork, of those only the ones retained before its
point or by its own run chain."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_interrupts.activities.tools.catalog import recall_bounds
from agent_interrupts.activities.tools.memory import AsOf
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.ids import make_context_id

STEP_AT = datetime(2026, 5, 1, 12, 0, 30, tzinfo=UTC)
POINT = datetime(2026, 5, 1, 11, 0, 0, 250_000, tzinfo=UTC)


def call(result_id: str, memories_as_of: datetime | None = None) -> AgentCall:
    return AgentCall(
        node_id="review-agent-012",
        agent_type="REVIEW_AGENT",
        result_id=result_id,
        goal="g",
        request={},
        memories_as_of=memories_as_of,
    )


def test_a_run_that_is_no_fork_recalls_what_was_retained_before_its_step() -> None:
    result_id = make_context_id("run-1", "REVIEW_AGENT", 12, STEP_AT)
    assert recall_bounds(call(result_id)) == (STEP_AT.timestamp(), None)
    assert "memoriesAsOf" not in call(result_id).to_wire()  # the wire form of runs is as before


def test_a_forks_step_sees_the_memories_as_of_its_point_and_its_own_runs() -> None:
    result_id = make_context_id("fork-run", "REVIEW_AGENT", 12, STEP_AT)
    before, as_of = recall_bounds(call(result_id, POINT))
    assert before == STEP_AT.timestamp()
    assert as_of == AsOf(POINT.timestamp(), "fork-run")
    own = make_context_id("fork-run", "PLANNING_AGENT", 9, STEP_AT)
    parents = make_context_id("parent-run", "PLANNING_AGENT", 9, STEP_AT)
    assert as_of.sees(POINT.timestamp() - 0.001, [parents])  # the parent's, before the point
    assert not as_of.sees(POINT.timestamp(), [parents])  # the parent's, after it
    assert as_of.sees(POINT.timestamp() + 60, [parents, own])  # the fork's own, after it
    assert not as_of.sees(POINT.timestamp() + 60, ["fork-run", "wf-fork-run-2/a/001/t"])


def test_a_call_whose_result_id_is_no_context_id_is_not_bounded() -> None:
    assert recall_bounds(call("not-a-context-id", POINT)) == (None, None)


def test_the_own_pattern_escapes_what_like_would_read_as_wildcards() -> None:
    assert AsOf(0.0, "a_b%c\\d").own_pattern() == '%"wf-a\\_b\\%c\\\\d/%'
