"""Three dispatched agents asking at once, answered together, against one agent asking.

Run it with ``python -m bench.concurrent_questions [--runs N] [--gap SECONDS]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself, with the
worker of ``app.worker_setup.build_worker`` and the deterministic offline model (no sleeps):

1. **Concurrent questions.** ``OrchestratorWorkflow`` runs with three ticket agents per fan-out
   (``fanout=3``), all three scripted to ask (``interrupt=TICKET_AGENT``). The workflow lifts their
   three questions into one TICKET_DISPATCH interrupt; once its child waits for a person, the bench
   answers every question with one ``resolve`` signal (option A, yes). Time, from the server's
   event times: the child's ``WorkflowExecutionSignaled`` event to the orchestrator's
   ``ActivityTaskScheduled`` event of the last of the three re-run agents (all three
   re-scheduled). That path holds the child's workflow task, the translation call, the child's
   completion, and one workflow task of the orchestrator that splits the answer per agent and
   schedules the agents that asked.
2. **One question.** The same run with only the second ticket agent asking
   (``interrupt=TICKET_AGENT#2``): signal to that one agent re-scheduled. The ratio 1 / 2 is
   what answering three agents together costs against one (aim: at most 1.2x).
3. **LLM calls of the resumed fan-out.** The ticket agents' LLM calls after the answer, divided
   by the number of agents that asked, in both runs (aim: exactly 1x: the finished agents never
   run again).

Each is taken ``--runs`` times (default 6) after one warm-up, every measured run after a pause of
``--gap`` seconds (default 2.0, see ``bench.harness.DEFAULT_GAP``); medians are reported. Compare
ratios, not milliseconds.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from dataclasses import dataclass

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import RESOLVE_SIGNAL
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.routings import TicketAgentRouting
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import DEFAULT_GAP, bench_parser, fresh_id, repeat, run_on_dev_server, versions
from bench.history_times import (
    ACTIVITY_SCHEDULED,
    child_completed_event,
    fetch_history,
    seconds_between,
    signal_event,
)
from bench.interrupt_round_trip import GOAL, WAIT_TIMEOUT, waiting_interrupt

DEFAULT_RUNS = 6
WARMUPS = 1
AGENTS = 3
CONCURRENT = f"fanout={AGENTS};interrupt=TICKET_AGENT"
SINGLE = f"fanout={AGENTS};interrupt=TICKET_AGENT#2"
GATHER_SECONDS = 10.0
"""The runs' ``questionGatherSeconds``: the three agents, asking within it, share one question."""


@dataclass(frozen=True)
class RoundTrip:
    """One answered interrupt of a fan-out."""

    seconds: float
    """resolve signal -> the last agent that asked re-scheduled (server event times)"""
    asked: int
    resumed_calls: int
    """ticket agents' LLM calls after the answer"""


@dataclass(frozen=True)
class Result:
    concurrent: list[RoundTrip]
    single: list[RoundTrip]

    @property
    def concurrent_median(self) -> float:
        return statistics.median(r.seconds for r in self.concurrent)

    @property
    def single_median(self) -> float:
        return statistics.median(r.seconds for r in self.single)

    @property
    def ratio(self) -> float:
        return self.concurrent_median / self.single_median

    def calls_per_question(self, runs: list[RoundTrip]) -> float:
        return sum(r.resumed_calls for r in runs) / sum(r.asked for r in runs)


async def _once(client: Client, task_queue: str, offline: OfflineModel) -> RoundTrip:
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL, question_gather_seconds=GATHER_SECONDS),
        id=fresh_id("bench-concurrent"),
        task_queue=task_queue,
    )
    child, resolution = await waiting_interrupt(handle, client)
    asked = len(resolution.selected_choices)
    before = len(offline.received)
    await child.signal(RESOLVE_SIGNAL, resolution.to_wire())
    await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)
    name = TicketAgentRouting.__name__
    resumed = [
        r for r in offline.received[before:] if r["response_format"]["json_schema"]["name"] == name
    ]
    signaled = signal_event(await fetch_history(child), RESOLVE_SIGNAL)
    parent = await fetch_history(handle)
    completed = child_completed_event(parent, child.id)
    scheduled = [
        e for e in parent if e.event_id > completed.event_id and e.event_type == ACTIVITY_SCHEDULED
    ][:asked]
    return RoundTrip(seconds_between(signaled, scheduled[-1]), asked, len(resumed))


async def _series(
    client: Client, scenario: str, runs: int, warmups: int, gap: float
) -> list[RoundTrip]:
    task_queue = fresh_id("bench-concurrent-tq")
    offline = OfflineModel(OfflineScenario.parse(scenario))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        return await repeat(
            lambda: _once(client, task_queue, offline), runs=runs, warmups=warmups, gap=gap
        )


async def measure(
    client: Client, runs: int = DEFAULT_RUNS, warmups: int = WARMUPS, *, gap: float = DEFAULT_GAP
) -> Result:
    """Both series on ``client``'s server, the concurrent one first."""
    concurrent = await _series(client, CONCURRENT, runs, warmups, gap)
    single = await _series(client, SINGLE, runs, warmups, gap)
    return Result(concurrent, single)


def report(result: Result, gap: float = DEFAULT_GAP) -> str:
    ms = 1000
    return "\n".join(
        [
            f"concurrent questions: {AGENTS} ticket agents ask at once vs one asks "
            f"({len(result.concurrent)} runs each, {gap:g} s gap before each measured run)",
            versions(event_times=True),
            f"resolve signal -> all {AGENTS} agents re-scheduled: median "
            f"{result.concurrent_median * ms:.1f} ms",
            "resolve signal -> the one agent re-scheduled: median "
            f"{result.single_median * ms:.1f} ms",
            f"ratio {AGENTS} questions / 1 question: {result.ratio:.2f}x (aim <= 1.2x)",
            "LLM calls of the resumed fan-out / agents that asked: "
            f"{result.calls_per_question(result.concurrent):.2f}x with {AGENTS} asking, "
            f"{result.calls_per_question(result.single):.2f}x with one (aim 1x)",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.concurrent_questions",
        __doc__.splitlines()[0] if __doc__ else "",
        ("--runs", DEFAULT_RUNS, "measured runs per series"),
        gap=True,
    )
    args = parser.parse_args(argv)
    result = run_on_dev_server(measure, runs=args.runs, gap=args.gap)
    print(report(result, args.gap))
    return 0


if __name__ == "__main__":
    exit_now(main(sys.argv[1:]))  # no interpreter teardown: see app.process_exit
