"""Scale bench: 100, 1,000, 10,000 runs each waiting on a question.

Run it with ``python -m bench.scale [--counts 100,1000,10000] [--cache N] [--fill-seconds S]
[--burst N] [--db-file PATH [--reuse]] [--workers N] [--in-flight N]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (with the
project's search attributes; in memory, or on ``--db-file``'s SQLite file). The runs are filled
and served by one in-process worker of ``app.worker_setup.build_worker`` (``--workers 0``, the
default) or by ``--workers N`` real ``python worker.py`` processes (``bench.worker_processes``),
each holding at most ``--cache`` workflows (default ``WORKER_CACHED_WORKFLOWS``); either way the
deterministic offline model, whose ORCHESTRATOR asks at once (every run's first agent step raises
a question), the webhook channel to a receiver on 127.0.0.1, no reminders. Every figure below is
of those workers: the ones that filled the runs, or with ``--reuse`` new ones that never held them.

For each count N (runs are added until N wait, at most ``--in-flight`` of them started and not
yet asking, so the workers take them at their own rate; a count the fill cannot reach within
``--fill-seconds`` is reported as far as it got, and the larger counts are skipped):

1. **Fill**: how long the N runs took to wait, and the **question notices delivered per second**
   over the fill (first start -> last arrival at the webhook).
2. **Worker memory**: the RSS of each serving process (in-process: this process, with the client
   and receiver, after a garbage collection; the server is another process), against its RSS
   before the first run (a ``worker.py``: once it polls).
3. **Answer of an evicted run's question**: the oldest run's question (its run and question long
   pushed out of the cache when 2N > the cache) answered through the SDK without reading it first;
   from sending the answer to the run's next ``run_agent`` scheduled (server event time). Beside
   it, the same for the newest run (the last started: cached), the baseline.
4. **First page of ``agents list --waiting``**: the SDK calls the command makes (one visibility
   page of 20, each question's ``status`` query, the stuck check), median of 3; and the command
   itself (``agents list --waiting --limit 20`` as a new process, start-up included), once.
5. **First page of the inbox**: ``GET /`` of a new ``agents inbox`` process (nothing read yet,
   100 per page), timed from the request once it serves its static files, median of 3 (each a
   new process; ``measure(inbox_process=False)``, the smoke test's quicker way: a new app in
   this process), and how many of its cards were left loading (not read within ``FIRST_WAIT``,
   and without a card in the listing's memo).

With ``--db-file`` the runs are left waiting and the fill is kept in ``PATH.scale.json``;
``--reuse`` starts the server on that file again and measures the same runs (the counts below
what waits are skipped, larger ones filled on), so a fill of hours is measured again in minutes.

Then, **a burst** of ``--burst`` questions (default 1,000) raised at once on one in-process worker
whose webhook takes 50 ms per notice: notices per second (first start -> last arrival), and what
the notices cost a working run: the time from a probe run's start to its question waiting (median
of 3), once a tenth of the burst's notices arrived (the questions' starts mostly through, their
notices queued), against the same probe on the idle worker (the baseline), with how many notices
were still to deliver. Notices run at the lowest task-queue priority (``NOTICE_PRIORITY``),
behind the agent steps.

The report prints the machine's load before and after each figure; compare ratios, not
milliseconds: the machine is shared.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode
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
from bench.worker_processes import process_rss, worker_processes
from tests.cli.support import free_port
from tests.support.interrupts import GOAL, question_input
from tests.support.receivers import HttpReceiver

DEFAULT_COUNTS = (100, 1_000, 10_000)
DEFAULT_FILL_SECONDS = 1800.0
DEFAULT_BURST = 1_000
STARTS_AT_ONCE = 24
"""Run starts in flight at once while filling."""
START_TRIES = 30
"""Tries of one run's start while filling: a dev server on SQLite under load drops calls for a
while ("context deadline exceeded", even "Namespace default is not found") and then goes on."""
PASSING = (
    RPCStatusCode.UNAVAILABLE,
    RPCStatusCode.DEADLINE_EXCEEDED,
    RPCStatusCode.NOT_FOUND,
    RPCStatusCode.RESOURCE_EXHAUSTED,
    RPCStatusCode.CANCELLED,
)
"""A start's errors that such a server gives while it catches up."""
DEFAULT_IN_FLIGHT = 200
"""Runs started and not yet asking, at most, while filling (``--in-flight``)."""
REPEATS = 3
"""First pages measured at each count."""
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
    rss: list[int]
    """of each process that serves the runs"""
    list_sdk: list[float]
    list_cli: float
    inbox: list[float]
    """seconds of each first page"""
    evicted_answer: float
    cached_answer: float
    loads: list[str] = field(default_factory=list)
    inbox_where: str = "agents inbox process"
    inbox_loading: list[int] = field(default_factory=list)
    """cards each first page left loading"""


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
    setup: Setup
    rss_before: list[int]
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


def cli_env(client: Client) -> dict[str, str]:
    """The environment of an ``agents`` command the bench runs: this one without any Temporal,
    OpenAI, agent or offline-scenario setting, joined to ``client``'s server."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TEMPORAL_", "OPENAI_", "AGENT", "OFFLINE_"))
    }
    return env | {
        "TEMPORAL_ADDRESS": client.service_client.config.target_host,
        "TEMPORAL_NAMESPACE": client.namespace,
        "COLUMNS": "200",
    }


def agents_command() -> str:
    return os.path.join(os.path.dirname(sys.executable), "agents")


def cli_first_page(client: Client) -> float:
    """``agents list --waiting --limit 20`` as a new process: seconds to its exit."""
    began = time.perf_counter()
    done = subprocess.run(
        [agents_command(), "list", "--waiting", "--limit", str(PAGE), "--wide"],
        env=cli_env(client),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    took = time.perf_counter() - began
    if done.returncode != 0 or "interrupt-1" not in done.stdout:
        raise RuntimeError(f"agents list --waiting failed: {done.stderr.strip()[-300:]}")
    return took


async def inbox_first_page(client: Client) -> tuple[float, int]:
    """``GET /`` of a new ``agents inbox --limit 100`` process (nothing read yet), once it
    serves its static files: seconds to the whole page, and the cards it left loading."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-scale-inbox-") as tmp:
        env = cli_env(client) | {"AGENTS_STATE_DIR": tmp}
        command = [agents_command(), "inbox", "--port", str(port), "--limit", str(INBOX_PAGE)]
        with open(f"{tmp}/inbox.log", "wb") as log:
            inbox = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
                async with asyncio.timeout(120):
                    while True:
                        if inbox.poll() is not None:
                            with open(f"{tmp}/inbox.log") as out:
                                raise RuntimeError(f"agents inbox ended: {out.read()[-300:]}")
                        try:
                            if (await http.get("/static/inbox.css")).status_code == 200:
                                break
                        except httpx.TransportError:
                            pass
                        await asyncio.sleep(0.1)
                began = time.perf_counter()
                page = await http.get("/", headers={"Sec-Fetch-Site": "same-origin"})
                took = time.perf_counter() - began
        finally:
            inbox.terminate()
            inbox.wait()
    if page.status_code != 200 or "interrupt-1" not in page.text:
        raise RuntimeError(f"the inbox answered {page.status_code}")
    return took, loading(page.text)


def loading(page: str) -> int:
    """The cards of an inbox page shown as loading (their questions not read yet)."""
    return len(re.findall(r'<details class="card[^"]*\bpending\b', page))


async def inbox_page(
    client: Client, agents: AgentWorkflowClient, setup: Setup
) -> tuple[float, int]:
    """A new inbox's first page: a new process, or a new app in this process."""
    if setup.inbox_process:
        return await inbox_first_page(client)
    app = create_app(agents, InboxSettings(), limit=INBOX_PAGE)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8300") as http:
        began = time.perf_counter()
        page = await http.get("/", headers={"Sec-Fetch-Site": "same-origin"})
        took = time.perf_counter() - began
    if page.status_code != 200 or "interrupt-1" not in page.text:
        raise RuntimeError(f"the inbox answered {page.status_code}")
    return took, loading(page.text)


async def list_first_page(agents: AgentWorkflowClient) -> float:
    """The SDK calls of ``agents list --waiting``'s first page."""

    async def page() -> None:
        listed = await agents.waiting_page(PAGE)
        await agents.read_waiting(listed.executions, QUESTION_QUERY_TIMEOUT)

    return await timed(page)


@dataclass
class Fill:
    """The runs a fill started, in order, on its task queue (ids ``<prefix>-<uuid>``), and how
    many of the oldest were answered. With ``--db-file`` it is kept beside the server's SQLite file
    (``state_file``), so ``--reuse`` measures the same fill again, or carries it further."""

    task_queue: str
    prefix: str
    runs: list[str] = field(default_factory=list)
    answered: int = 0
    path: str | None = None

    @property
    def waiting(self) -> int:
        return len(self.runs) - self.answered

    def save(self) -> None:
        if self.path is None:
            return
        kept = {"task_queue": self.task_queue, "prefix": self.prefix, "runs": self.runs}
        partial = f"{self.path}.partial"
        with open(partial, "w") as out:
            json.dump(kept | {"answered": self.answered}, out)
        os.replace(partial, self.path)

    @classmethod
    def load(cls, path: str) -> Fill:
        with open(path) as kept:
            data = json.load(kept)
        return cls(data["task_queue"], data["prefix"], data["runs"], data["answered"], path)


def state_file(db_file: str) -> str:
    """Where ``--db-file``'s fill is kept for ``--reuse``."""
    return f"{db_file}.scale.json"


class Notices:
    """Counts the question notices of a fill's runs as they arrive at the receiver."""

    def __init__(self, receiver: HttpReceiver, prefix: str) -> None:
        self._receiver = receiver
        self._prefix = prefix
        self._seen = len(receiver.requests)
        self.arrived: list[float] = []

    def count(self) -> int:
        requests = self._receiver.requests
        for request in requests[self._seen :]:
            if request.headers.get("X-Interrupt-Delivery", "").startswith(self._prefix):
                self.arrived.append(request.at)
        self._seen = len(requests)
        return len(self.arrived)


async def fill(
    agents: AgentWorkflowClient,
    state: Fill,
    receiver: HttpReceiver,
    target: int,
    deadline: float,
    in_flight: int,
) -> tuple[float, int, float]:
    """Start runs until ``target`` of ``state``'s runs wait, at most ``in_flight`` of them
    started and not yet asking (their question's notice not arrived), so the workers take
    them at their own rate; seconds, notices that arrived for them, notices per second (first
    start -> last arrival)."""
    notices = Notices(receiver, state.prefix)
    began = time.time()
    new = [fresh_id(state.prefix) for _ in range(max(target - state.waiting, 0))]

    async def start(run_id: str) -> None:
        for tried in range(1, START_TRIES + 1):
            try:
                await agents.start(GOAL, workflow_id=run_id)
                return
            except WorkflowAlreadyStartedError:  # an earlier try reached the server
                return
            except RPCError as error:
                if error.status not in PASSING or tried == START_TRIES:
                    raise
                await asyncio.sleep(1.0)

    started = 0
    try:
        while started < len(new) and time.time() < deadline:
            room = min(in_flight - (started - notices.count()), len(new) - started, STARTS_AT_ONCE)
            if room <= 0:
                await asyncio.sleep(0.1)
                continue
            part = new[started : started + room]
            state.runs += part
            started += room
            await _bounded([lambda r=r: start(r) for r in part], STARTS_AT_ONCE)  # type: ignore[misc]
            state.save()
    finally:  # a fill stopped half way is carried on by --reuse (``kept_fill``)
        state.save()
    while time.time() < deadline:
        try:
            waiting = await agents.count_waiting(WaitingFilter(run=state.prefix))
        except RPCError as error:
            if error.status not in PASSING:
                raise
            waiting = 0
        if waiting >= state.waiting and notices.count() >= started:
            break
        await asyncio.sleep(1.0)
    last = max(notices.arrived, default=time.time())
    arrived = len(notices.arrived)
    return time.time() - began, arrived, arrived / max(last - began, 1e-9)


@dataclass(frozen=True)
class Setup:
    """How a run of the bench serves and keeps its runs."""

    cache: int
    workers: int = 0
    """0: one in-process worker; N: N ``worker.py`` processes fill and serve the runs"""
    in_flight: int = DEFAULT_IN_FLIGHT
    """runs started and not yet asking, at most, while filling"""
    state_path: str | None = None
    """where the fill is kept (``--db-file``'s ``state_file``); its runs are then left waiting"""
    reuse: bool = False
    """carry on from the fill kept at ``state_path``"""
    repeats: int = REPEATS
    """first pages measured at each count (the median is reported)"""
    inbox_process: bool = True
    """the inbox as ``agents inbox`` runs it, a process of its own; else an app in this process
    (the smoke test's quicker way, beside the in-process worker)"""


def worker_settings(receiver_url: str, cache: int) -> dict[str, str]:
    """The settings of the bench's ``worker.py`` processes: the in-process worker's."""
    return {
        "OFFLINE_SCENARIO": f"interrupt={AgentType.ORCHESTRATOR.value}",
        "INTERRUPT_WEBHOOK_URL": f"{receiver_url}/hook",
        "INTERRUPT_REMINDERS": "none",
        "AGENTS_WORKER_MAX_CACHED_WORKFLOWS": str(cache),
    }


@contextlib.asynccontextmanager
async def serving(
    client: Client, task_queue: str, receiver: HttpReceiver, setup: Setup
) -> AsyncIterator[Callable[[], list[int]]]:
    """The workers of ``setup`` on ``task_queue``; yields a function giving the RSS of each
    process that serves (the in-process worker's: this process, after a garbage collection)."""
    if setup.workers:
        settings = worker_settings(receiver.url, setup.cache)
        async with worker_processes(client, task_queue, setup.workers, settings) as started:
            yield lambda: [process_rss(p.pid) for p in started]
        return
    offline = OfflineModel(
        OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})), keep_requests=False
    )
    notify = NotifySettings(webhook_url=f"{receiver.url}/hook", reminders=())

    def here() -> list[int]:
        gc.collect()
        return [rss_bytes()]

    async with build(client, task_queue, offline, notify, setup.cache):
        yield here


async def fill_of(client: Client, setup: Setup) -> Fill:
    if setup.reuse:
        if setup.state_path is None or not os.path.exists(setup.state_path):
            raise SystemExit(
                f"--reuse: no fill kept at {setup.state_path}: fill first with --db-file"
            )
        return await kept_fill(client, Fill.load(setup.state_path))
    return Fill(fresh_id("bench-scale-tq"), fresh_id("bench-scale"), path=setup.state_path)


async def kept_fill(client: Client, kept: Fill) -> Fill:
    """``kept`` as the server has it: a fill stopped while starting runs may list a run it did
    not start, or have started runs it had not saved yet (added last, oldest first; a run whose
    question was answered is not one of them)."""
    runs = f"WorkflowId STARTS_WITH '{kept.prefix}' AND "
    open_runs = runs + "WorkflowType = 'OrchestratorWorkflow' AND ExecutionStatus = 'Running'"
    answered = runs + "WorkflowType = 'InterruptWorkflow' AND ExecutionStatus != 'Running'"
    on_server = {e.id: e.start_time async for e in client.list_workflows(open_runs)}
    done = {e.id.rsplit("-interrupt-", 1)[0] async for e in client.list_workflows(answered)}
    listed = set(kept.runs)
    unsaved = sorted(
        (r for r in on_server if r not in listed and r not in done), key=lambda r: on_server[r]
    )
    waiting = [r for r in kept.runs[kept.answered :] if r in on_server and r not in done]
    oldest = kept.runs[: kept.answered]
    return Fill(kept.task_queue, kept.prefix, [*oldest, *waiting, *unsaved], len(oldest), kept.path)


async def measure_levels(
    client: Client, counts: Sequence[int], setup: Setup, fill_seconds: float
) -> tuple[list[int], list[Level], list[int], str]:
    state = await fill_of(client, setup)
    agents = AgentWorkflowClient(client, state.task_queue)
    levels: list[Level] = []
    skipped: list[int] = []
    why = ""
    with HttpReceiver().running() as receiver:
        if not setup.workers:
            gc.collect()
            rss_before = [rss_bytes()]
        async with serving(client, state.task_queue, receiver, setup) as rss_of:
            if setup.workers:
                rss_before = rss_of()
            deadline = time.monotonic() + fill_seconds
            for n in sorted(counts):
                if time.monotonic() > deadline:
                    skipped.append(n)
                    continue
                if setup.reuse and not levels and n < state.waiting:
                    skipped.append(n)
                    why = f"{state.waiting:,} were waiting already"
                    continue
                loads = [load_average()]
                wall_deadline = time.time() + (deadline - time.monotonic())
                took, notices, rate = await fill(
                    agents, state, receiver, n, wall_deadline, setup.in_flight
                )
                waiting = await agents.count_waiting(WaitingFilter(run=state.prefix))
                loads.append(load_average())
                if waiting < n:
                    why = f"the fill reached {waiting:,} of {n:,} waiting runs in {took:.0f} s"
                rss = rss_of()
                evicted = await answer_to_next_step(agents, state.runs[state.answered])
                cached = await answer_to_next_step(agents, state.runs[-1])
                state.answered += 1
                state.runs.pop()  # the newest, answered: the next fill starts a new one
                state.save()
                list_sdk = [await list_first_page(agents) for _ in range(setup.repeats)]
                list_cli = await asyncio.to_thread(cli_first_page, client)
                pages = [await inbox_page(client, agents, setup) for _ in range(setup.repeats)]
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
                        [seconds for seconds, _ in pages],
                        evicted,
                        cached,
                        loads,
                        "agents inbox process" if setup.inbox_process else "inbox app in-process",
                        [left for _, left in pages],
                    )
                )
                print(level_line(levels[-1], rss_before), flush=True)
                if waiting < n:
                    skipped += [c for c in counts if c > n]
                    break
            if setup.state_path is None:
                await asyncio.gather(
                    *(
                        client.get_workflow_handle(r).terminate("bench.scale: measured")
                        for r in state.runs
                    ),
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


def rss_text(rss: list[int], before: list[int]) -> str:
    """``306 MB (+207 MB over 99 MB before any run)``, or per process with several."""
    each = [
        f"{r / MB:.0f} MB ({(r - b) / MB:+.0f} MB over {b / MB:.0f})"
        for r, b in zip(rss, before, strict=True)
    ]
    if len(each) == 1:
        return f"{each[0][:-1]} MB before any run)"
    return f"{sum(rss) / MB:.0f} MB in {len(rss)} processes: " + ", ".join(each)


def level_line(level: Level, rss_before: list[int]) -> str:
    evicted = level.evicted_answer
    return "\n".join(
        [
            f"{level.waiting:,} waiting runs (load {' -> '.join(level.loads)}):",
            f"  fill {level.fill_seconds:.0f} s; {level.notices:,} question notices at "
            f"{level.notices_per_second:.1f} per s",
            f"  worker RSS {rss_text(level.rss, rss_before)}",
            f"  list --waiting first page ({PAGE}): SDK median "
            f"{statistics.median(level.list_sdk):.3f} s {aim(statistics.median(level.list_sdk))};"
            f" the command (new process) {level.list_cli:.2f} s",
            f"  inbox first page ({INBOX_PAGE}, a new {level.inbox_where}): median "
            f"{statistics.median(level.inbox):.3f} s {aim(statistics.median(level.inbox))}, "
            f"cards left loading: {', '.join(map(str, level.inbox_loading))}",
            f"  answer -> next agent step: oldest run {evicted:.3f} s {aim(evicted)}, newest "
            f"(cached) {level.cached_answer:.3f} s: {evicted / level.cached_answer:.2f}x",
        ]
    )


def aim(seconds: float, most: float = FIRST_PAGE_AIM) -> str:
    return f"(aim <= {most:g} s: {'met' if seconds <= most else 'NOT met'})"


def served_by(setup: Setup) -> str:
    if setup.workers:
        return f"{setup.workers} worker.py process{'es' if setup.workers > 1 else ''}"
    return "one in-process worker"


def report(result: Result) -> str:
    setup = result.setup
    lines = [
        f"Scale bench: runs waiting on a question, filled and served by {served_by(setup)}",
        versions(),
        f"worker cache: {setup.cache} runs per worker (AGENTS_WORKER_MAX_CACHED_WORKFLOWS); "
        f"at most {setup.in_flight} runs started and not yet asking",
    ]
    if setup.reuse:
        lines.append(f"reused the fill kept at {setup.state_path}")
    elif setup.state_path:
        lines.append(f"the runs are left waiting; --reuse measures them again ({setup.state_path})")
    lines += [level_line(level, result.rss_before) for level in result.levels]
    if result.skipped:
        lines.append(
            f"not measured: {', '.join(f'{n:,}' for n in result.skipped)} ({result.why_skipped})"
        )
    if (b := result.burst) is not None:
        lines += [
            f"burst of {b.questions:,} questions at once on one in-process worker, webhook "
            f"{SLOW_WEBHOOK * 1000:.0f} ms per notice (load {' -> '.join(b.loads)}):",
            f"  {b.notices_per_second:.1f} notices per s; a working run's start -> question "
            f"waiting while its notices queue ({b.unsent:,} still to deliver after the probes): "
            f"{b.probe_busy:.3f} s vs {b.probe_idle:.3f} s idle: "
            f"{b.probe_busy / b.probe_idle:.2f}x",
        ]
    return "\n".join(lines)


async def measure(
    client: Client,
    *,
    counts: Sequence[int],
    cache: int,
    fill_seconds: float,
    burst: int,
    workers: int = 0,
    in_flight: int = DEFAULT_IN_FLIGHT,
    state_path: str | None = None,
    reuse: bool = False,
    repeats: int = REPEATS,
    inbox_process: bool = True,
) -> Result:
    setup = Setup(cache, workers, in_flight, state_path, reuse, repeats, inbox_process)
    rss_before, levels, skipped, why = await measure_levels(client, counts, setup, fill_seconds)
    bursted = await measure_burst(client, burst, cache) if burst else None
    return Result(setup, rss_before, levels, skipped, why, bursted)


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
    parser.add_argument(
        "--db-file",
        metavar="PATH",
        help="run the dev server on this SQLite file; the runs are left waiting and the fill "
        "kept in PATH.scale.json for --reuse",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="fill and serve with N worker.py processes (default 0: one in-process worker)",
    )
    parser.add_argument(
        "--in-flight",
        type=positive_int,
        default=DEFAULT_IN_FLIGHT,
        metavar="N",
        help="runs started and not yet asking, at most, while filling "
        f"(default {DEFAULT_IN_FLIGHT})",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure the fill kept beside --db-file again, carrying it on to larger counts",
    )
    args = parser.parse_args(argv)
    if args.reuse and not args.db_file:
        parser.error("--reuse needs --db-file: the server's file that holds the fill")
    if args.workers < 0:
        parser.error("--workers must be 0 (one in-process worker) or more")

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
                workers=args.workers,
                in_flight=args.in_flight,
                state_path=state_file(args.db_file) if args.db_file else None,
                reuse=args.reuse,
            )

    result = asyncio.run(run())
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
