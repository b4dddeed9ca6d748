"""Code changes bench: what worktrees, sandboxed tests, commits and merges cost.

1. **A ticket with 5 edits and one test run**, through a whole offline run (one ticket agent,
   ``--model-seconds`` per model call): the ticket step's wall time (its worktree made, every
   tool round, the commit) / (its model time + its test time). Aim <= 1.1x.
2. **A merge of ``--branches`` ticket branches** into the run branch (``gitwork.merge``, each
   branch one file): wall per branch, against plain ``git merge --no-ff`` of the same branches in
   a plain clone.
3. **Worktree creation on a ``--files``-file repository** (``gitwork.prepare``) against a plain
   ``git worktree add`` of the same commit.

``python -m bench.code_changes [--files 50000] [--branches 8] [--model-seconds 0.5]``
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.activities.tools import gitwork
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.workspace import pin
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.code import CommitRequest, MergeRequest, TicketBranch
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import bench_parser, fresh_id, run_on_dev_server, versions, versus_aim
from bench.tools import make_repository

EDITS = 5
TEST_COMMAND = f"{sys.executable} -m pytest -q -rfEp -p no:cacheprovider"


@dataclass
class Result:
    model_seconds: float
    step_wall: float
    model_calls: int
    test_seconds: float
    branches: int
    merge: float
    plain_merge: float
    files: int
    worktree: float
    plain_worktree: float


def git(cwd: Path, *args: str) -> str:
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    done = subprocess.run(["git", *identity, *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:2])}: {done.stderr.strip()}")
    return done.stdout.strip()


def commit_all(repo: Path, message: str) -> None:
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", message)


def five_edit_repo(root: Path) -> Path:
    """Five functions with a bug each, their tests, and the offline edits that fix them."""
    repo = root / "five"
    (repo / "calc").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / ".agents").mkdir()
    (repo / "calc" / "__init__.py").write_text("")
    body = "\n\n".join(f"def f{i}(x):\n    return x + {i - 1}  # bug {i}" for i in range(1, 6))
    (repo / "calc" / "ops.py").write_text(body + "\n")
    tests = "\n\n".join(f"def test_f{i}():\n    assert f{i}(1) == {1 + i}" for i in range(1, 6))
    (repo / "tests" / "test_ops.py").write_text(
        "from calc.ops import f1, f2, f3, f4, f5\n\n\n" + tests + "\n"
    )
    edits = [
        {"path": "calc/ops.py", "old": f"return x + {i - 1}  # bug {i}", "new": f"return x + {i}"}
        for i in range(1, EDITS + 1)
    ]
    (repo / ".agents" / "offline-edits.json").write_text(
        json.dumps({"edits": {"T-001": edits}}, indent=1)
    )
    commit_all(repo, "five bugs")
    return repo


async def ticket_step(client: Client, model_seconds: float) -> tuple[float, int, float]:
    """(the ticket step's wall, its model calls, its test seconds) in one offline run."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = five_edit_repo(root)
        scenario = OfflineScenario.parse(f"fanout=1;delay=TICKET_AGENT:{model_seconds}")
        queue = fresh_id("code-bench")
        tools = ToolSettings(state_dir=root / "state")
        async with build_worker(client, queue, LlmSettings(), scenario=scenario, tools=tools):
            handle = await client.start_workflow(
                OrchestratorWorkflow.run,
                OrchestratorInput(
                    goal="fix the five functions",
                    workspace=WorkspaceSpec(source=str(repo), test_command=TEST_COMMAND),
                ),
                id=fresh_id("code-bench"),
                task_queue=queue,
            )
            final = await handle.result()
        if not isinstance(final, OrchestratorCollectorResult):
            raise RuntimeError(f"the bench run ended with another team's result: {final}")
        if final.code_change is None or "VERIFIED" not in (final.code_change.verification or ""):
            raise RuntimeError(f"the bench run did not end verified: {final.code_change}")
        history = await handle.fetch_history()
    start = end = None
    calls = 0
    names: dict[int, str] = {}
    test_seconds = 0.0
    for event in history.events:
        at = event.event_time.ToDatetime().timestamp()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            names[event.event_id] = attrs.activity_type.name
            if attrs.activity_type.name == "prepare_worktree":
                start = at
            if (
                attrs.activity_type.name == "run_agent"
                and b"TICKET_AGENT" in (attrs.input.payloads[0].data[:300])
            ):
                calls += 1
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            done = event.activity_task_completed_event_attributes
            if names.get(done.scheduled_event_id) == "commit_ticket":
                end = at
                tests = json.loads(done.result.payloads[0].data)["tests"]
                test_seconds = tests["durationMs"] / 1000
    if start is None or end is None:
        raise RuntimeError("the run had no ticket step")
    return end - start, calls, test_seconds


def merges(root: Path, branches: int) -> tuple[float, float]:
    """(gitwork.merge of ``branches`` ticket branches, plain git merges of the same) seconds."""
    repo = root / "merge-repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "base.txt").write_text("base\n")
    commit_all(repo, "base")
    settings = ToolSettings(state_dir=root / "merge-state", max_worktrees=branches + 2)
    pinned = pin(WorkspaceSpec(source=str(repo)), settings.workspace_cache)
    tickets = []
    for n in range(branches):
        ticket = f"T-{n + 1:03d}"
        ref = gitwork.prepare(pinned, "bench", ticket, f"node-{n}", settings)
        (Path(ref.path) / "src" / f"{ticket}.txt").write_text(f"{ticket}\n")
        sha = gitwork.commit(CommitRequest(worktree=ref, run_id="bench", subject=ticket), settings)
        tickets.append(
            TicketBranch(ticket_id=ticket, branch=ref.branch, base=pinned.commit, head=sha or "")
        )
    request = MergeRequest(
        run_id="bench", repository=ref.repository, base_commit=pinned.commit, tickets=tickets
    )
    started = time.perf_counter()
    outcome, _ = gitwork.merge(request, settings)
    ours = time.perf_counter() - started
    if len(outcome.merged) != branches:
        raise RuntimeError(f"merged {outcome.merged}")
    plain = root / "plain"
    git(root, "clone", "--quiet", ref.repository, str(plain))
    git(plain, "checkout", "--quiet", "-b", "merged", pinned.commit)
    started = time.perf_counter()
    for branch in tickets:
        git(plain, "merge", "--quiet", "--no-ff", "--no-edit", branch.head)
    return ours, time.perf_counter() - started


def worktrees(root: Path, files: int) -> tuple[float, float]:
    """(gitwork.prepare, plain git worktree add) seconds on a ``files``-file repository."""
    repo = root / "big"
    make_repository(repo, files)
    commit_all(repo, "big")
    settings = ToolSettings(state_dir=root / "big-state")
    pinned = pin(WorkspaceSpec(source=str(repo)), settings.workspace_cache)
    gitwork.run_repository(pinned, settings)  # made once per source, not per worktree
    started = time.perf_counter()
    gitwork.prepare(pinned, "bench", "T-001", "node-1", settings)
    ours = time.perf_counter() - started
    bare = gitwork.run_repository(pinned, settings)
    started = time.perf_counter()
    git(bare, "worktree", "add", "--quiet", "-b", "plain", str(root / "plain-wt"), pinned.commit)
    return ours, time.perf_counter() - started


async def measure(client: Client, *, files: int, branches: int, model_seconds: float) -> Result:
    wall, calls, test_seconds = await ticket_step(client, model_seconds)
    with tempfile.TemporaryDirectory() as tmp:
        merge, plain_merge = merges(Path(tmp), branches)
        worktree, plain_worktree = worktrees(Path(tmp), files)
    return Result(
        model_seconds,
        wall,
        calls,
        test_seconds,
        branches,
        merge,
        plain_merge,
        files,
        worktree,
        plain_worktree,
    )


def report(r: Result) -> str:
    model = r.model_calls * r.model_seconds
    ratio = r.step_wall / (model + r.test_seconds)
    return "\n".join(
        [
            "Code changes bench",
            versions(),
            f"ticket step with {EDITS} edits and one test run: wall {r.step_wall:.2f} s / "
            f"(model {r.model_calls} calls x {r.model_seconds:g} s + tests "
            f"{r.test_seconds:.2f} s) = {versus_aim(ratio, 1.1)}",
            f"merge of {r.branches} ticket branches: {r.merge / r.branches * 1000:.1f} ms per "
            f"branch vs plain git merge {r.plain_merge / r.branches * 1000:.1f} ms: "
            f"{r.merge / r.plain_merge:.2f}x",
            f"worktree on a {r.files:,}-file repository: {r.worktree:.2f} s vs plain git "
            f"worktree add {r.plain_worktree:.2f} s: {r.worktree / r.plain_worktree:.2f}x",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.code_changes",
        "A ticket step's overhead, merging ticket branches, worktrees on a large repository.",
        ("--files", 50_000, "files of the generated repository"),
        ("--branches", 8, "ticket branches merged"),
    )
    parser.add_argument("--model-seconds", type=float, default=0.5, help="per model call")
    args = parser.parse_args(argv)
    result = run_on_dev_server(
        measure, files=args.files, branches=args.branches, model_seconds=args.model_seconds
    )
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
