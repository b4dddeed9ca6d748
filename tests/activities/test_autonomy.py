"""Earned autonomy's decision: only kinds the policy names, only past both
thresholds; the policy file and the thresholds are named when they are wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_interrupts.activities.agreement import Agreement, QuestionKind
from agent_interrupts.activities.autonomy import AutonomySettings, decide, load_policy
from agent_interrupts.models.interrupt_flow import AutonomyQuestion
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import question_input, with_confirmation

REVIEW = AgentType.REVIEW_AGENT
CHOICE = (REVIEW, QuestionKind.CHOICE)
CONFIRMATION = (REVIEW, QuestionKind.CONFIRMATION)


def _question(confirmations: bool = False) -> AutonomyQuestion:
    request = question_input().request
    if confirmations:
        request = with_confirmation(request)
    return AutonomyQuestion(origin=REVIEW, request=request)


def test_the_controller_answers_only_past_both_thresholds() -> None:
    settings = AutonomySettings(frozenset({CHOICE}), min_answers=10, min_agreement=0.9)
    cases = [
        (Agreement(agreed=9, compared=9), False),  # too few answers
        (Agreement(agreed=9, compared=10), True),  # exactly 90% of 10
        (Agreement(agreed=17, compared=20), False),  # 85%
        (Agreement(agreed=20, compared=20, not_comparable=50), True),
    ]
    for counts, delegated in cases:
        decision = decide(_question(), settings, {CHOICE: counts})
        assert decision.delegate is delegated, (counts, decision.reason)
        (figure,) = decision.figures
        assert (figure.agreed, figure.compared, figure.allowed) == (
            counts.agreed,
            counts.compared,
            True,
        )
        assert (decision.min_answers, decision.min_agreement) == (10, 0.9)
    assert decide(_question(), settings, {}).reason.startswith("a person answers: ")


def test_every_kind_the_question_asks_must_be_named_and_earned() -> None:
    earned = {
        CHOICE: Agreement(agreed=30, compared=30),
        CONFIRMATION: Agreement(agreed=30, compared=30),
    }
    choices_only = AutonomySettings(frozenset({CHOICE}), min_answers=5)
    decision = decide(_question(confirmations=True), choices_only, earned)
    assert not decision.delegate
    assert "REVIEW_AGENT confirmation: not in AGENT_AUTONOMY_POLICY" in decision.reason
    both = AutonomySettings(frozenset({CHOICE, CONFIRMATION}), min_answers=5)
    assert decide(_question(confirmations=True), both, earned).delegate
    free_text = AutonomyQuestion(
        origin=REVIEW, request=question_input().request.model_copy(update={"choices": []})
    )
    assert not decide(free_text, both, earned).delegate


def test_the_policy_file_and_thresholds_name_their_settings(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text('{"kinds": [{"agentType": "REVIEW_AGENT", "questionKind": "choice"}]}')
    assert load_policy(policy) == frozenset({CHOICE})
    settings = AutonomySettings.from_env(
        {"AGENT_AUTONOMY_POLICY": str(policy), "AGENT_AUTONOMY_MIN_ANSWERS": "3"}
    )
    assert (settings.policy, settings.min_answers, settings.min_agreement) == ({CHOICE}, 3, 0.9)
    policy.write_text('{"kinds": [{"agentType": "nobody", "questionKind": "choice"}]}')
    with pytest.raises(ValueError, match=r"^AGENT_AUTONOMY_POLICY .* is not a policy file"):
        load_policy(policy)


def test_the_policy_names_any_teams_agent_and_a_worker_refuses_one_it_does_not_serve(
    tmp_path: Path,
) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text('{"kinds": [{"agentType": "TRIAGE", "questionKind": "choice"}]}')
    assert load_policy(policy) == {("TRIAGE", QuestionKind.CHOICE)}
    assert load_policy(policy, {"TRIAGE", "REVIEW_AGENT"}) == {("TRIAGE", QuestionKind.CHOICE)}
    with pytest.raises(ValueError) as refused:
        AutonomySettings.from_env({"AGENT_AUTONOMY_POLICY": str(policy)}, {"REVIEW_AGENT"})
    assert "names TRIAGE, no agent of the teams this worker serves" in str(refused.value)
    assert "AGENTS_TEAMS" in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(ValueError, match="AGENT_AUTONOMY_MIN_AGREEMENT"):
        AutonomySettings.from_env({"AGENT_AUTONOMY_MIN_AGREEMENT": "90%"})
    with pytest.raises(ValueError, match=r"in \(0, 1\], not 20 and 1.5"):
        AutonomySettings.from_env({"AGENT_AUTONOMY_MIN_AGREEMENT": "1.5"})
