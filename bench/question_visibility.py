"""A dispatched agent's question: how soon a person sees it, with a slow sibling and without.

Run it with ``python -m bench.question_visibility [--runs N] [--sibling-seconds S] [--gap S]``.

What is measured, in one run, on one real Temporal dev server the bench starts
itself (in memory, with the project's search attributes), with the worker of
``app.worker_setup.build_worker`` and the deterministic offline model:

1. **With a sibling still running.** ``OrchestratorWorkflow`` fans out two ticket agents; the
   first asks at once (``interrupt=TICKET_AGENT#1``), the second answers after
   ``--sibling-seconds`` (default 30, ``delay=TICKET_AGENT#2:30``). From the server's
   ``ActivityTaskCompleted`` event of the asking agent's call (its question exists) to the moment
   the bench, polling every 20 ms, first sees the question (a) in the run's ``status`` query and
   (b) in ``list --waiting`` (its visibility query, ``AgentWorkflowClient.is_listed_waiting``).
2. **No sibling.** The same with one ticket agent (``fanout=1``).
3. **Behind another question** (FR-094). Two ticket agents both ask, the second
   ``BEHIND_SECONDS`` after the first, while the first agent's question waits unanswered: from the
   second agent's answer to its own question seen (a) among the run's open questions (its pending
   children) and (b) in ``list --waiting``.

The ratio 1 / 2 (medians, for ``list --waiting``, the later of the two) is what a running sibling
costs a person (aim: at most 1.2x, and never the sibling's duration); the ratio 3 / 2 is what a
waiting question costs the next one (aim: at most 1.2x, and under 2 s). The bench also checks that
the sibling was still running when the question was seen. Each series runs ``--runs`` times
(default 3) after one warm-up, every measured run after ``--gap`` seconds; runs are terminated
once measured. Compare ratios, not milliseconds: the polls and the bench's clock add their share.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from dataclasses import dataclass

from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import EntryKind, OrchestratorStatus
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.visibility import dev_server_args
from bench.harness import (
    DEFAULT_GAP,
    bench_parser,
    fresh_id,
    non_negative_seconds,
    repeat,
    versions,
    versus_aim,
)
from bench.history_times import ACTIVITY_COMPLETED, ACTIVITY_SCHEDULED, event_time, fetch_history
from bench.interrupt_round_trip import GOAL

DEFAULT_RUNS = 3
DEFAULT_SIBLING_SECONDS = 30.0
WARMUPS = 1
ASKING = "ticket-agent-1"
SIBLING = "ticket-agent-2"
BEHIND_SECONDS = 2.0
"""How long after the first agent the second one asks, in the third series."""
STATUS_POLL = 0.02
LIST_POLL = 0.05
SEEN_TIMEOUT = 120.0


@dataclass(frozen=True)
class Sighting:
    """One question, from its agent's answer to a person seeing it."""

    in_status: float
    """seconds: the asking agent's call completed (server time) -> seen in ``status``"""
    in_list: float
    """seconds: the same -> seen in ``list --waiting``"""
    sibling_running: bool
    """whether the sibling had not finished when the question was seen in both (behind another
    question: whether the first question still waited once both were seen)"""


@dataclass(frozen=True)
class Result:
    with_sibling: list[Sighting]
    alone: list[Sighting]
    sibling_seconds: float
    behind: list[Sighting]

    @staticmethod
    def median(runs: list[Sighting], in_list: bool = True) -> float:
        return statistics.median(r.in_list if in_list else r.in_status for r in runs)

    @property
    def ratio(self) -> float:
        return self.median(self.with_sibling) / self.median(self.alone)

    @property
    def behind_ratio(self) -> float:
        return self.median(self.behind) / self.median(self.alone)


def _finished(status: OrchestratorStatus, key: str) -> bool:
    return any(e.kind is EntryKind.OUTPUT and e.node_id.endswith(f"/{key}") for e in status.history)


def _node_id(payload: bytes) -> str:
    """The ``nodeId`` of an activity's input (an agent call), or ""."""
    try:
        data = json.loads(payload)
    except ValueError:
        return ""
    return str(data.get("nodeId", "")) if isinstance(data, dict) else ""


async def _asked_at(handle: WorkflowHandle[OrchestratorWorkflow, object], asking: str) -> float:
    """Epoch seconds of the server's ActivityTaskCompleted event of agent ``asking``'s call."""
    events = await fetch_history(handle)
    scheduled = {
        e.event_id
        for e in events
        if e.event_type == ACTIVITY_SCHEDULED
        and any(
            _node_id(p.data).endswith(f"/{asking}")
            for p in e.activity_task_scheduled_event_attributes.input.payloads
        )
    }
    completed = next(
        e
        for e in events
        if e.event_type == ACTIVITY_COMPLETED
        and e.activity_task_completed_event_attributes.scheduled_event_id in scheduled
    )
    return event_time(completed).timestamp()


async def _once(agents: AgentWorkflowClient, with_sibling: bool) -> Sighting:
    handle = await agents.start(GOAL, workflow_id=fresh_id("bench-visibility"))
    seen_status: float | None = None
    seen_list: float | None = None
    sibling_running = True
    last_list = 0.0
    async with asyncio.timeout(SEEN_TIMEOUT):
        while seen_status is None or seen_list is None:
            status = await handle.query(OrchestratorWorkflow.status)
            now = time.time()
            pending = status.pending_interrupt
            if pending is not None and seen_status is None:
                seen_status = now
            if pending is not None and seen_list is None and now - last_list >= LIST_POLL:
                last_list = now
                if await agents.is_listed_waiting(pending.workflow_id):
                    seen_list = time.time()
            if with_sibling and _finished(status, SIBLING):
                sibling_running = False
            await asyncio.sleep(STATUS_POLL)
    asked = await _asked_at(handle, ASKING)
    await handle.terminate("measured")
    return Sighting(seen_status - asked, seen_list - asked, sibling_running)


async def _once_behind(agents: AgentWorkflowClient) -> Sighting:
    """The second agent's question, asked while the first agent's waits."""
    handle = await agents.start(GOAL, workflow_id=fresh_id("bench-visibility"))
    second = f"{handle.id}-interrupt-2"
    seen_open: float | None = None
    seen_list: float | None = None
    last_list = 0.0
    async with asyncio.timeout(SEEN_TIMEOUT):
        while seen_open is None or seen_list is None:
            children = (await handle.describe()).raw_description.pending_children
            now = time.time()
            if seen_open is None and any(c.workflow_id == second for c in children):
                seen_open = now
            if seen_open is not None and seen_list is None and now - last_list >= LIST_POLL:
                last_list = now
                if await agents.is_listed_waiting(second):
                    seen_list = time.time()
            await asyncio.sleep(STATUS_POLL)
    asked = await _asked_at(handle, SIBLING)
    first_waits = any(
        c.workflow_id == f"{handle.id}-interrupt-1"
        for c in (await handle.describe()).raw_description.pending_children
    )
    await handle.terminate("measured")
    return Sighting(seen_open - asked, seen_list - asked, first_waits)


async def _series(
    client: Client, mode: str, sibling_seconds: float, runs: int, warmups: int, gap: float
) -> list[Sighting]:
    """``mode``: "alone", "sibling" (a sibling still runs) or "behind" (another question waits)."""
    task_queue = fresh_id("bench-visibility-tq")
    text = {
        "alone": "fanout=1;interrupt=TICKET_AGENT#1",
        "sibling": f"fanout=2;interrupt=TICKET_AGENT#1;delay=TICKET_AGENT#2:{sibling_seconds:g}",
        "behind": "fanout=2;interrupt=TICKET_AGENT#1,TICKET_AGENT#2;"
        f"delay=TICKET_AGENT#2:{BEHIND_SECONDS:g}",
    }[mode]
    offline = OfflineModel(OfflineScenario.parse(text))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        return await repeat(
            lambda: _once_behind(agents) if mode == "behind" else _once(agents, mode == "sibling"),
            runs=runs,
            warmups=warmups,
            gap=gap,
        )


async def measure(
    client: Client,
    runs: int = DEFAULT_RUNS,
    warmups: int = WARMUPS,
    *,
    sibling_seconds: float = DEFAULT_SIBLING_SECONDS,
    gap: float = DEFAULT_GAP,
) -> Result:
    """The three series on ``client``'s server (it must have the project's search attributes)."""
    alone = await _series(client, "alone", sibling_seconds, runs, warmups, gap)
    with_sibling = await _series(client, "sibling", sibling_seconds, runs, warmups, gap)
    behind = await _series(client, "behind", sibling_seconds, runs, warmups, gap)
    return Result(with_sibling, alone, sibling_seconds, behind)


def report(result: Result) -> str:
    ms = 1000
    lines = [
        f"question visibility: a ticket agent asks, its sibling answers after "
        f"{result.sibling_seconds:g} s, against the agent alone "
        f"({len(result.alone)} runs each; polls every {STATUS_POLL * ms:g}/{LIST_POLL * ms:g} ms)",
        versions() + "; from the server's event time of the agent's answer to the bench seeing",
    ]
    for name, runs in (("with the sibling running", result.with_sibling), ("alone", result.alone)):
        lines.append(
            f"{name}: in status median {Result.median(runs, False) * ms:.0f} ms, in list "
            f"--waiting median {Result.median(runs) * ms:.0f} ms"
        )
    still = sum(r.sibling_running for r in result.with_sibling)
    waited = sum(r.sibling_running for r in result.behind)
    behind = Result.median(result.behind)
    lines += [
        f"seen while the sibling still ran: {still} of {len(result.with_sibling)}",
        "list --waiting, with the sibling / alone: " + versus_aim(result.ratio, 1.2),
        f"behind another question ({BEHIND_SECONDS:g} s later): among the run's open questions "
        f"median {Result.median(result.behind, False) * ms:.0f} ms, in list --waiting median "
        f"{behind * ms:.0f} ms (aim < 2,000 ms), the first still waiting in {waited} of "
        f"{len(result.behind)}",
        "list --waiting, behind another question / alone: " + versus_aim(result.behind_ratio, 1.2),
    ]
    return "\n".join(lines)


async def _on_dev_server(runs: int, sibling_seconds: float, gap: float) -> Result:
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=dev_server_args(),
    ) as env:
        return await measure(env.client, runs, sibling_seconds=sibling_seconds, gap=gap)


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.question_visibility",
        __doc__.splitlines()[0] if __doc__ else "",
        ("--runs", DEFAULT_RUNS, "measured runs per series"),
        gap=True,
    )
    parser.add_argument(
        "--sibling-seconds",
        type=non_negative_seconds,
        default=DEFAULT_SIBLING_SECONDS,
        help=f"how long the sibling works (default {DEFAULT_SIBLING_SECONDS:g})",
    )
    args = parser.parse_args(argv)
    result = asyncio.run(_on_dev_server(args.runs, args.sibling_seconds, args.gap))
    print(report(result))
    return 0


if __name__ == "__main__":
    exit_now(main(sys.argv[1:]))  # no interpreter teardown: see app.process_exit
