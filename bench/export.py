"""Export of finished runs: runs/s, examples/s, peak memory, and one run's export / its wall time.

    python -m bench.export [--runs 200] [--parallel 8] [--workspace]

Makes ``--runs`` offline runs that each ask one question (a person's answer through the SDK),
then exports them all as OpenAI fine-tuning JSONL from the histories. Peak memory is the Python
heap's peak (tracemalloc) during an export of one run and of all of them: a streamed export stays
flat as runs are added. With ``--workspace`` every run reads a small git repository through the
code tools, so its tool-using steps are rebuilt from the tool-result store and proven against
their fingerprints; none may be skipped.
"""

from __future__ import annotations

import asyncio
import subprocess
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.tools.results import ToolResultStore
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.export import ExportSummary, export
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import bench_parser, fresh_id, run_on_dev_server, versions

SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Result:
    runs: int
    examples: int
    skipped: int
    with_tools: int
    """Examples whose messages hold tool calls."""
    seconds: float
    one_run_seconds: float
    run_wall_seconds: float
    peak_one: int
    peak_all: int

    @property
    def runs_per_second(self) -> float:
        return self.runs / self.seconds

    @property
    def examples_per_second(self) -> float:
        return self.examples / self.seconds


async def _finish_one(client: Client, task_queue: str, workspace: WorkspaceSpec | None) -> str:
    """Start a run, answer its question like a person would, wait for its result."""
    workflow_id = fresh_id("bench-export")
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal="add rate limiting to the gateway", workspace=workspace),
        id=workflow_id,
        task_queue=task_queue,
    )
    while True:
        status = await handle.query(OrchestratorWorkflow.status)
        if status.pending_interrupt is not None:
            break
        await asyncio.sleep(POLL_SECONDS)
    child = client.get_workflow_handle(status.pending_interrupt.workflow_id)
    question = (await child.query(InterruptWorkflow.status)).request
    answer = InterruptResolution.model_validate(
        {
            "selectedChoices": {c.choice_id: "B" for c in question.choices},
            "confirmations": {c.confirmation_id: True for c in question.confirmation_items},
        }
    )
    await child.execute_update(InterruptWorkflow.resolve_validated, answer)
    await handle.result()
    return workflow_id


async def _exported(
    client: Client, out: Path, ids: list[str], results: ToolResultStore
) -> tuple[ExportSummary, float]:
    started = time.perf_counter()
    summary = await export(client, out, ids=ids, results=results)
    return summary, time.perf_counter() - started


async def _peak(client: Client, out: Path, ids: list[str], results: ToolResultStore) -> int:
    """The Python heap's peak during an export of ``ids``."""
    tracemalloc.start()
    try:
        await export(client, out, ids=ids, results=results)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _small_repository(root: Path) -> Path:
    """A committed git repository with a few files the discovery agents can search."""
    repo = root / "gateway"
    (repo / "gateway").mkdir(parents=True)
    (repo / "gateway" / "__init__.py").write_text("")
    (repo / "gateway" / "limits.py").write_text(
        "RATE_LIMIT = 100  # requests per minute\n\n\ndef allowed(count):\n"
        "    return count < RATE_LIMIT\n"
    )
    (repo / "README.md").write_text("# gateway\n\nRoutes requests; rate limiting is planned.\n")
    for command in (
        ["init", "--quiet", "--initial-branch=main"],
        ["add", "."],
        ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "start"],
    ):
        subprocess.run(["git", *command], cwd=repo, check=True, capture_output=True)
    return repo


async def measure(client: Client, *, runs: int, parallel: int, workspace: bool = False) -> Result:
    """Make ``runs`` finished runs (``parallel`` at a time), then export them."""
    task_queue = fresh_id("bench-export")
    with tempfile.TemporaryDirectory() as tmp:
        tools = ToolSettings(state_dir=Path(tmp) / "state")
        results = ToolResultStore(tools.tool_results)
        spec = WorkspaceSpec(source=str(_small_repository(Path(tmp)))) if workspace else None
        offline = OfflineModel(SCENARIO)
        async with build_worker(client, task_queue, LlmSettings(), offline=offline, tools=tools):
            limit = asyncio.Semaphore(parallel)

            async def one() -> str:
                async with limit:
                    return await _finish_one(client, task_queue, spec)

            finished = list(await asyncio.gather(*(one() for _ in range(runs))))
        out = Path(tmp) / "data.jsonl"
        summary, seconds = await _exported(client, out, finished, results)
        with_tools = sum('"tool_calls"' in line for line in out.read_text().splitlines())
        first = finished[0]
        _, one_seconds = await _exported(client, out, [first], results)
        described = await client.get_workflow_handle(first).describe()
        if described.close_time is None:
            raise RuntimeError(f"{first} has not closed")
        wall = (described.close_time - described.start_time).total_seconds()
        peak_one = await _peak(client, out, [first], results)
        peak_all = await _peak(client, out, finished, results)
    return Result(
        runs=summary.runs,
        examples=sum(summary.written.values()),
        skipped=sum(len(where) for where in summary.skipped.values()),
        with_tools=with_tools,
        seconds=seconds,
        one_run_seconds=one_seconds,
        run_wall_seconds=wall,
        peak_one=peak_one,
        peak_all=peak_all,
    )


def report(result: Result) -> str:
    mib = 2**20
    return "\n".join(
        [
            f"export of {result.runs} finished runs (one interrupt each), OpenAI JSONL",
            versions(),
            f"{result.seconds:.2f} s: {result.runs_per_second:.1f} runs/s, "
            f"{result.examples_per_second:.0f} examples/s ({result.examples} examples, "
            f"{result.with_tools} with tool calls, {result.skipped} skipped)",
            f"peak Python heap: {result.peak_one / mib:.1f} MiB for 1 run, "
            f"{result.peak_all / mib:.1f} MiB for {result.runs} runs "
            f"({result.peak_all / result.peak_one:.2f}x the memory for {result.runs}x the runs: "
            "streamed; what grows is the deduplication keys)",
            f"one run's export {result.one_run_seconds * 1000:.0f} ms / the run's own wall time "
            f"{result.run_wall_seconds * 1000:.0f} ms: "
            f"{result.one_run_seconds / result.run_wall_seconds:.2f}x",
        ]
    )


def main() -> None:
    parser = bench_parser(
        "python -m bench.export",
        __doc__.split("\n")[0],
        ("--runs", 200, "finished runs to make and export"),
        ("--parallel", 8, "runs made at a time"),
    )
    parser.add_argument(
        "--workspace", action="store_true", help="every run reads a git repository with tools"
    )
    args = parser.parse_args()
    result = run_on_dev_server(
        measure, runs=args.runs, parallel=args.parallel, workspace=args.workspace
    )
    print(report(result))


if __name__ == "__main__":
    main()
