"""The pure routing planner."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.state import EntryKind, HistoryEntry
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.teams.software.routings import OrchestratorCollectorRouting, ReviewRouting
from agent_interrupts.workflows.planner import last_request_of, next_step, return_target

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _request(agent: AgentType, n: int) -> HistoryEntry:
    return HistoryEntry(
        node_id=f"{agent.slug}-{n}",
        agent_type=agent,
        kind=EntryKind.REQUEST,
        context_id=f"id-{n}",
        payload={"n": n},
        at=NOW,
    )


def test_next_step_follows_the_one_route() -> None:
    routing = ReviewRouting.model_validate(
        {
            "reviewResult": {
                "assessmentStatus": "APPROVED",
                "feedback": "ok",
                "suggestions": [],
            },
            "mergerRequest": {"guidance": "merge", "mergeStrategy": "squash"},
        }
    )
    step = next_step(routing)
    assert step.route == "mergerRequest"
    assert step.target is AgentType.MERGER_AGENT
    assert step.value.merge_strategy == "squash"


def test_final_result_is_the_end_route() -> None:
    result = OrchestratorCollectorResult(
        summary="done",
        deliverables=[],
        phases_completed=[],
        merge_strategy="m",
        conflict_resolutions=[],
        decision_rationale="goal met",
    )
    step = next_step(OrchestratorCollectorRouting(final_result=result))
    assert step.target is Terminal.END
    assert step.value is result


def test_return_target_skips_context_manager_and_dispatched_agents() -> None:
    history = [
        _request(AgentType.REVIEW_AGENT, 1),
        _request(AgentType.TICKET_AGENT, 2),
        _request(AgentType.CONTEXT_MANAGER, 3),
    ]
    back = return_target(history, team=SOFTWARE_TEAM)
    assert back is not None and back.agent_type is AgentType.REVIEW_AGENT


def test_last_request_of_finds_the_most_recent_one() -> None:
    history = [
        _request(AgentType.PLANNING_ORCHESTRATOR, 1),
        _request(AgentType.REVIEW_AGENT, 2),
        _request(AgentType.PLANNING_ORCHESTRATOR, 3),
    ]
    found = last_request_of(history, AgentType.PLANNING_ORCHESTRATOR)
    assert found is not None and found.payload == {"n": 3}
    assert last_request_of(history, AgentType.MERGER_AGENT) is None
