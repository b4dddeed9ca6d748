"""What follows a node's output is a pure function (``workflows/steps.decide``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agent_interrupts.models.errors import DegenerateLoop
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.requests import CONTEXT_FOUND
from agent_interrupts.models.state import EntryKind, HistoryEntry
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import ReviewInterruptRequest
from agent_interrupts.teams.software.requests import DiscoveryCollectorRequest, MergerRequest
from agent_interrupts.teams.software.results import ContextManagerResult, DiscoveryAgentResult
from agent_interrupts.teams.software.routings import (
    ContextManagerRouting,
    DiscoveryDispatchRouting,
    ReviewRouting,
)
from agent_interrupts.workflows.steps import decide

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _entry(agent: AgentType, kind: EntryKind, payload: dict[str, Any] | None, n: int = 0):
    return HistoryEntry(
        index=n,
        node_id=f"{agent.slug}-{n:03d}",
        agent_type=agent,
        kind=kind,
        context_id=f"c-{n}",
        payload=payload,
        at=NOW,
    )


OUTPUT = _entry(AgentType.REVIEW_AGENT, EntryKind.OUTPUT, {}, 9)


def test_a_forward_route_becomes_the_next_step() -> None:
    routing = ReviewRouting.model_construct(
        merger_request=MergerRequest(guidance="merge it", merge_strategy="squash")
    )
    decision = decide(AgentType.REVIEW_AGENT, routing, OUTPUT, [], team=SOFTWARE_TEAM)
    assert decision.route == "mergerRequest"
    assert decision.step is not None and decision.step.agent_type is AgentType.MERGER_AGENT
    assert decision.step.request["mergeStrategy"] == "squash"
    assert decision.step.upstream_context_ids == ["c-9"]


def test_a_question_is_handed_on_not_routed() -> None:
    question = {
        "type": "HUMAN_REVIEW",
        "reason": "which?",
        "choices": [],
        "confirmationItems": [],
        "contextForDecision": "",
        "reviewCriteria": [],
        "assessmentFindings": [],
        "approvalRecommendation": "APPROVED",
    }
    routing = ReviewRouting.model_construct(
        interrupt_request=ReviewInterruptRequest.model_validate(question)
    )
    decision = decide(AgentType.REVIEW_AGENT, routing, OUTPUT, [], team=SOFTWARE_TEAM)
    assert decision.interrupt is not None and decision.interrupt.reason == "which?"
    assert decision.step is None and decision.final is None


def test_dispatched_results_reach_the_collector() -> None:
    result = DiscoveryAgentResult.model_validate(
        {
            "subdomain": "gateway",
            "summary": "s",
            "findings": [],
            "fileReferences": [],
            "crossLinks": [],
            "tags": [],
            "generatedQueries": [],
            "diagrams": [],
        }
    )
    routing = DiscoveryDispatchRouting.model_construct(
        discovery_collector_request=DiscoveryCollectorRequest(guidance="merge")
    )
    decision = decide(
        AgentType.DISCOVERY_DISPATCH, routing, OUTPUT, [], [result], team=SOFTWARE_TEAM
    )
    assert decision.step is not None
    assert decision.step.request["agentResults"][0]["subdomain"] == "gateway"


def test_the_context_manager_hands_back_to_the_last_request_it_still_holds() -> None:
    routing = ContextManagerRouting.model_construct(
        return_to_previous=ContextManagerResult.model_construct(
            summary="the gateway lives in gateway/"
        )
    )
    asked = _entry(AgentType.REVIEW_AGENT, EntryKind.REQUEST, {"guidance": "review"}, 1)
    own = _entry(AgentType.CONTEXT_MANAGER, EntryKind.REQUEST, {"guidance": "find"}, 3)
    decision = decide(AgentType.CONTEXT_MANAGER, routing, OUTPUT, [asked, own], team=SOFTWARE_TEAM)
    assert decision.step is not None and decision.step.agent_type is AgentType.REVIEW_AGENT
    assert decision.step.request["guidance"] == (
        f"review\n{CONTEXT_FOUND} the gateway lives in gateway/"
    )
    dropped = asked.model_copy(update={"payload": None})
    failed = decide(AgentType.CONTEXT_MANAGER, routing, OUTPUT, [dropped, own], team=SOFTWARE_TEAM)
    assert isinstance(failed.failure, DegenerateLoop)
