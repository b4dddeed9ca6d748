"""Context ids and the workflow's start input."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from agent_interrupts.models.ids import make_context_id, parse_context_id
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType


def test_context_id_has_the_fr_013_shape_and_round_trips() -> None:
    at = datetime(2026, 1, 19, 10, 30, tzinfo=UTC)
    cid = make_context_id("abc123", AgentType.DISCOVERY_COLLECTOR, 1, at)
    assert cid == "wf-abc123/discovery-collector/001/2026-01-19T10:30:00Z"
    assert parse_context_id(cid) == ("abc123", AgentType.DISCOVERY_COLLECTOR, 1, at)


def test_malformed_context_id_says_what_is_expected() -> None:
    with pytest.raises(ValueError, match="wf-<run>/<agent-type>/<seq>/<timestamp>"):
        parse_context_id("not-an-id")


@pytest.mark.parametrize("goal", ["", "   "])
def test_blank_goal_is_rejected_with_how_to_fix(goal: str) -> None:
    with pytest.raises(ValidationError, match=r'\{"goal": "<what to achieve>"\}'):
        OrchestratorInput(goal=goal)


def test_missing_goal_is_rejected() -> None:
    with pytest.raises(ValidationError, match="goal"):
        OrchestratorInput.model_validate({})
