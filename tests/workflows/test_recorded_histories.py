"""In-flight runs survive deploys: every history recorded by a landed version,
in ``tests/histories/<version>/``, replays against the current workflow code.

Record a landed version's histories with its own code: ``python -m tests.histories.record_landed
<version>``; the current code's with ``python -m tests.histories.record``."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS
from tests.histories.landed import HISTORIES, LANDED, REPO, version_dirs

RECORDED = sorted(HISTORIES.glob("*/*.json"))
RETIRED = re.compile(r"^- retired `(?P<version>[0-9a-f]{7,40})`: \S", re.MULTILINE)
"""How docs/deploys.md states why a version's histories left the corpus."""
DEPLOYS = REPO / "docs" / "deploys.md"


def _retired() -> set[str]:
    return {m["version"] for m in RETIRED.finditer(DEPLOYS.read_text())}


def test_every_landed_version_has_its_histories_or_a_stated_reason() -> None:
    """A version's folder may leave the corpus only with a reason in docs/deploys.md."""
    present = {p.name for p in version_dirs()}
    retired = _retired()
    for version in LANDED:
        assert version in present or version in retired, (
            f"tests/histories/{version}/ is missing: runs that {version} left waiting would no "
            f"longer be checked. Restore it, or add '- retired `{version}`: <reason>' to "
            "docs/deploys.md"
        )
    assert present <= set(LANDED), f"unlisted history folders: {present - set(LANDED)}"


def test_no_folder_of_histories_left_git_without_a_reason() -> None:
    """Folders once committed under tests/histories/ are still here, or retired in deploys.md."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "log", "--format=", "--name-only", "--", "tests/histories/"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip(f"git log failed: {listed.stderr.strip()}")
    committed = {
        Path(line).parts[2]
        for line in listed.stdout.splitlines()
        if line.endswith(".json") and len(Path(line).parts) == 4
    }
    gone = committed - {p.name for p in version_dirs()} - _retired()
    assert not gone, f"history folders removed without a reason in docs/deploys.md: {sorted(gone)}"


@pytest.mark.parametrize("version", list(LANDED))
def test_each_version_recorded_a_waiting_question_or_a_finished_run(version: str) -> None:
    names = [p.name for p in (HISTORIES / version).glob("*.json")]
    assert any(n.startswith("orchestrator-") for n in names), f"{version}: no orchestrator run"
    assert any(n.startswith("interrupt-") for n in names), f"{version}: no question"


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
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
    assert result.replay_failure is None, f"{path.parent.name}/{path.name}: {result.replay_failure}"
