"""LLM_MAX_PHASE_ROUNDS: a model that keeps sending the run round again moves it on instead. The
offline model's ``loop`` scenario routes the orchestrator collector back for ever, and a model that
always detours through the context manager (as SmolLM2's discovery collector did once routing
back was closed) would never leave discovery; with the setting, each of those agents runs at most
that many times, across continue-as-new, and the run ends. Offline model, real server."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import CONTEXT_FOUND, OfflineModel, OfflineScenario
from agent_interrupts.activities.route_filter import round_targets
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import EntryKind
from agent_interrupts.models.team_build import TeamFinalResult
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import full_status, start


class _AlwaysDetours(OfflineModel):
    """Takes the context manager whenever it is offered: it never sees what it found."""

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        unseen = [m for m in messages if CONTEXT_FOUND not in str(m.get("content", ""))]
        return super().answer(name, schema, unseen)


@pytest.mark.parametrize("rounds", [1, 2])
async def test_a_looping_model_enters_each_phase_at_most_the_rounds_and_the_run_ends(
    client: Client, task_queue: str, workflow_id: str, rounds: int
) -> None:
    settings = LlmSettings(max_phase_rounds=rounds)
    scenario = OfflineScenario.parse("loop=1000")
    async with build_worker(client, task_queue, settings, scenario=scenario):
        handle = await start(client, task_queue, workflow_id, continue_as_new_every=5)
        result = await asyncio.wait_for(handle.result(), 120)
        status = await full_status(client, handle)
    assert result is not None
    ran = Counter(e.agent_type for e in status.history if e.kind is EntryKind.OUTPUT)
    phases = round_targets(SOFTWARE_TEAM) - {AgentType.CONTEXT_MANAGER}
    assert {agent: ran[agent] for agent in phases} == dict.fromkeys(phases, rounds)
    assert status.steps_taken > 5, "the run continued as new on the way"


async def test_a_model_that_always_detours_through_the_context_manager_moves_on(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    model = _AlwaysDetours(OfflineScenario.parse("context=DISCOVERY_COLLECTOR"))
    async with build_worker(client, task_queue, LlmSettings(max_phase_rounds=1), offline=model):
        handle = await start(client, task_queue, workflow_id, max_steps=60)
        result = await asyncio.wait_for(handle.result(), 120)
        status = await full_status(client, handle)
    assert result is not None
    ran = Counter(e.agent_type for e in status.history if e.kind is EntryKind.OUTPUT)
    assert ran[AgentType.CONTEXT_MANAGER] == 1 and ran[AgentType.PLANNING_ORCHESTRATOR] == 1


class _BackToTriage(OfflineModel):
    """incident-response's findings collector sends the run back to TRIAGE whenever that route is
    offered: without the guard it loops until the step budget."""

    def pick_route(
        self, model: type[Routing], present: list[str], interrupt: bool, context: bool, stop: bool
    ) -> str:
        if "triageRequest" in present and "remediationRequest" in present:
            return "triageRequest"
        return super().pick_route(model, present, interrupt, context, stop)


@pytest.mark.parametrize("rounds", [1, 2])
async def test_a_declared_teams_orchestrator_is_guarded_by_its_role(
    client: Client, task_queue: str, workflow_id: str, rounds: int
) -> None:
    spec = load_team_file(builtin_team_files()["incident-response"])
    settings = LlmSettings(max_phase_rounds=rounds)
    teams = {spec.name: spec}
    async with build_worker(client, task_queue, settings, offline=_BackToTriage(), teams=teams):
        handle = await start(client, task_queue, workflow_id, team=spec.name, max_steps=60)
        result = await asyncio.wait_for(handle.result(), 120)
        status = await full_status(client, handle)
    assert isinstance(result, TeamFinalResult)
    ran = Counter(e.agent_type for e in status.history if e.kind is EntryKind.OUTPUT)
    assert ran["TRIAGE"] == rounds and ran["FINDINGS_COLLECTOR"] == rounds
    assert ran["REMEDIATION_REVIEW"] == 1, "the collector moved on instead"
