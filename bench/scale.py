"""Scale bench: 100, 1,000, 10,000 runs each waiting on a question, on one worker.

Run it with ``python -m bench.scale [--counts 100,1000,10000] [--cache N] [--fill-seconds S]
[--burst N] [--db-file PATH]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (with the
project's search attributes), with one in-process worker of ``app.worker_setup.build_worker``
(the deterministic offline model; its ORCHESTRATOR asks at once, so every run's first agent step
raises a question; the webhook channel to a receiver on 127.0.0.1, no reminders) holding at most
``--cache`` runs in memory (default ``WORKER_CACHED_WORKFLOWS``):

For each count N (runs are added until N wait; a count the fill cannot reach within
``--fill-seconds`` is reported as far as it got, and the larger counts are skipped):

1. **Fill**: how long the N runs took to wait, and the **question notices delivered per second**
   over the fill (first start -> last arrival at the webhook).
2. **Worker memory**: this process's RSS (worker, client and receiver; the server is another
   process) after a garbage collection, against its RSS before the first run.
3. **First page of ``agents list --waiting``**: the SDK calls the command makes (one visibility
   page of 20, each question's ``status`` query, the stuck check), median of 3; and the command
   itself (``agents list --waiting --limit 20`` as a new process, start-up included), once.
4. **First page of the inbox**: ``GET /`` of a new inbox app (nothing read yet, 100 per page),
   median of 3 (each on a new app).
5. **Answer of an evicted run's question**: the oldest run's question (its run and question long
   pushed out of the cache when 2N > the cache) answered through the SDK without reading it first;
   from sending the answer to the run's next ``run_agent`` scheduled (server event time). Beside
   it, the same for the newest run (cached: its question was just listed), the baseline.

Then, **a burst** of ``--burst`` questions (default 1,000) raised at once on a worker whose
webhook takes 50 ms per notice: notices per second (first start -> last arrival), and what the
notices cost a working run: the time from a probe run's start to its question waiting (median of
3), once a tenth of the burst's notices arrived (the questions' starts mostly through, their
notices queued), against the same probe on the idle worker (the baseline), with how many notices
were still to deliver. Notices run at the lowest task-queue priority (``NOTICE_PRIORITY``),
behind the agent steps.

The report prints the machine's load before and after each figure; compare ratios, not
milliseconds: the machine is shared.
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.config import WORKER_CACHED_WORKFLOWS, InboxSettings
from agent_interrupts.app.inbox.web import create_app
from agent_interrupts.app.sdk import QUESTION_QUERY_TIMEOUT, AgentWorkflowClient
from agent_interrupts.app.waiting_pages import WaitingFilter
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.legacy import upgrade_start
from agent_interrupts.workflows.visibility import dev_server_args
from bench.harness import fresh_id, load_average, positive_int, versions
from bench.history_times import ACTIVITY_SCHEDULED, child_completed_event, event_time
from tests.support.interrupts import GOAL, question_input
from tests.support.receivers import HttpReceiver

DEFAULT_COUNTS = (100, 1_000, 10_000)
DEFAULT_FILL_SECONDS = 1800.0
DEFAULT_BURST = 1_000
STARTS_AT_ONCE = 24
"""Run starts in flight at once while filling."""
PAGE = 20
"""``agents list --waiting``'s default page."""
INBOX_PAGE = 100
"""``agents inbox``'s default page."""
SLOW_WEBHOOK = 0.05
"""Seconds the burst's webhook takes per notice."""
FIRST_PAGE_AIM = 1.0
ANSWER_AIM = 1.0
MB = 1024 * 1024
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T = TypeVar("T")


@dataclass
class Level:
    """One count's figures."""

    waiting: int
    fill_seconds: float
    notices: int
    notices_per_second: float
    rss: int
    list_sdk: list[float]
    list_cli: float
    inbox: list[float]
    evicted_answer: float
    cached_answer: float
    loads: list[str] = field(default_factory=list)


@dataclass
class Burst:
    questions: int
    notices_per_second: float
    probe_idle: float
    probe_busy: float
    unsent: int
    """Notices of the burst not yet delivered when the busy probes ended."""
    loads: list[str] = field(default_factory=list)


@dataclass
class Result:
    cache: int
    rss_before: int
    levels: list[Level]
    skipped: list[int]
    why_skipped: str
    burst: Burst | None


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    began = time.perf_counter()
    await call()
    return time.perf_counter() - began


async def _bounded(calls: Sequence[Callable[[], Awaitable[T]]], at_once: int) -> list[T]:
    gate = asyncio.Semaphore(at_once)

    async def one(call: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await call()

    return await asyncio.gather(*(one(c) for c in calls))


async def start_input(client: Client, interrupt_id: str) -> InterruptInput:
    """A question's start input from its history (the server's, no worker reads it)."""
    async for event in client.get_workflow_handle(interrupt_id).fetch_history_events():
        started = event.workflow_execution_started_event_attributes
        [value] = await client.data_converter.decode(started.input.payloads)
        return InterruptInput.model_validate(upgrade_start((value,))[0])
    raise ValueError(f"{interrupt_id} has no history")


async def answer_to_next_step(agents: AgentWorkflowClient, run_id: str) -> float:
    """Answer ``run_id``'s first question (option A, yes) without reading it through a worker;
    seconds from sending the answer to the run's next ``run_agent`` scheduled."""
    client = agents.client
    interrupt_id = f"{run_id}-interrupt-1"
    request = (await start_input(client, interrupt_id)).request
    answer = InterruptResolution(
        selected_choices={c.choice_id: OptionKey.A for c in request.choices},
        confirmations={c.confirmation_id: True for c in request.confirmation_items},
    )
    sent = time.time()
    await agents.resolve(interrupt_id, answer, answered_by="bench")
    handle = client.get_workflow_handle(run_id)
    async with asyncio.timeout(120):
        while True:
            events = [e async for e in handle.fetch_history_events()]
            try:
                done = child_completed_event(events, interrupt_id)
            except RuntimeError:  # not completed yet
                done = None
            if done is not None:
                scheduled = next(
                    (
                        e
                        for e in events
                        if e.event_id > done.event_id
                        and e.event_type == ACTIVITY_SCHEDULED
                        and e.activity_task_scheduled_event_attributes.activity_type.name
                        == "run_agent"
                    ),
                    None,
                )
                if scheduled is not None:
                    return event_time(scheduled).timestamp() - sent
            await asyncio.sleep(0.05)


def cli_first_page(client: Client) -> float:
    """``agents list --waiting --limit 20`` as a new process: seconds to its exit."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TEMPORAL_", "OPENAI_", "AGENT", "OFFLINE_"))
    }
    env |= {
        "TEMPORAL_ADDRESS": client.service_client.config.target_host,
        "TEMPORAL_NAMESPACE": client.namespace,
        "COLUMNS": "200",
    }
    agents = os.path.join(os.path.dirname(sys.executable), "agents")
    began = time.perf_counter()
    done = subprocess.run(
        [agents, "list", "--waiting", "--limit", str(PAGE), "--wide"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    took = time.perf_counter() - began
    if done.returncode != 0 or "interrupt-1" not in done.stdout:
        raise RuntimeError(f"agents list --waiting failed: {done.stderr.strip()[-300:]}")
    return took


async def inbox_first_page(agents: AgentWorkflowClient) -> float:
    """``GET /`` of a new inbox (nothing read yet): seconds to the whole page."""
    app = create_app(agents, InboxSettings(), limit=INBOX_PAGE)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8300") as http:
        began = time.perf_counter()
        page = await http.get("/", headers={"Sec-Fetch-Site": "same-origin"})
        took = time.perf_counter() - began
    if page.status_code != 200 or "interrupt-1" not in page.text:
        raise RuntimeError(f"the inbox answered {page.status_code}")
    return took


async def list_first_page(agents: AgentWorkflowClient) -> float:
    """The SDK calls of ``agents list --waiting``'s first page."""

    async def page() -> None:
        listed = await agents.waiting_page(PAGE)
        await agents.read_waiting(listed.executions, QUESTION_QUERY_TIMEOUT)

    return await timed(page)


async def fill(
    agents: AgentWorkflowClient,
    prefix: str,
    receiver: HttpReceiver,
    runs: list[str],
    target: int,
    answered: int,
    deadline: float,
) -> tuple[float, int, float]:
    """Start runs (ids ``<prefix>-<uuid>``) until ``target`` wait (``answered`` of ``runs``
    no longer do); seconds, notices that arrived for them, notices per second (first start ->
    last arrival)."""
    before = len(receiver.requests)
    began = time.time()
    new = [fresh_id(prefix) for _ in range(target - (len(runs) - answered))]

    async def start(run_id: str) -> None:
        await agents.start(GOAL, workflow_id=run_id)

    for chunk in range(0, len(new), 500):
        if time.time() > deadline:
            break
        part = new[chunk : chunk + 500]
        await _bounded([lambda r=r: start(r) for r in part], STARTS_AT_ONCE)  # type: ignore[misc]
        runs += part
    wanted = len(runs) - answered
    while time.time() < deadline:
        waiting = await agents.count_waiting(WaitingFilter(run=prefix))
        if waiting >= wanted and len(receiver.requests) - before >= len(new):
            break
        await asyncio.sleep(1.0)
    arrived = receiver.requests[before:]
    last = max((r.at for r in arrived), default=time.time())
    return time.time() - began, len(arrived), len(arrived) / max(last - began, 1e-9)


async def measure_levels(
    client: Client, counts: Sequence[int], cache: int, fill_seconds: float
) -> tuple[int, list[Level], list[int], str]:
    task_queue = fresh_id("bench-scale-tq")
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(
        OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})), keep_requests=False
    )
    prefix = fresh_id("bench-scale")
    levels: list[Level] = []
    skipped: list[int] = []
    why = ""
    with HttpReceiver().running() as receiver:
        notify = NotifySettings(webhook_url=f"{receiver.url}/hook", reminders=())
        gc.collect()
        rss_before = rss_bytes()
        async with build(client, task_queue, offline, notify, cache):
            runs: list[str] = []
            answered = 0
            deadline = time.monotonic() + fill_seconds
            for n in sorted(counts):
                if time.monotonic() > deadline:
                    skipped.append(n)
                    continue
                loads = [load_average()]
                wall_deadline = time.time() + (deadline - time.monotonic())
                took, notices, rate = await fill(
                    agents, prefix, receiver, runs, n, answered, wall_deadline
                )
                waiting = await agents.count_waiting(WaitingFilter(run=prefix))
                loads.append(load_average())
                if waiting < n:
                    why = f"the fill reached {waiting:,} of {n:,} waiting runs in {took:.0f} s"
                gc.collect()
                rss = rss_bytes()
                evicted = await answer_to_next_step(agents, runs[answered])
                cached = await answer_to_next_step(agents, runs[-1])
                answered += 1
                runs.pop()  # the newest, answered: the next fill starts a new one
                list_sdk = [await list_first_page(agents) for _ in range(3)]
                list_cli = await asyncio.to_thread(cli_first_page, client)
                inbox = [await inbox_first_page(agents) for _ in range(3)]
                loads.append(load_average())
                levels.append(
                    Level(
                        waiting,
                        took,
                        notices,
                        rate,
                        rss,
                        list_sdk,
                        list_cli,
                        inbox,
                        evicted,
                        cached,
                        loads,
                    )
                )
                print(level_line(levels[-1], rss_before), flush=True)
                if waiting < n:
                    skipped += [c for c in counts if c > n]
                    break
            await asyncio.gather(
                *(client.get_workflow_handle(r).terminate("bench.scale: measured") for r in runs),
                return_exceptions=True,
            )
    return rss_before, levels, skipped, why


def build(
    client: Client,
    task_queue: str,
    offline: OfflineModel | None,
    notify: NotifySettings,
    cache: int,
) -> Any:
    from agent_interrupts.app.worker_setup import build_worker

    return build_worker(
        client,
        task_queue,
        LlmSettings(),
        offline=offline,
        notify=notify,
        max_cached_workflows=cache,
    )


async def probe(agents: AgentWorkflowClient) -> float:
    """Seconds from a new run's start to its question listed as waiting."""
    run_id = fresh_id("bench-probe")
    began = time.perf_counter()
    handle = await agents.start(GOAL, workflow_id=run_id)
    async with asyncio.timeout(300):
        while not await agents.is_listed_waiting(f"{run_id}-interrupt-1"):
            await asyncio.sleep(0.02)
    waited = time.perf_counter() - began
    await handle.terminate("bench.scale: probe measured")
    return waited


async def measure_burst(client: Client, questions: int, cache: int) -> Burst:
    task_queue = fresh_id("bench-burst-tq")
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(
        OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})), keep_requests=False
    )
    loads = [load_average()]
    with HttpReceiver(reply_delay=SLOW_WEBHOOK).running() as receiver:
        notify = NotifySettings(webhook_url=f"{receiver.url}/hook", reminders=())
        async with build(client, task_queue, offline, notify, cache):
            idle = statistics.median([await probe(agents) for _ in range(3)])
            before = len(receiver.requests)
            began = time.time()

            async def start() -> WorkflowHandle[Any, Any]:
                return await client.start_workflow(
                    InterruptWorkflow.run,
                    question_input(),
                    id=fresh_id("bench-burst-q"),
                    task_queue=task_queue,
                )

            def burst_notices() -> list[Any]:
                return [
                    r
                    for r in receiver.requests[before:]
                    if r.headers.get("X-Interrupt-Delivery", "").startswith("bench-burst-q")
                ]

            handles = await _bounded([start] * questions, 64)
            async with asyncio.timeout(900):  # a tenth delivered: the starts mostly through
                while len(burst_notices()) < questions // 10:
                    await asyncio.sleep(0.2)
            busy = statistics.median([await probe(agents) for _ in range(3)])
            unsent = questions - len(burst_notices())

            async with asyncio.timeout(900):
                while len(burst_notices()) < questions:
                    await asyncio.sleep(0.2)
            arrived = burst_notices()
            rate = len(arrived) / max(max(r.at for r in arrived) - began, 1e-9)
            loads.append(load_average())
            await asyncio.gather(
                *(h.terminate("bench.scale: measured") for h in handles), return_exceptions=True
            )
    return Burst(questions, rate, idle, busy, unsent, loads)


def level_line(level: Level, rss_before: int) -> str:
    evicted = level.evicted_answer
    return "\n".join(
        [
            f"{level.waiting:,} waiting runs (load {' -> '.join(level.loads)}):",
            f"  fill {level.fill_seconds:.0f} s; {level.notices:,} question notices at "
            f"{level.notices_per_second:.1f} per s",
            f"  worker process RSS {level.rss / MB:.0f} MB ({(level.rss - rss_before) / MB:+.0f} "
            f"MB over {rss_before / MB:.0f} MB before any run)",
            f"  list --waiting first page ({PAGE}): SDK median "
            f"{statistics.median(level.list_sdk):.3f} s {aim(statistics.median(level.list_sdk))};"
            f" the command (new process) {level.list_cli:.2f} s",
            f"  inbox first page ({INBOX_PAGE}): median {statistics.median(level.inbox):.3f} s "
            f"{aim(statistics.median(level.inbox))}",
            f"  answer -> next agent step: oldest run {evicted:.3f} s {aim(evicted)}, newest "
            f"(cached) {level.cached_answer:.3f} s: {evicted / level.cached_answer:.2f}x",
        ]
    )


def aim(seconds: float, most: float = FIRST_PAGE_AIM) -> str:
    return f"(aim <= {most:g} s: {'met' if seconds <= most else 'NOT met'})"


def report(result: Result) -> str:
    lines = [
        "Scale bench: runs waiting on a question, one worker",
        versions(),
        f"worker cache: {result.cache} runs (AGENTS_WORKER_MAX_CACHED_WORKFLOWS); RSS before "
        f"any run {result.rss_before / MB:.0f} MB",
    ]
    lines += [level_line(level, result.rss_before) for level in result.levels]
    if result.skipped:
        lines.append(
            f"not measured: {', '.join(f'{n:,}' for n in result.skipped)} ({result.why_skipped})"
        )
    if (b := result.burst) is not None:
        lines += [
            f"burst of {b.questions:,} questions at once, webhook {SLOW_WEBHOOK * 1000:.0f} ms "
            f"per notice (load {' -> '.join(b.loads)}):",
            f"  {b.notices_per_second:.1f} notices per s; a working run's start -> question "
            f"waiting while its notices queue ({b.unsent:,} still to deliver after the probes): "
            f"{b.probe_busy:.3f} s vs {b.probe_idle:.3f} s idle: "
            f"{b.probe_busy / b.probe_idle:.2f}x",
        ]
    return "\n".join(lines)


async def measure(
    client: Client, *, counts: Sequence[int], cache: int, fill_seconds: float, burst: int
) -> Result:
    rss_before, levels, skipped, why = await measure_levels(client, counts, cache, fill_seconds)
    bursted = await measure_burst(client, burst, cache) if burst else None
    return Result(cache, rss_before, levels, skipped, why, bursted)


def counts_of(text: str) -> tuple[int, ...]:
    return tuple(positive_int(part) for part in text.split(","))


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m bench.scale",
        description="N runs waiting on a question: memory, first pages, an evicted answer, "
        "notices per second.",
    )
    parser.add_argument("--counts", type=counts_of, default=DEFAULT_COUNTS, help="100,1000,10000")
    parser.add_argument("--cache", type=int, default=WORKER_CACHED_WORKFLOWS, help="runs cached")
    parser.add_argument("--fill-seconds", type=float, default=DEFAULT_FILL_SECONDS)
    parser.add_argument("--burst", type=int, default=DEFAULT_BURST, help="0: no burst")
    parser.add_argument("--db-file", metavar="PATH", help="run the dev server on this SQLite file")
    args = parser.parse_args(argv)

    async def run() -> Result:
        async with await WorkflowEnvironment.start_local(
            dev_server_existing_path=temporal_cli(),
            data_converter=pydantic_data_converter,
            dev_server_extra_args=dev_server_args(),
            dev_server_database_filename=args.db_file,
        ) as env:
            return await measure(
                env.client,
                counts=args.counts,
                cache=args.cache,
                fill_seconds=args.fill_seconds,
                burst=args.burst,
            )

    result = asyncio.run(run())
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
