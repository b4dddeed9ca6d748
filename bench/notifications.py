"""Notification latency against the interrupt's own start, and 100 questions waiting at once.

Run it with ``python -m bench.notifications [--runs N] [--questions N] [--gap SECONDS]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself, with
in-process workers from ``app.worker_setup.build_worker`` and a webhook receiver on 127.0.0.1
(a real socket, ``tests.support.receivers.HttpReceiver``):

1. **Question raised -> webhook delivered.** An ``InterruptWorkflow`` (a HUMAN_REVIEW question,
   one day to answer) is started on a worker whose only channel is the webhook; the time from its
   ``WorkflowExecutionStarted`` event to the receiver's arrival of the signed POST. The path: the
   first workflow task (which reads the channels with a local activity and schedules the
   ``notify`` activity), the activity's dispatch, the payload and the HTTP request.
2. **The interrupt's own start latency.** The same question on a worker with no channel: from
   ``WorkflowExecutionStarted`` to its first ``WorkflowTaskCompleted`` (the question is WAITING,
   its search attributes and UI details set). The same latency with the webhook on is reported
   too (the local activity's cost).
   Each is taken ``--runs`` times (default 8) after 1 warm-up, each measured run after ``--gap``
   seconds (default 2.0); medians are compared: **delivered / start latency** (aim <= 1.5x).
3. **Many questions at once.** ``--questions`` (default 100) questions are started together,
   once without a channel and once with the webhook; deliveries per second is the count over the
   time from the first start to the last arrival. The worker's extra load is the process CPU time
   of the burst with the webhook minus without (the client's starts and status queries are the
   same in both), per question, and the history events per question with and without.

Times of 1 and 2 are the server's event times and the receiver's clock, on the same machine.
Compare ratios, not milliseconds.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptState
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from bench.harness import bench_parser, fresh_id, ms_summary, repeat, run_on_dev_server, versions
from bench.history_times import event_time, fetch_history
from tests.support.interrupts import question_input
from tests.support.receivers import HttpReceiver, until

DEFAULT_RUNS = 8
DEFAULT_QUESTIONS = 100


@dataclass(frozen=True)
class Burst:
    seconds: float
    """First start to the last arrival (with the webhook) or the last question WAITING."""
    cpu_seconds: float
    history_events: int
    """Events in one question's history once it waits (and its notice is delivered)."""


@dataclass(frozen=True)
class Result:
    delivered: list[float]
    start: list[float]
    start_notified: list[float]
    questions: int
    quiet: Burst
    notified: Burst

    @property
    def ratio(self) -> float:
        return statistics.median(self.delivered) / statistics.median(self.start)


async def _settled_events(handle: WorkflowHandle[Any, Any]) -> int:
    """Events in ``handle``'s history once nothing is in flight: every activity and workflow
    task it scheduled has ended (a notice arrives before its activity's completion)."""

    def count(events: list[Any], kind: str, ends: tuple[str, ...]) -> int:
        begun = sum(e.HasField(f"{kind}_scheduled_event_attributes") for e in events)
        return begun - sum(
            e.HasField(f"{kind}_{end}_event_attributes") for e in events for end in ends
        )

    async with asyncio.timeout(120):
        while True:
            events = list(await fetch_history(handle))
            activities = count(
                events, "activity_task", ("completed", "failed", "timed_out", "canceled")
            )
            tasks = count(events, "workflow_task", ("completed", "failed", "timed_out"))
            if not activities and not tasks:
                return len(events)
            await asyncio.sleep(0.05)


async def _first_task_seconds(handle: WorkflowHandle[Any, Any]) -> tuple[float, float]:
    """(started time as epoch seconds, seconds to the first WorkflowTaskCompleted)."""
    events = await fetch_history(handle)
    started = event_time(events[0]).timestamp()
    done = next(e for e in events if e.HasField("workflow_task_completed_event_attributes"))
    return started, event_time(done).timestamp() - started


async def _waiting(handle: WorkflowHandle[Any, Any]) -> None:
    while (await handle.query(InterruptWorkflow.status)).state is not InterruptState.WAITING:
        await asyncio.sleep(0.01)


async def measure(
    client: Client, *, runs: int, questions: int, gap: float, warmups: int = 1
) -> Result:
    with HttpReceiver().running() as http:
        webhook = NotifySettings(webhook_url=f"{http.url}/hook", webhook_secret="bench-secret")
        quiet_queue, notify_queue = fresh_id("bench-quiet"), fresh_id("bench-notify")
        async with (
            build_worker(client, quiet_queue, LlmSettings()),
            build_worker(client, notify_queue, LlmSettings(), notify=webhook),
        ):

            async def start(queue: str) -> WorkflowHandle[Any, Any]:
                return await client.start_workflow(
                    InterruptWorkflow.run, question_input(), id=fresh_id("q"), task_queue=queue
                )

            async def quiet_once() -> float:
                handle = await start(quiet_queue)
                await _waiting(handle)
                await handle.terminate()
                return (await _first_task_seconds(handle))[1]

            async def notified_once() -> tuple[float, float]:
                before = len(http.requests)
                handle = await start(notify_queue)
                await until(lambda: len(http.requests) > before)
                arrived = http.requests[before].at
                await _waiting(handle)
                await handle.terminate()
                started, first_task = await _first_task_seconds(handle)
                return arrived - started, first_task

            start_latency = await repeat(quiet_once, runs=runs, warmups=warmups, gap=gap)
            notified = await repeat(notified_once, runs=runs, warmups=warmups, gap=gap)

            async def burst(queue: str, deliveries: int) -> Burst:
                if gap > 0:
                    await asyncio.sleep(gap)
                before = len(http.requests)
                cpu, began = time.process_time(), time.time()
                handles = await asyncio.gather(*(start(queue) for _ in range(questions)))
                await asyncio.gather(*(_waiting(h) for h in handles))
                await until(lambda: len(http.requests) >= before + deliveries, 120)
                cpu = time.process_time() - cpu
                ended = max(r.at for r in http.requests[before:]) if deliveries else time.time()
                events = await _settled_events(handles[0])
                await asyncio.gather(*(h.terminate() for h in handles))
                return Burst(ended - began, cpu, events)

            quiet = await burst(quiet_queue, 0)
            loud = await burst(notify_queue, questions)
    return Result(
        delivered=[d for d, _ in notified],
        start=start_latency,
        start_notified=[s for _, s in notified],
        questions=questions,
        quiet=quiet,
        notified=loud,
    )


def report(result: Result) -> str:
    quiet, loud, n = result.quiet, result.notified, result.questions
    extra_ms = (loud.cpu_seconds - quiet.cpu_seconds) / n * 1000
    return "\n".join(
        [
            "Notifications: question raised -> webhook delivered, against the interrupt's start",
            versions(event_times=True),
            f"question raised -> webhook delivered: {ms_summary(result.delivered)}",
            f"interrupt start latency, no channel:  {ms_summary(result.start)}",
            f"interrupt start latency, webhook on:  {ms_summary(result.start_notified)}",
            f"ratio delivered / start latency: {result.ratio:.2f}x (aim <= 1.5x)",
            f"{n} questions at once with the webhook: {n / loud.seconds:.1f} deliveries/s "
            f"(last of {n} delivered {loud.seconds:.2f} s after the first start; without a "
            f"channel all {n} were WAITING after {quiet.seconds:.2f} s)",
            f"worker process CPU for the burst: {loud.cpu_seconds:.2f} s with the webhook, "
            f"{quiet.cpu_seconds:.2f} s without: +{extra_ms:.1f} ms per question "
            f"({loud.cpu_seconds / quiet.cpu_seconds:.2f}x)",
            f"history events per waiting question: {loud.history_events} with the webhook, "
            f"{quiet.history_events} without",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    args = bench_parser(
        "python -m bench.notifications",
        "Webhook delivery latency vs the interrupt's start; many questions at once.",
        ("--runs", DEFAULT_RUNS, "questions per latency after 1 warm-up"),
        ("--questions", DEFAULT_QUESTIONS, "questions started at once"),
        gap=True,
    ).parse_args(argv)
    result = run_on_dev_server(measure, runs=args.runs, questions=args.questions, gap=args.gap)
    print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
