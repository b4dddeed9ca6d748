"""Ticket agents change real code: worktrees, sandboxed tests, idempotent commits,
reviewed diffs and a real merge whose conflict a person resolves through the resolve update.

Every run uses the offline model on a fixture repository with failing tests
(``tests/support/code_repo.py``); claims are checked against git and a test run of our own.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.export import Format
from agent_interrupts.app.history import read_run
from agent_interrupts.app.lineage_records import check_file
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import EntryKind, HistoryEntry, OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.code_repo import TEST_COMMAND, make_code_repo
from tests.support.interrupts import full_status, wait_for_interrupt
from tests.support.workspace import git

GOAL = "fix the calculator"
ROOT = Path(__file__).resolve().parents[2]


def _start_input(repo: Path) -> OrchestratorInput:
    return OrchestratorInput(
        goal=GOAL, workspace=WorkspaceSpec(source=str(repo), test_command=TEST_COMMAND)
    )


def _outputs(entries: list[HistoryEntry], agent: AgentType) -> list[dict[str, Any]]:
    return [
        e.payload
        for e in entries
        if e.kind is EntryKind.OUTPUT and e.agent_type is agent and e.payload is not None
    ]


def _user_repo_state(repo: Path) -> tuple[str, str, str, str]:
    """The user's branch, HEAD, index bytes and working tree status."""
    index = hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()
    return (
        git(repo, "symbolic-ref", "HEAD"),
        git(repo, "rev-parse", "HEAD"),
        index,
        git(repo, "status", "--porcelain"),
    )


def _fresh_checkout(tmp: Path, checkout: str) -> Path:
    """A new clone that follows the run's checkout instructions, as a person would."""
    clone = tmp / "mine"
    git(tmp, "init", "--quiet", "--initial-branch=main", str(clone))
    subprocess.run(checkout, shell=True, cwd=clone, check=True, capture_output=True)
    return clone


def _pytest(clone: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
    )


async def test_a_run_ends_with_a_branch_whose_tests_pass_and_every_claim_is_true(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    before = _user_repo_state(repo)
    tools = ToolSettings(state_dir=tmp_path / "state")
    async with build_worker(client, task_queue, LlmSettings(), tools=tools):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, _start_input(repo), id=workflow_id, task_queue=task_queue
        )
        final = await handle.result()
        status = await full_status(client, handle)
    entries = status.history

    change = final.code_change
    assert change is not None and change.run_branch == f"agents/{workflow_id}"
    assert change.merged_tickets == ["T-001", "T-002"]
    assert change.verification is not None and change.verification.startswith("VERIFIED: 2 passed")
    assert "calc/ops.py" in change.diff_stat
    clone = _fresh_checkout(tmp_path, change.checkout)
    assert git(clone, "rev-parse", "HEAD") == change.head
    assert _pytest(clone).returncode == 0  # our own run of the tests on the branch: they pass
    log = git(clone, "log", "--format=%s", f"{status.code.merge.head}")  # type: ignore[union-attr]
    assert log.count("Merge T-00") == 2

    tickets = [p["result"] for p in _outputs(entries, AgentType.TICKET_AGENT)]
    assert sorted(t["ticketId"] for t in tickets) == ["T-001", "T-002"]
    runs = git(repo, "rev-parse", "HEAD")
    for ticket in tickets:
        sha = ticket["commit"]["sha"]
        assert ticket["filesModified"] == ticket["commit"]["files"] == ["calc/ops.py"]
        assert git(clone, "diff", "--name-only", runs, sha).split() == ["calc/ops.py"]
        trailers = git(clone, "log", "-1", "--format=%(trailers)", sha)
        assert f"Agent-Run: {workflow_id}" in trailers and ticket["ticketId"] in trailers
        assert ticket["commit"]["branch"] == f"agents/{workflow_id}/{ticket['ticketId']}"
        # each ticket fixes one of two failing tests: its own run fails the other, as git says
        outcomes = {t["name"].rsplit("::", 1)[-1]: t["passed"] for t in ticket["testResults"]}
        assert sorted(outcomes.values()) == [False, True]
        assert ticket["verificationStatus"] == "FAILED"

    (review,) = _outputs(entries, AgentType.REVIEW_AGENT)
    reviewed = [e for e in entries if e.agent_type is AgentType.REVIEW_AGENT]
    findings = review["reviewResult"]["findings"]
    assert reviewed and findings and all(f["path"] == "calc/ops.py" for f in findings)
    assert all(f["valid"] for f in findings)  # they cite lines of the diffs it read
    (merger,) = _outputs(entries, AgentType.MERGER_AGENT)
    assert merger["mergerResult"]["codeChange"]["head"] == change.head
    assert merger["mergerResult"]["acceptable"] is True

    assert _user_repo_state(repo) == before  # the user's branch, HEAD, index and files
    assert not (tools.worktrees / workflow_id).exists()  # removed at the end
    assert status.code is not None and status.code.worktrees == []


async def test_review_and_the_export_read_the_real_diffs(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    async with build_worker(client, task_queue, LlmSettings(), tools=tools):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, _start_input(repo), id=workflow_id, task_queue=task_queue
        )
        await handle.result()
    calls = [
        json.loads(e.activity_task_scheduled_event_attributes.input.payloads[0].data)
        for e in (await handle.fetch_history()).events
        if e.HasField("activity_task_scheduled_event_attributes")
        and e.activity_task_scheduled_event_attributes.activity_type.name == "run_agent"
    ]
    review = next(c for c in calls if c["agentType"] == "REVIEW_AGENT")
    changes = {c["ticketId"]: c for c in review["request"]["ticketChanges"]}
    assert "-    return a - b  # bug\n+    return a + b\n" in changes["T-001"]["diff"]["text"]
    assert changes["T-002"]["verification"].startswith("FAILED: 1 passed, 1 failed")

    out = tmp_path / "native.jsonl"
    await AgentWorkflowClient(client).export(
        out, fmt=Format.NATIVE, ids=[workflow_id], tool_results=tools.tool_results
    )
    records = [json.loads(line) for line in out.read_text().splitlines()]
    examples = [r for r in records if r["record"] == "example"]
    (merger,) = [e for e in examples if e.get("agentType") == "MERGER_AGENT"]
    assert "return a * b" in merger["diff"] and "return a + b" in merger["diff"]
    # the ticket steps used tools: their examples carry the diffs their commits made
    diffs = (await read_run(client, workflow_id)).diffs
    tickets = [e for e in examples if e.get("agentType") == "TICKET_AGENT"]
    assert sorted(e["diff"] for e in tickets) == sorted(diffs.values())
    assert len(diffs) == 2 and all("+++ b/calc/ops.py" in d for d in diffs.values())


async def test_a_conflict_is_the_mergers_question_and_the_answer_is_applied(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path, conflict=True)
    tools = ToolSettings(state_dir=tmp_path / "state")
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), tools=tools):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, _start_input(repo), id=workflow_id, task_queue=task_queue
        )
        status = await wait_for_interrupt(handle, timeout=120)
        pending = status.pending_interrupt
        assert pending is not None and pending.origin_agent_type is AgentType.MERGER_AGENT
        question = pending.request
        assert [f["path"] for f in question["conflictFiles"]] == ["calc/ops.py"]
        (choice,) = question["choices"]
        assert [o["key"] for o in choice["options"]] == ["A", "B", "CUSTOM"]
        assert "return a + b" in choice["context"] and "return b + a" in choice["context"]
        assert status.code is not None and status.code.worktrees  # kept while the run waits
        written = (
            "def add(a, b):\n    return int(a) + int(b)\n\n\ndef mul(a, b):\n    return a * b\n"
        )
        await agents.resolve(
            pending.workflow_id,
            InterruptResolution.model_validate(
                {
                    "selectedChoices": {"file-1": "CUSTOM"},
                    "customInputs": {"file-1": written},
                    "confirmations": {"merge-0": True},
                }
            ),
        )
        final = await handle.result()
    change = final.code_change
    assert change is not None and change.merged_tickets == ["T-001", "T-002"]
    clone = _fresh_checkout(tmp_path, change.checkout)
    assert (clone / "calc" / "ops.py").read_text() == written  # the person's write-in
    assert _pytest(clone).returncode == 0  # the write-in fixes mul as well
    assert change.verification is not None and change.verification.startswith("VERIFIED")
    assert final.code_change is not None

    out = tmp_path / "native.jsonl"
    await agents.export(out, fmt=Format.NATIVE, ids=[workflow_id], tool_results=tools.tool_results)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    examples = [r for r in records if r["record"] == "example"]
    # the merge-conflict examples (the person's answer, its translation) carry the two sides
    conflict = [e for e in examples if e.get("kind") in ("resolution", "translation")]
    assert [e["agentType"] for e in conflict] == ["MERGER_AGENT", "MERGER_AGENT"]
    for example in conflict:
        assert "return a + b" in example["diff"] and "return b + a" in example["diff"]
    assert conflict[0]["output"]["customInputs"]["file-1"] == written, "as typed"
    assert check_file(out).unresolved == {}, "the workflow-raised conflict question closes too"


WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from datetime import timedelta
    from pathlib import Path
    from agent_interrupts.models import policies
    policies.AGENT_ACTIVITY = {**policies.AGENT_ACTIVITY, "heartbeat_timeout": timedelta(seconds=2)}
    from temporalio.client import Client
    from temporalio.contrib.pydantic import pydantic_data_converter
    from agent_interrupts.activities.llm import LlmSettings
    from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
    from agent_interrupts.activities.tools.settings import ToolSettings
    from agent_interrupts.app.worker_setup import build_worker

    async def main(address, queue, state):
        client = await Client.connect(address, data_converter=pydantic_data_converter)
        scenario = OfflineScenario.parse("delay=TICKET_AGENT:1")
        tools = ToolSettings(state_dir=Path(state))
        async with build_worker(client, queue, LlmSettings(), scenario=scenario, tools=tools):
            await asyncio.Event().wait()

    asyncio.run(main(*sys.argv[1:]))
    """
)


async def test_a_worker_killed_between_edit_and_commit_leaves_exactly_one_commit(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    address = client.service_client.config.target_host
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, address, task_queue, str(tools.state_dir)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, _start_input(repo), id=workflow_id, task_queue=task_queue
        )
        edited = await asyncio.to_thread(_wait_for_an_edit, tools.worktrees / workflow_id, 120)
    finally:
        worker.kill()
        worker.wait()
    assert edited is not None  # a worktree held an edit and no commit when the worker died
    scenario = OfflineScenario.parse("delay=TICKET_AGENT:1")
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario, tools=tools):
        final = await handle.result()
    assert final.code_change is not None
    repository = tools.workspace_cache / "agents"
    (tickets_repo,) = [p for p in repository.glob("*.git") if not p.name.endswith(".runs.git")]
    base = git(repo, "rev-parse", "HEAD")
    for ticket in ("T-001", "T-002"):
        branch = f"agents/{workflow_id}/{ticket}"
        commits = git(tickets_repo, "log", "--format=%H", f"{base}..{branch}").split()
        assert len(commits) == 1, (ticket, commits)


def _wait_for_an_edit(folder: Path, timeout: float) -> Path | None:
    """A ticket worktree with an uncommitted change (the step between edit and commit)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for path in folder.glob("ticket-*"):
            if not (path / ".git").exists():
                continue
            done = subprocess.run(
                ["git", "status", "--porcelain"], cwd=path, capture_output=True, text=True
            )
            if done.returncode == 0 and done.stdout.strip():
                return path
        time.sleep(0.05)
    return None


async def test_a_failed_run_keeps_its_worktrees_and_names_them_in_its_status(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    start = _start_input(repo).model_copy(
        update={"max_steps": 10, "fail_on_step_limit": True}  # fails at the review
    )
    async with build_worker(client, task_queue, LlmSettings(), tools=tools):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, start, id=workflow_id, task_queue=task_queue
        )
        with pytest.raises(WorkflowFailureError):
            await handle.result()
        status = await handle.query(OrchestratorWorkflow.status)
    assert status.code is not None and len(status.code.worktrees) == 2
    for path in status.code.worktrees:
        assert (Path(path) / "calc" / "ops.py").is_file()  # kept for a person to look at


class _OddTicketIds(OfflineModel):
    """A model whose tickets repeat an id, leave it empty and write a long path-like one."""

    IDS = ("T-1", "T-1", "", "../x/" + "y" * 500)

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        value = json.loads(super().answer(name, schema, messages))
        requests = (value.get("ticketAgentRequests") or {}).get("requests") or []
        for request, ticket in zip(requests, self.IDS, strict=False):
            request["ticketId"] = ticket
        return json.dumps(value)


async def test_tickets_a_model_gave_the_same_or_odd_ids_each_get_their_own_branch(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    model = _OddTicketIds(OfflineScenario.parse("fanout=4"))
    async with build_worker(client, task_queue, LlmSettings(), offline=model, tools=tools):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, _start_input(repo), id=workflow_id, task_queue=task_queue
        )
        final = await handle.result()
        status = await full_status(client, handle)
    tickets = [p["result"] for p in _outputs(status.history, AgentType.TICKET_AGENT)]
    branches = [t["commit"]["branch"] for t in tickets]
    assert len(tickets) == 4 and len(set(branches)) == 4, branches
    assert all(b.startswith(f"agents/{workflow_id}/") and ".." not in b for b in branches)
    assert {"T-1", "T-1-2", "ticket-agent-3"} < {t["ticketId"] for t in tickets}
    change = final.code_change
    assert change is not None and len(change.merged_tickets) == 4
    assert not (tmp_path / "x").exists() and not (tools.worktrees / workflow_id).exists()
