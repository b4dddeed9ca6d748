"""Per-agent settings name any team's agent: a declared team's agent's calls take its own
``LLM_MAX_OUTPUT_TOKENS_<AGENT>`` through a real dev server and worker (offline model), the
others the shared limit."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.app.config import llm_settings_from_env
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.policies import LLM_MAX_OUTPUT_TOKENS
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.models.team_spec import routing_name
from tests.support.interrupts import start


async def test_a_declared_teams_agent_takes_its_own_output_limit(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    spec = load_team_file(builtin_team_files()["incident-response"])
    settings = llm_settings_from_env({"LLM_MAX_OUTPUT_TOKENS_TRIAGE": "777"})
    offline = OfflineModel()
    teams = {spec.name: spec}
    async with build_worker(client, task_queue, settings, offline=offline, teams=teams):
        handle = await start(client, task_queue, workflow_id, team=spec.name)
        await asyncio.wait_for(handle.result(), 60)
    limits: dict[str, set[int]] = {}
    for body in offline.received:
        name = body["response_format"]["json_schema"]["name"]
        limits.setdefault(name, set()).add(body["max_completion_tokens"])
    assert limits.pop(routing_name(spec.name, "TRIAGE")) == {777}
    assert limits and all(found == {LLM_MAX_OUTPUT_TOKENS} for found in limits.values())
