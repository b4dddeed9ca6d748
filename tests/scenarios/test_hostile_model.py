"""A batch of runs against a hostile model: replies that fit every schema but are
adversarial (duplicate, empty, path-like and 500-character ids, unicode and markup, empty and
maximal arrays, routes back and forth, translations that are not JSON). A person answers what
is asked; every run ends COMPLETED or waiting for a person, never FAILED, and no workflow task
fails."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections import Counter
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.code_repo import TEST_COMMAND, make_code_repo
from tests.support.hostile_model import HostileModel
from tests.support.interrupts import answer_offered, interrupt_status, start

SEEDS = range(6)
ANSWERS = 12
"""Questions a person answers in one run before walking away (the run then waits)."""


async def _drive(client: Client, handle: WorkflowHandle[OrchestratorWorkflow, object]) -> str:
    """Answer each question as it comes, up to ``ANSWERS``: the run's end state."""
    agents = AgentWorkflowClient(client)
    answered: set[str] = set()
    while True:
        described = await handle.describe()
        if described.status is not WorkflowExecutionStatus.RUNNING:
            assert described.status is not None
            return described.status.name
        pending = (await handle.query(OrchestratorWorkflow.status)).pending_interrupt
        if pending is not None and pending.workflow_id not in answered:
            if len(answered) == ANSWERS:
                return "WAITING"
            question = (await interrupt_status(client, pending.workflow_id)).request
            try:
                await agents.resolve(pending.workflow_id, answer_offered(question))
            except ResolutionRejected as err:
                raise AssertionError(f"a plain answer was refused: {err}") from None
            answered.add(pending.workflow_id)
        await asyncio.sleep(0.1)


async def _one(client: Client, seed: int, workspace: Path | None = None) -> tuple[str, int, int]:
    task_queue, workflow_id = f"tq-{uuid.uuid4()}", f"wf-hostile-{seed}-{uuid.uuid4()}"
    model = HostileModel(seed)
    spec = (
        WorkspaceSpec(source=str(workspace), test_command=TEST_COMMAND)
        if workspace is not None
        else None
    )
    tools = ToolSettings(state_dir=workspace.parent / "state") if workspace else None
    async with build_worker(client, task_queue, LlmSettings(), offline=model, tools=tools):
        handle = await start(client, task_queue, workflow_id, max_steps=40, workspace=spec)
        async with asyncio.timeout(240):
            end = await _drive(client, handle)
        if end == "FAILED":
            try:
                await handle.result()
            except Exception as err:
                end = f"FAILED: {failure_message(err)}"
    history = await handle.fetch_history()
    failed = [
        e.workflow_task_failed_event_attributes.failure.message
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
    ]
    assert not failed, f"seed {seed}: a workflow task failed: {failed[0]}"
    return end, model


async def test_a_batch_of_runs_against_a_hostile_model_never_fails(
    client: Client, tmp_path: Path
) -> None:
    """Two of the runs change a workspace for real: their tool calls aim outside it."""
    repos = {seed: make_code_repo(tmp_path / f"seed-{seed}") for seed in SEEDS[:2]}
    heads = {seed: _git(repo, "rev-parse", "HEAD") for seed, repo in repos.items()}
    ends = await asyncio.gather(*(_one(client, seed, repos.get(seed)) for seed in SEEDS))
    print(f"hostile model: {Counter(e for e, _ in ends)}; replies (rewritten, escapes): ", end="")
    print(", ".join(f"{m.replies} ({m.rewritten}, {m.escapes})" for _, m in ends))
    for seed, (end, model) in zip(SEEDS, ends, strict=True):
        assert end in ("COMPLETED", "WAITING"), f"seed {seed} ended {end}"
        assert model.rewritten > model.replies / 3, "most replies were hostile"
    escapes = [model.escapes for seed, (_, model) in zip(SEEDS, ends, strict=True) if seed in repos]
    assert sum(escapes) > 0, "the workspace runs' tool calls aimed outside"
    for seed, repo in repos.items():
        assert _git(repo, "rev-parse", "HEAD") == heads[seed], "the source repository is kept"
        assert _git(repo, "status", "--porcelain") == ""
    escaped = [p for p in tmp_path.rglob("*escaped*")]
    assert not escaped and not Path("/tmp/hostile-escaped.txt").exists(), escaped


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()
