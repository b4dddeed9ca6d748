"""The inbox with many questions waiting: how soon a page shows them, and an answer elsewhere.

Run it with ``python -m bench.inbox [--runs N] [--questions Q] [--answers A] [--limit L]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself
(in memory, with the project's search attributes), with the worker of
``app.worker_setup.build_worker``, the inbox app of ``agents inbox`` (``app.inbox.web``, served by
uvicorn on a loopback port) and Debian's headless Chromium (driven by Playwright):

1. ``--questions`` waiting questions (default 500) across ``--runs`` runs (default 100): each an
   ``InterruptWorkflow`` started directly (``<run>-interrupt-<n>``, its ``orchestratorId`` the
   run) and listed by the server's visibility as ``list --waiting`` lists them.
2. **Reading them**: once the worker answers a ``status`` query of each (started and settled:
   that time is reported too), until the inbox has read every question it lists (``--limit``,
   default 100 as ``agents inbox``: the newest; the page says how many more wait), polling
   ``/questions``.
3. **First paint** of a new page once they are read: from navigation to the browser's
   ``first-contentful-paint``, and to the page's load event with every listed card in the DOM.
   Aim: at most 1 s each.
4. **Calls per page load**: the client's visibility calls (list, count) and the calls that read
   one workflow (query, describe, history), counted by a client interceptor on the inbox's client.
5. **Live update**: with the page open, ``--answers`` of the questions it lists (default 10) are
   answered through the SDK (the validated update), one at a time, each after a random pause;
   from the update's return to the moment the card leaves the page (Playwright's
   ``wait_for_selector``; the page refreshes every second). Aim: at most 1 s (median).

The baseline of the same shape, in the same run: a page listing 5 waiting questions; the report
gives the 500-question figures against it as ratios.
"""

from __future__ import annotations

import asyncio
import random
import socket
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, async_playwright
from temporalio.client import (
    Client,
    CountWorkflowsInput,
    DescribeWorkflowInput,
    FetchWorkflowHistoryEventsInput,
    Interceptor,
    ListWorkflowsInput,
    OutboundInterceptor,
    QueryWorkflowInput,
)
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.inbox.web import POLL_SECONDS, create_app, listening, serve
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.sdk import WAITING_QUERY, AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.workflows import visibility
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from bench.harness import bench_parser, versions, versus_aim
from tests.support.interrupts import question_input

DEFAULT_RUNS = 100
DEFAULT_QUESTIONS = 500
DEFAULT_ANSWERS = 10
DEFAULT_LIMIT = 100
"""The waiting questions a page lists, as ``agents inbox --limit``."""
BASELINE_QUESTIONS = 5
AIM_SECONDS = 1.0
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
WAIT_MS = 60_000
STARTS_AT_ONCE = 32
ANSWER = InterruptResolution.model_validate({"selectedChoices": {"cache": "B"}})


class CallCounter(Interceptor):
    """Counts the client calls the inbox makes: visibility ones and those reading one workflow."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _Counting(next, self.calls)


class _Counting(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, calls: Counter[str]) -> None:
        super().__init__(next)
        self.calls = calls

    def list_workflows(self, input: ListWorkflowsInput) -> Any:
        self.calls["visibility list"] += 1
        return super().list_workflows(input)

    async def count_workflows(self, input: CountWorkflowsInput) -> Any:
        self.calls["visibility count"] += 1
        return await super().count_workflows(input)

    async def query_workflow(self, input: QueryWorkflowInput) -> Any:
        self.calls["query"] += 1
        return await super().query_workflow(input)

    async def describe_workflow(self, input: DescribeWorkflowInput) -> Any:
        self.calls["describe"] += 1
        return await super().describe_workflow(input)

    def fetch_workflow_history_events(self, input: FetchWorkflowHistoryEventsInput) -> Any:
        self.calls["history"] += 1
        return super().fetch_workflow_history_events(input)


def question(run_id: str, n: int) -> InterruptInput:
    """A waiting REVIEW_AGENT question of ``run_id``: which cache, A or B (B recommended)."""
    job = question_input()
    job.orchestrator_id = run_id
    job.request.reason = f"Question {n} of {run_id}: which cache should the gateway use?"
    return job


async def start_questions(client: Client, task_queue: str, runs: int, questions: int) -> list[str]:
    """``questions`` waiting questions spread over ``runs`` runs; returns once all are listed."""
    prefix = f"inbox-{uuid.uuid4().hex[:8]}"
    ids = [(f"{prefix}-run-{i % runs}", i // runs + 1) for i in range(questions)]
    gate = asyncio.Semaphore(STARTS_AT_ONCE)

    async def one(run_id: str, n: int) -> str:
        async with gate:
            handle = await client.start_workflow(
                InterruptWorkflow.run,
                question(run_id, n),
                id=f"{run_id}-interrupt-{n}",
                task_queue=task_queue,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(visibility.INTERRUPT_STATE, visibility.WAITING),
                        SearchAttributePair(visibility.INTERRUPT_ORIGIN, "REVIEW_AGENT"),
                    ]
                ),
            )
            return handle.id

    started = await asyncio.gather(*(one(r, n) for r, n in ids))
    query = f"{WAITING_QUERY} AND WorkflowId STARTS_WITH '{prefix}-'"
    async with asyncio.timeout(300):  # visibility is eventually consistent
        while (await client.count_workflows(query)).count < questions:
            await asyncio.sleep(0.2)
    return started


async def until_settled(agents: AgentWorkflowClient, ids: list[str]) -> None:
    """Until the worker has run every question's first task and answers its ``status`` query
    (so that the figures measure the inbox, not the worker starting hundreds of workflows)."""
    gate = asyncio.Semaphore(STARTS_AT_ONCE)

    async def one(interrupt_id: str) -> None:
        async with gate:
            await agents.interrupt_status(interrupt_id, timedelta(seconds=60))

    await asyncio.gather(*(one(i) for i in ids))


@asynccontextmanager
async def inbox(client: Client, limit: int) -> AsyncIterator[tuple[str, CallCounter]]:
    """The inbox app on a free loopback port, its client's calls counted; yields its address."""
    counter = CallCounter()
    config = client.config()
    config["interceptors"] = [counter]
    counted = Client(**config)
    settings = InboxSettings(host="127.0.0.1", port=_free_port())
    with listening(settings) as sock:
        server = asyncio.create_task(
            serve(create_app(AgentWorkflowClient(counted), settings, limit=limit), sock)
        )
        try:
            yield f"http://127.0.0.1:{settings.port}/", counter
        finally:
            server.cancel()
            await asyncio.gather(server, return_exceptions=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def page_load(browser: Browser, url: str, cards: int, counter: CallCounter) -> dict[str, Any]:
    """One fresh page: first contentful paint, load with every card, and the calls it made."""
    page = await browser.new_page()
    try:
        counter.calls.clear()
        await page.goto(url, wait_until="load", timeout=WAIT_MS)
        shown = await page.locator("#waiting > .card").count()
        timing = await page.evaluate(
            """() => new Promise((resolve) => {
                const read = () => {  // both entries are recorded a moment after the load event
                    const nav = performance.getEntriesByType("navigation")[0];
                    const paint = performance.getEntriesByName("first-contentful-paint")[0];
                    if (paint && nav.loadEventEnd > 0) {
                        resolve({paint: paint.startTime, load: nav.loadEventEnd,
                                 bytes: nav.transferSize});
                    } else {
                        setTimeout(read, 20);
                    }
                };
                read();
            })"""
        )
        calls = dict(counter.calls)
    finally:
        await page.close()
    if shown < cards:
        raise RuntimeError(f"the page showed {shown} of {cards} waiting questions")
    return {
        "paint": timing["paint"] / 1000,
        "load": timing["load"] / 1000,
        "calls": calls,
        "bytes": timing["bytes"],
    }


async def live_updates(
    browser: Browser, url: str, agents: AgentWorkflowClient, ids: list[str], answers: int
) -> list[float]:
    """Seconds from an answer elsewhere (the update's return) to its card leaving the page, for
    the first ``answers`` cards of ``ids`` the page lists (it lists the newest by the server's
    start times, which concurrent starts do not order as their ids); each answer is sent after a
    random pause, so that it falls at any moment of the page's refresh cycle (right after a card
    left, it would always fall just after a refresh)."""
    pauses = random.Random(23)
    page = await browser.new_page()
    waits = []
    try:
        await page.goto(url, wait_until="load", timeout=WAIT_MS)
        shown = await page.locator("#waiting > .card").evaluate_all("cards => cards.map(c => c.id)")
        ours = set(ids)
        listed = [card.removeprefix("q-") for card in shown if card.removeprefix("q-") in ours]
        if len(listed) < answers:
            raise RuntimeError(f"the page listed {len(listed)} of the questions, not {answers}")
        for interrupt_id in listed[:answers]:
            selector = f'[id="q-{interrupt_id}"]'
            await page.wait_for_selector(selector, timeout=WAIT_MS)
            await asyncio.sleep(pauses.uniform(0, POLL_SECONDS))  # any moment of the poll cycle
            await agents.resolve(interrupt_id, ANSWER)
            answered = time.perf_counter()
            await page.wait_for_selector(selector, state="detached", timeout=WAIT_MS)
            waits.append(time.perf_counter() - answered)
    finally:
        await page.close()
    return waits


async def all_read(url: str) -> float:
    """Seconds until ``/questions`` lists no question as still being read."""
    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=60) as http, asyncio.timeout(600):
        while "pending" in (await http.get(url + "questions")).text:
            await asyncio.sleep(0.2)
    return time.perf_counter() - started


async def measure(client: Client, runs: int, questions: int, answers: int, limit: int) -> list[str]:
    task_queue = f"bench-inbox-{uuid.uuid4()}"
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings()), async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, headless=True
        )
        try:
            baseline = await start_questions(
                client, task_queue, BASELINE_QUESTIONS, BASELINE_QUESTIONS
            )
            await until_settled(agents, baseline)
            async with inbox(client, limit) as (url, counter):
                await all_read(url)
                await page_load(browser, url, min(limit, BASELINE_QUESTIONS), counter)  # warm-up
                base = await page_load(browser, url, min(limit, BASELINE_QUESTIONS), counter)
                ids = await start_questions(client, task_queue, runs, questions)
                settling = time.perf_counter()
                await until_settled(agents, ids)
                settling = time.perf_counter() - settling
                reading = await all_read(url)
                listed = min(limit, questions + BASELINE_QUESTIONS)
                await page_load(browser, url, listed, counter)  # warm-up
                many = await page_load(browser, url, listed, counter)
                waits = await live_updates(browser, url, agents, ids, answers)
        finally:
            await browser.close()
    return report(base, many, waits, (settling, reading), runs, questions, listed)


def report(
    base: dict[str, Any],
    many: dict[str, Any],
    waits: list[float],
    reading: tuple[float, float],
    runs: int,
    questions: int,
    listed: int,
) -> list[str]:
    def calls(load: dict[str, Any]) -> str:
        return ", ".join(f"{name} {n}" for name, n in sorted(load["calls"].items())) or "none"

    live = statistics.median(waits)
    return [
        f"inbox: {questions} waiting questions across {runs} runs (+{BASELINE_QUESTIONS} of the "
        f"baseline), dev server in memory, headless Chromium",
        versions(),
        f"the worker took {reading[0]:.1f} s to start the {questions} and answer a status query "
        f"of each; then the inbox read the {listed} a page lists in {reading[1]:.2f} s",
        f"a page listing {listed} of {questions + BASELINE_QUESTIONS}: first contentful paint: "
        f"{versus_aim(many['paint'], AIM_SECONDS, unit=' s')}; "
        f"{BASELINE_QUESTIONS}-question page {base['paint']:.3f} s "
        f"({many['paint'] / base['paint']:.1f}x)",
        f"load with every card: {versus_aim(many['load'], AIM_SECONDS, unit=' s')}; "
        f"{BASELINE_QUESTIONS}-question page {base['load']:.3f} s "
        f"({many['load'] / base['load']:.1f}x); {many['bytes'] / 1024:.0f} KiB vs "
        f"{base['bytes'] / 1024:.0f} KiB",
        f"calls per page load: {calls(many)} (the {BASELINE_QUESTIONS}-question page: "
        f"{calls(base)})",
        f"live update after an answer elsewhere (median of {len(waits)}): "
        f"{versus_aim(live, AIM_SECONDS, unit=' s')} (min {min(waits):.3f}, max {max(waits):.3f})",
    ]


async def _main(runs: int, questions: int, answers: int, limit: int) -> list[str]:
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=visibility.dev_server_args(),
    ) as env:
        return await measure(env.client, runs, questions, answers, limit)


def main(argv: list[str] | None = None) -> None:
    parser = bench_parser(
        "python -m bench.inbox",
        "The inbox with many waiting questions: first paint, calls per load, live update.",
        ("--runs", DEFAULT_RUNS, "runs the questions belong to"),
        ("--questions", DEFAULT_QUESTIONS, "waiting questions"),
        ("--answers", DEFAULT_ANSWERS, "questions answered elsewhere, one at a time"),
        ("--limit", DEFAULT_LIMIT, "waiting questions a page lists (agents inbox --limit)"),
    )
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        parser.error(f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    if args.answers > min(args.questions, args.limit):
        parser.error("--answers must be at most --questions and --limit")
    for line in asyncio.run(_main(args.runs, args.questions, args.answers, args.limit)):
        print(line)
    sys.stdout.flush()
    exit_now(0)


if __name__ == "__main__":
    main()
