"""Context ids and the workflow's start input."""

from __future__ import annotations

import builtins
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agent_interrupts.models.ids import make_context_id, parse_context_id, utc_stamp
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType


def test_context_id_has_the_fr_013_shape_and_round_trips() -> None:
    at = datetime(2026, 1, 19, 10, 30, tzinfo=UTC)
    cid = make_context_id("abc123", AgentType.DISCOVERY_COLLECTOR, 1, at)
    assert cid == "wf-abc123/discovery-collector/001/2026-01-19T10:30:00Z"
    assert parse_context_id(cid) == ("abc123", AgentType.DISCOVERY_COLLECTOR, 1, at)


@given(
    st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30)),
    st.integers(min_value=-23 * 60, max_value=23 * 60),
)
def test_the_stamp_is_what_strftime_gives(naive: datetime, offset_minutes: int) -> None:
    at = naive.replace(tzinfo=timezone(timedelta(minutes=offset_minutes)))
    assert utc_stamp(at) == at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_context_id_is_made_without_an_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a workflow's sandbox every import goes through the sandbox's importer: a context id,
    made for every entry of a run's blackboard, imports nothing (``strftime`` imports ``time``)."""
    imported: list[str] = []
    real_import = builtins.__import__

    def recording(name: str, *args: Any, **kwargs: Any) -> Any:
        imported.append(name)
        return real_import(name, *args, **kwargs)

    at = datetime(2026, 1, 19, 10, 30, 5, 123456, tzinfo=UTC)
    monkeypatch.setattr(builtins, "__import__", recording)
    cid = make_context_id("abc123", AgentType.DISCOVERY_COLLECTOR, 7, at)
    monkeypatch.undo()
    assert cid == "wf-abc123/discovery-collector/007/2026-01-19T10:30:05Z"
    assert imported == []


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
