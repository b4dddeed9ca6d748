"""Replay recorded histories: the workflow code is deterministic."""

from __future__ import annotations

import base64
from pathlib import Path

from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS, build_worker
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.histories import record
from tests.histories.replays import replay


async def test_orchestrator_history_replays(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="replay me"),
            id=workflow_id,
            task_queue=task_queue,
        )
        await handle.result()
    history = await handle.fetch_history()
    replayer = Replayer(
        workflows=WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        data_converter=pydantic_data_converter,
    )
    result = await replayer.replay_workflow(history)
    assert result.replay_failure is None


async def test_an_encrypted_history_replays_with_the_keys_and_names_them_without(
    client: Client, tmp_path: Path
) -> None:
    """The recorder's encrypted scenario, recorded here: its histories hold no plaintext, replay
    with the recording key (as CI's replays of landed versions do), and without keys the replay
    fails in one line naming the setting."""
    await record._encrypted(client, tmp_path)
    paths = sorted(tmp_path.glob("*.json"))
    assert [p.name for p in paths] == [
        "interrupt-encrypted-1.json",
        "orchestrator-encrypted-1.json",
    ]
    for path in paths:
        raw = path.read_text()
        assert base64.b64encode(b"recorded-1").decode() in raw  # the key id, in every payload
        events = WorkflowHistory.from_json("recorded", raw).events
        stored = b"".join(event.SerializeToString() for event in events)
        assert b"add rate limiting" not in stored and b'"ada"' not in stored
    replayed = await replay(paths)
    assert all(r.failure is None for r in replayed.values()), replayed
    keyless = Replayer(
        workflows=WORKFLOWS, workflow_runner=WORKFLOW_RUNNER, data_converter=data_converter(None)
    )
    history = WorkflowHistory.from_json("recorded", paths[1].read_text())
    result = await keyless.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None
    assert "no keys are set: set AGENTS_ENCRYPTION_KEYS" in str(result.replay_failure)
