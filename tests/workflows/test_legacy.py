"""Payloads recorded by version 83c9b6c read in the current shape, so runs in flight replay (the
recorded histories in tests/histories replay in test_recorded_histories)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import ReviewInterruptRequest
from agent_interrupts.teams.software.results import DiscoveryAgentResult
from agent_interrupts.teams.software.routings import DiscoveryAgentRouting
from agent_interrupts.workflows.legacy import upgrade_output, upgrade_question, upgrade_start

BASE = {
    "type": "HUMAN_REVIEW",
    "reason": "r",
    "choices": [],
    "confirmationItems": [],
    "contextForDecision": "ctx",
    "origin": "REVIEW_AGENT",
}
OLD_REVIEW = {**BASE, "reviewCriteria": "the plan's criteria", "assessment": "mostly fine"}
NEW_REVIEW = {
    **BASE,
    "reviewCriteria": ["the plan's criteria"],
    "assessmentFindings": [],
    "approvalRecommendation": "APPROVED",
}
OLD_RESULT = {
    "resultId": "wf-1/discovery-agent/3/t",
    "subdomain": "gateway",
    "summary": "s",
    "findings": [],
    "fileReferences": [],
    "crossLinks": [],
    "tags": [],
    "generatedQueries": [],
    "diagrams": [],
    "needsInput": "Which boundary?",
}


def test_a_question_in_the_current_shape_is_untouched() -> None:
    assert upgrade_question(NEW_REVIEW) is NEW_REVIEW
    assert upgrade_question({"origin": "NOT_AN_AGENT"}) == {"origin": "NOT_AN_AGENT"}


def test_an_old_question_keeps_its_texts_in_the_context_and_validates() -> None:
    upgraded = ReviewInterruptRequest.model_validate(upgrade_question(OLD_REVIEW))
    assert upgraded.review_criteria == []
    assert upgraded.assessment_findings == []
    assert upgraded.context_for_decision == (
        "ctx\nreviewCriteria: the plan's criteria\nassessment: mostly fine"
    )


@pytest.mark.parametrize(
    "question",
    [
        {**OLD_REVIEW, "junk": "x"},
        {**OLD_REVIEW, "assessment": ["not", "a", "text"]},
        {**BASE, "origin": "MERGER_AGENT", "reviewCriteria": "r", "assessment": "a"},
    ],
)
def test_only_the_exact_old_shape_is_upgraded(question: dict[str, Any]) -> None:
    """Anything else stays as sent, so a malformed question is still refused."""
    assert upgrade_question(question) is question


@pytest.mark.parametrize(
    ("agent", "output", "model"),
    [
        (AgentType.DISCOVERY_AGENT, OLD_RESULT, DiscoveryAgentRouting),
        (AgentType.REVIEW_AGENT, {"interruptRequest": OLD_REVIEW}, None),
    ],
)
def test_old_outputs_read_in_the_current_shape(
    agent: AgentType, output: dict[str, Any], model: type[DiscoveryAgentRouting] | None
) -> None:
    upgraded = upgrade_output(agent, output, team=SOFTWARE_TEAM)
    if model is not None:
        routing = model.model_validate(upgraded)
        assert isinstance(routing.result, DiscoveryAgentResult)
        assert routing.result.result_id == OLD_RESULT["resultId"]
    else:
        ReviewInterruptRequest.model_validate(upgraded["interruptRequest"])


def test_current_outputs_and_start_inputs_pass_as_they_are() -> None:
    output = {"mergerRequest": {"guidance": "g", "mergeStrategy": "m"}}
    assert upgrade_output(AgentType.REVIEW_AGENT, output, team=SOFTWARE_TEAM) is output
    start = ({"request": NEW_REVIEW, "origin": "REVIEW_AGENT"},)
    assert upgrade_start(start)[0]["request"] is NEW_REVIEW
    old = upgrade_start(({"request": OLD_REVIEW},))
    assert old[0]["request"]["reviewCriteria"] == []
    assert upgrade_start(()) == ()
