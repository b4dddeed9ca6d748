"""A worker finds a run's team by the hash its agent calls carry: among the teams it serves,
else in the run's history. A worker redeployed with an edited team file goes on with the runs
pinned to the old version, whole."""

from __future__ import annotations

import dataclasses

import pytest
from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.teams import PinnedTeamReader, TeamFinder
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import UnknownTeam
from agent_interrupts.models.team_build import TeamFinalResult, TeamNotHere, TeamRegistry
from agent_interrupts.models.team_spec import TeamPin
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import answer_offered, interrupt_status, start, wait_for_interrupt
from tests.workflows.test_declared_team import TINY_TEAM

EDITED = TINY_TEAM.model_copy(
    update={
        "agents": [
            a.model_copy(update={"template": a.template.replace("Sum the findings up.", "EDITED")})
            for a in TINY_TEAM.agents
        ]
    }
)


async def test_a_worker_serving_an_edited_team_goes_on_with_the_pinned_version(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse("interrupt=SURVEYOR#2", ["SURVEYOR"])
    first = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(
        client, task_queue, LlmSettings(), offline=OfflineModel(scenario), teams=first
    ):
        handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name)
        waiting = (await wait_for_interrupt(handle)).pending_interrupt
        assert waiting is not None
    assert EDITED.sha256() != TINY_TEAM.sha256()
    redeployed = OfflineModel()
    again = {EDITED.name: EDITED}
    async with build_worker(client, task_queue, LlmSettings(), offline=redeployed, teams=again):
        asked = (await interrupt_status(client, waiting.workflow_id)).request
        await client.get_workflow_handle(waiting.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated,
            answer_offered(asked),
        )
        result = await handle.result()
    assert isinstance(result, TeamFinalResult) and result.team_sha256 == TINY_TEAM.sha256()
    prompts = [m["content"] for b in redeployed.received for m in b["messages"]]
    assert prompts, "the redeployed worker ran the rest of the run"
    assert any("Sum the findings up." in p for p in prompts)  # the pinned SUMMARY template
    assert not any("EDITED" in p for p in prompts)


async def test_a_worker_that_never_saw_the_team_reads_it_from_the_runs_history(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    teams = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(), teams=teams):
        handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name)
        await handle.result()
    run_id = (await handle.describe()).run_id
    finder = TeamFinder(client, TeamRegistry())  # a worker that serves no team and saw none
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, workflow_id=workflow_id, workflow_run_id=run_id)
    pin = TeamPin(name=TINY_TEAM.name, sha256=TINY_TEAM.sha256())
    found = await env.run(finder.team, pin)
    assert found.sha256 == TINY_TEAM.sha256() and "SURVEYOR" in found.nodes
    finder = TeamFinder(client, TeamRegistry())
    other = TeamPin(name=TINY_TEAM.name, sha256="0" * 64)
    with pytest.raises(UnknownTeam, match="neither served by this worker nor in its run"):
        await env.run(finder.team, other)


async def test_one_reader_finds_the_pinned_team_in_a_runs_history(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    teams = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(), teams=teams):
        handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name)
        await handle.result()
    reader = PinnedTeamReader()
    found = [p async for e in handle.fetch_history_events() if (p := reader.read(e)) is not None]
    assert [p.sha256 for p in found] == [TINY_TEAM.sha256()]  # load_team's result, whole
    assert reader.pinned is not None and reader.pinned.spec == TINY_TEAM


def test_each_worker_builds_its_teams_in_its_own_registry() -> None:
    pin = TeamPin(name=TINY_TEAM.name, sha256=TINY_TEAM.sha256())
    served, other = TeamRegistry([TINY_TEAM]), TeamRegistry()
    team = served.of(pin)
    assert team.sha256 == TINY_TEAM.sha256() and served.build(TINY_TEAM) is team  # built once
    assert served.output(team.interrupt_routing.__name__) == (None, team.interrupt_routing)
    with pytest.raises(TeamNotHere):
        other.of(pin)  # another worker's registry never saw it
    assert other.output(team.interrupt_routing.__name__) is None
    small = TeamRegistry(limit=1)
    first = small.build(TINY_TEAM)
    small.build(EDITED)
    assert small.build(TINY_TEAM) is not first  # bounded: the oldest was let go
