"""Checks of a resolution against its question (the update validator and the signal use them)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_interrupts.models.answer_rules import Answerers
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import InterruptResolution, InterruptType, ResolvedBy
from agent_interrupts.models.resolution_rules import (
    answer_problems,
    claims_the_workflows_own,
    describe_resolution,
    recommended_answer,
    recommended_resolution,
    redirect_problem,
    redirect_targets,
    refused_in_words,
    resolution_problems,
    unanswered_parts,
)
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import OrchestratorInterruptRequest
from tests.support.fan_out import combined_question

REQUEST = OrchestratorInterruptRequest.model_validate(
    {
        "type": "HUMAN_REVIEW",
        "reason": "scope is unclear",
        "contextForDecision": "ctx",
        "phase": "DISCOVERY",
        "proposedNextPhase": "PLANNING",
        "goal": "g",
        "workflowContext": "w",
        "choices": [
            {
                "choiceId": "approach",
                "question": "How?",
                "context": "c",
                "options": [
                    {"key": "A", "description": "small"},
                    {"key": "B", "description": "big"},
                ],
                "recommended": "B",
            }
        ],
        "confirmationItems": [
            {
                "confirmationId": "tests",
                "statement": "Add tests",
                "context": "c",
                "defaultValue": True,
                "impactIfNo": "none",
            }
        ],
    }
)


def _resolution(**wire: object) -> InterruptResolution:
    return InterruptResolution.model_validate(wire)


def test_complete_answer_has_no_problems() -> None:
    ok = _resolution(selectedChoices={"approach": "A"}, confirmations={"tests": True})
    assert resolution_problems(REQUEST, ok) == []


def test_each_kind_of_wrong_answer_is_named() -> None:
    problems = resolution_problems(
        REQUEST,
        _resolution(
            selectedChoices={"approach": "C", "nope": "A"},
            customInputs={"ghost": "x"},
            confirmations={"missing-id": True},
        ),
    )
    text = " | ".join(problems)
    offered = '"How?" offers A (small), B (big) or CUSTOM (your own words in customInputs)'
    assert f"choice 'approach' has no option C; {offered}" in text
    assert "unknown choiceId 'nope' (offered: approach)" in text
    assert "customInputs names unknown choiceId 'ghost'" in text
    assert "unknown confirmationId 'missing-id' (asked: tests)" in text
    assert "confirmation 'tests' has no yes/no answer" in text


def test_custom_needs_a_write_in_and_missing_answers_are_problems() -> None:
    problems = resolution_problems(REQUEST, _resolution(selectedChoices={"approach": "CUSTOM"}))
    assert any("is CUSTOM but customInputs['approach'] is empty" in p for p in problems)
    assert resolution_problems(REQUEST, _resolution())[0] == (
        "choice 'approach' has no answer in selectedChoices"
    )


def test_pause_needs_no_answers() -> None:
    pause = REQUEST.model_copy(update={"type": InterruptType.PAUSE})
    assert resolution_problems(pause, _resolution()) == []


def test_recommended_resolution_takes_recommendations_and_defaults() -> None:
    resolution = recommended_resolution(REQUEST)
    assert resolution.selected_choices == {"approach": "B"}
    assert resolution.confirmations == {"tests": True}
    assert resolution.resolved_by is ResolvedBy.TIMEOUT_ESCALATION
    assert resolution_problems(REQUEST, resolution) == []


def test_description_carries_the_decisions() -> None:
    text = describe_resolution(
        REQUEST,
        _resolution(
            selectedChoices={"approach": "CUSTOM"},
            customInputs={"approach": "use a token bucket"},
            confirmations={"tests": False},
        ),
    )
    assert 'How? -> CUSTOM: "use a token bucket"' in text
    assert "Add tests -> no" in text


def test_a_stop_with_a_reason_is_the_whole_answer_and_a_blank_one_is_refused() -> None:
    assert resolution_problems(REQUEST, InterruptResolution(stop_run="wrong goal")) == []
    assert resolution_problems(REQUEST, InterruptResolution(stop_run=" \n")) == [
        "stopRun needs the reason to stop"
    ]


def test_a_person_may_send_the_run_along_the_asking_agents_own_routes_only() -> None:
    for agent in AgentType:
        targets = redirect_targets(agent, team=SOFTWARE_TEAM)
        own = set(NODES[agent].output_model.route_aliases().values())
        assert set(targets) <= own - {agent, AgentType.CONTEXT_MANAGER}
        for target in AgentType:
            problem = redirect_problem(agent, target, team=SOFTWARE_TEAM)
            assert (problem is None) == (target in targets or target is agent), (agent, target)
            if problem is not None:
                assert f"not a route of {agent.value}" in problem and "\n" not in problem
    assert redirect_targets(AgentType.REVIEW_AGENT, team=SOFTWARE_TEAM) == [
        AgentType.MERGER_AGENT,
        AgentType.TICKET_ORCHESTRATOR,
    ]
    assert redirect_problem(AgentType.REVIEW_AGENT, None, team=SOFTWARE_TEAM) is None


def test_a_combined_question_may_be_answered_one_agent_at_a_time() -> None:
    """FR-094: each agent's part whole, the others left for later."""
    combined = combined_question("a", "b")
    second = _resolution(
        selectedChoices={"ticket-agent-2/approach": "A"},
        confirmations={"ticket-agent-2/check-0": True},
    )
    assert resolution_problems(combined, second, in_parts=True) == []
    assert unanswered_parts(combined, second) == {
        "ticket-agent-1": ["ticket-agent-1/approach", "ticket-agent-1/check-0"]
    }
    assert resolution_problems(combined, second) == [  # a question that takes no parts
        "choice 'ticket-agent-1/approach' has no answer in selectedChoices",
        "confirmation 'ticket-agent-1/check-0' has no yes/no answer in confirmations",
    ]
    half = _resolution(selectedChoices={"ticket-agent-2/approach": "A"})
    assert resolution_problems(combined, half, in_parts=True) == [
        "confirmation 'ticket-agent-2/check-0' has no yes/no answer in confirmations"
    ]
    nothing = resolution_problems(combined, _resolution(), in_parts=True)
    assert len(nothing) == 4, "an empty answer answers no part"
    assert unanswered_parts(combined, _resolution(freeText="both as you see fit")) == {}


def test_an_option_that_is_no_key_is_named_against_the_offered_ones() -> None:
    """Pydantic would list every key (A, B, C, D, CUSTOM); the refusal names the question's own
    options in its words, and the answer's other problems after them, in one line."""
    raw = {"selectedChoices": {"approach": "E\nvil"}, "freeText": 3}
    with pytest.raises(ValidationError) as err:
        InterruptResolution.model_validate(raw)
    said = refused_in_words(REQUEST, raw, err.value)
    assert said == (
        "choice 'approach' has no option 'E\\nvil'; \"How?\" offers A (small), B (big) or "
        "CUSTOM (your own words in customInputs); freeText: Input should be a valid string"
    )


def test_an_answer_from_outside_may_not_claim_the_workflows_own() -> None:
    person = recommended_answer(REQUEST)
    assert person.resolved_by is ResolvedBy.HUMAN
    assert person.selected_choices == recommended_resolution(REQUEST).selected_choices
    assert claims_the_workflows_own(person) is None
    for kind in (ResolvedBy.TIMEOUT_ESCALATION, ResolvedBy.AGENT_REVIEW):
        claimed = claims_the_workflows_own(person.model_copy(update={"resolved_by": kind}))
        assert claimed is not None and claimed.startswith(f"resolvedBy {kind.value} is the")
        assert "\n" not in claimed
    wire = _resolution(selectedChoices={"approach": "B"}, resolvedBy="CONTROLLER_AUTONOMY")
    assert "CONTROLLER_AUTONOMY" in (claims_the_workflows_own(wire) or "")


def _asked(answerers: Answerers | None = None) -> InterruptInput:
    return InterruptInput(
        orchestrator_id="orchestrator-1",
        goal="g",
        request=REQUEST,
        origin=AgentType.ORCHESTRATOR,
        origin_node_id="orchestrator-001",
        origin_request={},
        answerers=answerers,
    )


def test_every_door_and_a_fork_check_an_answer_by_one_rule_in_one_order() -> None:
    """The update's validator, the signal and a fork's start refuse with the same words: a
    claim of the workflow's own answer, then who may answer, then the answer itself."""
    person = recommended_answer(REQUEST).model_copy(update={"answered_by": "alice"})
    assert answer_problems(_asked(), SOFTWARE_TEAM, person) == []
    claimed = person.model_copy(update={"resolved_by": ResolvedBy.AGENT_REVIEW})
    assert answer_problems(_asked(), SOFTWARE_TEAM, claimed) == [claims_the_workflows_own(claimed)]
    assert answer_problems(_asked(), SOFTWARE_TEAM, claimed, claims=False) == []
    leads = Answerers(people=["bob"])
    refused = answer_problems(_asked(leads), SOFTWARE_TEAM, person)
    assert refused == [leads.refusal("alice")] and refused[0] is not None
    wrong = _resolution(selectedChoices={"approach": "D"}, answeredBy="bob")
    assert answer_problems(_asked(leads), SOFTWARE_TEAM, wrong) == resolution_problems(
        REQUEST, wrong
    )
    away = person.model_copy(update={"continue_at": AgentType.MERGER_AGENT})
    problems = answer_problems(_asked(), SOFTWARE_TEAM, away)
    assert len(problems) == 1 and problems[0].startswith("continueAt "), problems
