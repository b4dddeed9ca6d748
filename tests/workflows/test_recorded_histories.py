"""In-flight runs survive deploys (issue 9): every recorded history in ``tests/histories``
replays against the current workflow code. Record them with ``python -m tests.histories.record``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS

HISTORIES = sorted((Path(__file__).parent.parent / "histories").glob("*.json"))


def test_the_required_histories_are_recorded() -> None:
    names = [p.name for p in HISTORIES]
    for kind in ("orchestrator-interrupt-and-event-", "orchestrator-continued-", "interrupt-"):
        assert any(n.startswith(kind) for n in names), f"no {kind}* history recorded"
    assert sum(n.startswith("orchestrator-continued-") for n in names) >= 2


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.stem)
async def test_a_recorded_history_replays(path: Path) -> None:
    raw = path.read_text()
    first = json.loads(raw)["events"][0]
    workflow_id = first["workflowExecutionStartedEventAttributes"].get("workflowId", path.stem)
    history = WorkflowHistory.from_json(workflow_id, raw)
    replayer = Replayer(
        workflows=WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        data_converter=pydantic_data_converter,
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{path.name}: {result.replay_failure}"
