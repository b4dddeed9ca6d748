"""Shadow answers on vs off: a person's answer -> the next agent scheduled.

Run it with ``python -m bench.shadow_answers [--runs N] [--gap SECONDS]``.

On one dev server the bench starts itself, with the worker of ``app.worker_setup`` and the
offline model scripted to ask at PLANNING_ORCHESTRATOR, the interrupt round trip of
``bench.interrupt_round_trip`` (the child's ``resolve`` signal -> the orchestrator's next
``ActivityTaskScheduled``, from server event times) is taken ``--runs`` times each with the
start input ``shadowAnswers`` off and on, alternating (after one warm-up of each). With it on,
the question's workflow also starts the controller's ``ShadowAnswerWorkflow`` beside the
translation; the bench checks every shadow recorded an answer. The ratio of the medians, on /
off (aim <= 1.05x), is what the shadow adds to a person's wait for the run to go on.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import ShadowAnswer
from bench.harness import (
    bench_parser,
    fresh_id,
    ms_summary,
    run_on_dev_server,
    versions,
    versus_aim,
)
from bench.interrupt_round_trip import INTERRUPT_AT, interrupt_once

DEFAULT_RUNS = 8
AIM = 1.05


@dataclass(frozen=True)
class ShadowResult:
    off: list[float]
    on: list[float]
    """Round trips (seconds) without and with shadow answers."""
    shadows_answered: int

    @property
    def ratio(self) -> float:
        return statistics.median(self.on) / statistics.median(self.off)


async def measure(client: Client, runs: int = DEFAULT_RUNS, gap: float = 2.0) -> ShadowResult:
    """Alternate ``runs`` round trips with shadowing off and on, after a warm-up of each."""
    task_queue = fresh_id("bench-shadow-tq")
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({INTERRUPT_AT})))
    off: list[float] = []
    on: list[float] = []
    answered = 0
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        for index in range(runs + 1):
            for shadowed, into in ((False, off), (True, on)):
                if gap and index:
                    await asyncio.sleep(gap)
                run = await interrupt_once(client, task_queue, shadow=shadowed)
                if index:
                    into.append(run.total)
        for shadow_id in await _shadow_ids(client, task_queue, expected=runs + 1):
            handle = client.get_workflow_handle(shadow_id, result_type=ShadowAnswer)
            recorded: ShadowAnswer = await handle.result()
            answered += recorded.answer is not None
    return ShadowResult(off, on, answered)


async def _shadow_ids(client: Client, task_queue: str, expected: int) -> list[str]:
    """The shadow workflows of ``task_queue``, once visibility lists ``expected`` (or 10 s)."""
    query = f"TaskQueue = '{task_queue}' AND WorkflowType = 'ShadowAnswerWorkflow'"
    async with asyncio.timeout(10):
        while len(found := [w.id async for w in client.list_workflows(query)]) < expected:
            await asyncio.sleep(0.1)
    return found


def report(result: ShadowResult) -> str:
    return "\n".join(
        [
            "shadow answers: a person's answer -> the next agent scheduled",
            versions(event_times=True),
            f"shadowing off: {ms_summary(result.off)}",
            f"shadowing on:  {ms_summary(result.on)}",
            f"shadows that recorded an answer: {result.shadows_answered} of {len(result.on) + 1}",
            f"on / off: {versus_aim(result.ratio, AIM)}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.shadow_answers",
        __doc__.splitlines()[0],
        ("--runs", DEFAULT_RUNS, "round trips of each kind"),
        gap=True,
    )
    args = parser.parse_args(argv)
    print(report(run_on_dev_server(measure, runs=args.runs, gap=args.gap)))
    return 0


if __name__ == "__main__":
    exit_now(main())
