"""LLM_MAX_PHASE_ROUNDS: a model that keeps sending the run round again moves it on instead. The
offline model's ``loop`` scenario routes the orchestrator collector back for ever; with the setting,
each phase's orchestrator runs that many times, across continue-as-new, and the run ends.
Offline model, real server."""

from __future__ import annotations

from collections import Counter

import pytest
from temporalio.client import Client

from activities.llm import LlmSettings
from activities.offline_model import OfflineScenario
from activities.route_filter import PHASE_ENTRIES
from app.worker_setup import build_worker
from models.state import EntryKind
from tests.support.interrupts import full_status, start


@pytest.mark.parametrize("rounds", [1, 2])
async def test_a_looping_model_enters_each_phase_at_most_the_rounds_and_the_run_ends(
    client: Client, task_queue: str, workflow_id: str, rounds: int
) -> None:
    settings = LlmSettings(max_phase_rounds=rounds)
    scenario = OfflineScenario.parse("loop=1000")
    async with build_worker(client, task_queue, settings, scenario=scenario):
        handle = await start(client, task_queue, workflow_id, continue_as_new_every=5)
        result = await handle.result()
        status = await full_status(client, handle)
    assert result is not None
    ran = Counter(e.agent_type for e in status.history if e.kind is EntryKind.OUTPUT)
    assert {agent: ran[agent] for agent in PHASE_ENTRIES} == dict.fromkeys(PHASE_ENTRIES, rounds)
    assert status.steps_taken > 5, "the run continued as new on the way"
