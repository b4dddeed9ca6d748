"""Export of finished runs: runs/s, examples/s, peak memory, and one run's export / its wall time.

    python -m bench.export [--runs 200] [--parallel 8]

Makes ``--runs`` offline runs that each ask one question (a person's answer through the SDK),
then exports them all as OpenAI fine-tuning JSONL from the histories. Peak memory is the Python
heap's peak (tracemalloc) during an export of one run and of all of them: a streamed export stays
flat as runs are added.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from temporalio.client import Client

from activities.llm import LlmSettings
from activities.offline_model import OfflineModel, OfflineScenario
from app.export import ExportSummary, export
from app.worker_setup import build_worker
from bench.harness import bench_parser, fresh_id, run_on_dev_server, versions
from models.agent_types import AgentType
from models.interrupts import InterruptResolution
from models.state import OrchestratorInput
from workflows.interrupt import InterruptWorkflow
from workflows.orchestrator import OrchestratorWorkflow

SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Result:
    runs: int
    examples: int
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


async def _finish_one(client: Client, task_queue: str) -> str:
    """Start a run, answer its question like a person would, wait for its result."""
    workflow_id = fresh_id("bench-export")
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal="add rate limiting to the gateway"),
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


async def _exported(client: Client, out: Path, ids: list[str]) -> tuple[ExportSummary, float]:
    started = time.perf_counter()
    summary = await export(client, out, ids=ids)
    return summary, time.perf_counter() - started


async def _peak(client: Client, out: Path, ids: list[str]) -> int:
    """The Python heap's peak during an export of ``ids``."""
    tracemalloc.start()
    try:
        await export(client, out, ids=ids)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def measure(client: Client, *, runs: int, parallel: int) -> Result:
    """Make ``runs`` finished runs (``parallel`` at a time), then export them."""
    task_queue = fresh_id("bench-export")
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(SCENARIO)):
        limit = asyncio.Semaphore(parallel)

        async def one() -> str:
            async with limit:
                return await _finish_one(client, task_queue)

        finished = list(await asyncio.gather(*(one() for _ in range(runs))))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "data.jsonl"
        summary, seconds = await _exported(client, out, finished)
        first = finished[0]
        _, one_seconds = await _exported(client, out, [first])
        described = await client.get_workflow_handle(first).describe()
        if described.close_time is None:
            raise RuntimeError(f"{first} has not closed")
        wall = (described.close_time - described.start_time).total_seconds()
        peak_one = await _peak(client, out, [first])
        peak_all = await _peak(client, out, finished)
    return Result(
        runs=summary.runs,
        examples=sum(summary.written.values()),
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
            f"{result.examples_per_second:.0f} examples/s ({result.examples} examples)",
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
    args = parser.parse_args()
    print(report(run_on_dev_server(measure, runs=args.runs, parallel=args.parallel)))


if __name__ == "__main__":
    main()
