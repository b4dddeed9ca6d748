"""A declared team's code-writing agents change real code exactly as the software team's ticket
agents do (a capability of declared tools and roles, not of names): ``docs/examples/code-team``'s
CODERs (``tools = ["write"]``) each commit in their own worktree after a sandboxed test run, its
REVIEWER (role reviewer) reads their real diffs, its MERGER (role merger) gets the real merge of
their branches into the run's branch.

Every run uses the offline model on the fixture repository of the software team's code-change
tests (``tests/support/code_repo.py``); every claim is checked against git."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pydantic.alias_generators import to_camel
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.export import Format
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import EntryKind, HistoryEntry, OrchestratorInput
from agent_interrupts.models.team_build import TeamFinalResult, build_team
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.models.team_spec import TeamSpec
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.code_repo import TEST_COMMAND, make_code_repo
from tests.support.interrupts import full_status, wait_for_interrupt
from tests.support.workspace import git

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "code-team"
GOAL = "fix the calculator"


def _start(repo: Path, team: str) -> OrchestratorInput:
    return OrchestratorInput(
        goal=GOAL, team=team, workspace=WorkspaceSpec(source=str(repo), test_command=TEST_COMMAND)
    )


def _outputs(entries: list[HistoryEntry], agent: str) -> list[dict[str, Any]]:
    return [
        e.payload
        for e in entries
        if e.kind is EntryKind.OUTPUT and e.agent_type == agent and e.payload is not None
    ]


async def _agent_requests(handle: Any, agent: str) -> list[dict[str, Any]]:
    """The requests the agent activity was really given (its input in the run's history), one
    per call: a step that uses tools makes a call per tool round."""
    calls = [
        json.loads(e.activity_task_scheduled_event_attributes.input.payloads[0].data)
        for e in (await handle.fetch_history()).events
        if e.HasField("activity_task_scheduled_event_attributes")
        and e.activity_task_scheduled_event_attributes.activity_type.name == "run_agent"
    ]
    return [c["request"] for c in calls if c["agentType"] == agent]


async def test_a_declared_team_codes_reviews_and_merges_a_repository(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    spec = load_team_file(EXAMPLE)
    tools = ToolSettings(state_dir=tmp_path / "state")
    async with build_worker(
        client, task_queue, LlmSettings(), tools=tools, teams={spec.name: spec}
    ):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            _start(repo, spec.name),
            id=workflow_id,
            task_queue=task_queue,
        )
        final = await handle.result()
        entries = await read_blackboard(client, workflow_id)
        reviewed = await _agent_requests(handle, "REVIEWER")
        merging = await _agent_requests(handle, "MERGER")
        status = await full_status(client, handle)

    # each coder's commit on its own branch, with its sandboxed test run, as git says
    coders = [p["result"] for p in _outputs(entries, "CODER")]
    commits = {c["codeCommit"]["ticketId"]: c["codeCommit"] for c in coders}
    assert sorted(commits) == ["T-001", "T-002"]
    base = git(repo, "rev-parse", "HEAD")
    for ticket, commit in commits.items():
        assert commit["branch"] == f"agents/{workflow_id}/{ticket}"
        assert commit["baseCommit"] == base and commit["files"] == ["calc/ops.py"]
        run_repo = Path(status.code.repository)  # type: ignore[union-attr]
        assert git(run_repo, "rev-parse", commit["branch"]) == commit["sha"]
        assert git(run_repo, "diff", "--name-only", base, commit["sha"]).split() == ["calc/ops.py"]
        trailers = git(run_repo, "log", "-1", "--format=%(trailers)", commit["sha"])
        assert f"Agent-Run: {workflow_id}" in trailers and ticket in trailers
        # each task fixes one of two failing tests: its own test run fails the other
        assert sorted(t["passed"] for t in commit["testResults"]) == [False, True]
        assert commit["verificationStatus"] == "FAILED"
        assert commit["verification"].startswith("FAILED: 1 passed, 1 failed")

    # the reviewer's request carries each branch's real diff and test status
    review = reviewed[0]  # its step's first call (each tool round is one more, alike)
    assert all(r["ticketChanges"] == review["ticketChanges"] for r in reviewed)
    changes = {c["ticketId"]: c for c in review["ticketChanges"]}
    assert "-    return a - b  # bug\n+    return a + b\n" in changes["T-001"]["diff"]["text"]
    assert "-    return a + b  # bug\n+    return a * b\n" in changes["T-002"]["diff"]["text"]
    assert changes["T-002"]["verification"].startswith("FAILED: 1 passed, 1 failed")

    # the merger's request carries the real merge; the run's branch holds both and passes
    merge = merging[0]
    report = merge["mergeReport"]
    assert report["merged"] == ["T-001", "T-002"] and report["conflictTicket"] is None
    (merger,) = _outputs(entries, "MERGER")
    assert isinstance(final, TeamFinalResult) and final.code_change is not None
    change = final.code_change
    assert merger["result"]["codeChange"]["head"] == change.head == report["head"]
    assert change.run_branch == f"agents/{workflow_id}"
    assert change.merged_tickets == report["merged"]
    assert change.verification is not None and change.verification.startswith("VERIFIED: 2 passed")
    clone = tmp_path / "mine"
    git(tmp_path, "init", "--quiet", "--initial-branch=main", str(clone))
    subprocess.run(change.checkout, shell=True, cwd=clone, check=True, capture_output=True)
    assert git(clone, "rev-parse", "HEAD") == change.head
    assert git(clone, "log", "--format=%s", change.head).count("Merge T-00") == 2
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=clone,
        capture_output=True,
        check=False,
    )
    assert tests.returncode == 0  # our own run of the tests on the merged branch

    assert git(repo, "status", "--porcelain") == "" and git(repo, "rev-parse", "HEAD") == base
    assert not (tools.worktrees / workflow_id).exists()  # removed at the end
    assert status.code is not None and status.code.worktrees == []


async def test_a_declared_mergers_conflict_is_its_own_question_and_the_answer_is_merged(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path, conflict=True)
    spec = load_team_file(EXAMPLE)
    tools = ToolSettings(state_dir=tmp_path / "state")
    async with build_worker(
        client, task_queue, LlmSettings(), tools=tools, teams={spec.name: spec}
    ):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            _start(repo, spec.name),
            id=workflow_id,
            task_queue=task_queue,
        )
        status = await wait_for_interrupt(handle, timeout=120)
        pending = status.pending_interrupt
        assert pending is not None and pending.origin_agent_type == "MERGER"
        question = pending.request
        (choice,) = question["choices"]
        assert [o["key"] for o in choice["options"]] == ["A", "B", "CUSTOM"]
        assert "return a + b" in choice["context"] and "return b + a" in choice["context"]
        agents = AgentWorkflowClient(client, task_queue)
        await agents.resolve(
            pending.workflow_id,
            InterruptResolution.model_validate(
                {"selectedChoices": {"file-1": "B"}, "confirmations": {"merge-0": True}}
            ),
        )
        final = await handle.result()
    assert isinstance(final, TeamFinalResult) and final.code_change is not None
    assert final.code_change.merged_tickets == ["T-001", "T-002"]
    ops = git(Path(final.code_change.repository), "show", f"{final.code_change.head}:calc/ops.py")
    assert "return b + a" in ops  # the second task's side, as the answer chose

    # the export's examples of the conflict question carry the two sides, as the software's do
    out = tmp_path / "native.jsonl"
    await agents.export(out, fmt=Format.NATIVE, ids=[workflow_id], tool_results=tools.tool_results)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    conflict = [
        r
        for r in records
        if r["record"] == "example" and r.get("kind") in ("resolution", "translation")
    ]
    assert [e["agentType"] for e in conflict] == ["MERGER", "MERGER"]
    for example in conflict:
        assert "return a + b" in example["diff"] and "return b + a" in example["diff"]


FILLED = {
    "files_changed": {"type": "list[str]", "filled": True},
    "commit_sha": {"type": "str", "filled": True},
    "branch": {"type": "str", "filled": True},
    "diff_stat": {"type": "text", "filled": True},
    "tests_passed": {"type": "bool", "filled": True},
    "verification": {"type": "text", "filled": True},
}


def spec_schema(spec: TeamSpec, agent: str) -> dict[str, Any]:
    return build_team(spec).node(agent).output_model.model_json_schema()


def _with_filled_fields() -> TeamSpec:
    """The example team, its CODER's result declaring every field the workflow fills."""
    wire = load_team_file(EXAMPLE).to_wire()
    for agent in wire["agents"]:
        if agent["name"] == "CODER":
            agent["result"] = {**agent["result"], **FILLED}
    return TeamSpec.model_validate(wire)


async def test_a_declared_coders_filled_fields_are_what_git_and_its_test_run_found(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    spec = _with_filled_fields()
    schema = json.dumps(spec_schema(spec, "CODER"))
    assert not any(to_camel(name) in schema for name in FILLED)  # the model never writes them
    tools = ToolSettings(state_dir=tmp_path / "state")
    async with build_worker(
        client, task_queue, LlmSettings(), tools=tools, teams={spec.name: spec}
    ):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, _start(repo, spec.name), id=workflow_id, task_queue=task_queue
        )
        await handle.result()
        entries = await read_blackboard(client, workflow_id)
        status = await full_status(client, handle)
    run_repo = Path(status.code.repository)  # type: ignore[union-attr]
    base = git(repo, "rev-parse", "HEAD")
    coders = [p["result"] for p in _outputs(entries, "CODER")]
    assert len(coders) == 2
    for result in coders:
        branch = result["branch"]
        assert branch == result["codeCommit"]["branch"] and branch.startswith("agents/")
        assert result["commitSha"] == git(run_repo, "rev-parse", branch)
        changed = git(run_repo, "diff", "--name-only", base, result["commitSha"]).split()
        assert result["filesChanged"] == changed == ["calc/ops.py"]
        stat = git(run_repo, "diff", "--stat", base, result["commitSha"])
        assert "calc/ops.py" in result["diffStat"] and result["diffStat"].strip() in stat
        # each task fixes one of two failing tests: its sandboxed run fails the other
        assert result["testsPassed"] is False
        assert result["verification"].startswith("FAILED: 1 passed, 1 failed")


OUTSIDE = [
    {"path": "calc/ops.py", "startLine": 6, "endLine": 6, "note": "a line no diff touches"},
    {"path": "tests/test_ops.py", "startLine": 1, "endLine": 2, "note": "a file no task changed"},
]


class _ReviewerCitesOutside(OfflineModel):
    """The offline model, whose reviewer also cites lines outside every diff."""

    def __init__(self, routing: str) -> None:
        super().__init__()
        self.routing = routing

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        written = json.loads(super().answer(name, schema, messages))
        result = written.get("result")
        if name == self.routing and isinstance(result, dict):
            result["findings"] = [*result["findings"], *OUTSIDE]
        return json.dumps(written)


def _with_file_findings() -> TeamSpec:
    """The example team, its REVIEWER's findings records that name files and lines (as the
    software review's do), with a ``valid`` flag the workflow fills."""
    wire = load_team_file(EXAMPLE).to_wire()
    wire["types"] = {
        "Finding": {
            "path": {"type": "str", "description": "A file the diff changes."},
            "start_line": {"type": "int"},
            "end_line": {"type": "int"},
            "note": {"type": "text"},
            "valid": {"type": "bool", "filled": True, "default": True},
        }
    }
    for agent in wire["agents"]:
        if agent["name"] == "REVIEWER":
            agent["result"] = {**agent["result"], "findings": {"type": "list[Finding]"}}
    return TeamSpec.model_validate(wire)


async def test_a_declared_reviewers_findings_are_checked_against_the_diffs(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path)
    spec = _with_file_findings()
    model = _ReviewerCitesOutside(build_team(spec).node("REVIEWER").output_model.__name__)
    tools = ToolSettings(state_dir=tmp_path / "state")
    async with build_worker(
        client, task_queue, LlmSettings(), offline=model, tools=tools, teams={spec.name: spec}
    ):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, _start(repo, spec.name), id=workflow_id, task_queue=task_queue
        )
        await handle.result()
        entries = await read_blackboard(client, workflow_id)
    (review,) = [p["result"] for p in _outputs(entries, "REVIEWER")]
    findings = review["findings"]
    cited = [{k: f[k] for k in ("path", "startLine", "endLine", "note")} for f in findings]
    assert cited[-2:] == OUTSIDE
    assert [f["valid"] for f in findings[-2:]] == [False, False]  # outside every diff
    assert findings[:-2] and all(f["valid"] for f in findings[:-2])  # on the diffs' lines
