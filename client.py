"""Supervisor SDK and command line for the agent workflows.

    python client.py run "add rate limiting to the gateway"
    python client.py status <workflow-id> [--json]
    python client.py resolve <interrupt-workflow-id> --choice ID=B --confirm ID=yes [--show]
    python client.py interrupt <workflow-id> --source PLANNING_ORCHESTRATOR \
        --reroute DISCOVERY_ORCHESTRATOR --reason "..." [--choices-file f.json]

With no TEMPORAL_ADDRESS, ``run`` starts the embedded Temporal dev server (SQLite under
``.state/``, UI on :8233) and an in-process worker. Run ``python client.py <command> --help``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError
from temporalio.client import (
    Client,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.service import RPCError

from activities.offline_model import OfflineScenario
from app.answering import ask, resolution_from_flags
from app.config import DEFAULT_TASK_QUEUE, TemporalSettings, llm_settings_from_env
from app.connect import connect
from app.dev_server import embedded_server
from app.history import entries_since, read_blackboard
from app.process_exit import exit_now
from app.worker_setup import build_worker
from models.agent_types import AgentType
from models.errors import describe_validation_error, failure_message
from models.interrupt_events import INTERRUPT_REQUEST_EVENT_SIGNAL, EventAck, InterruptRequestEvent
from models.interrupt_flow import InterruptStatus, ResolveAck
from models.interrupts import InterruptResolution, InterruptType
from models.results import OrchestratorCollectorResult
from models.state import DEFAULT_MAX_STEPS, EntryKind, OrchestratorInput, OrchestratorStatus
from workflows.graph import NODES
from workflows.interrupt import InterruptWorkflow
from workflows.interrupt_text import details_markdown
from workflows.orchestrator import OrchestratorWorkflow

POLL_SECONDS = 0.25


class AgentWorkflowClient:
    """What supervisors and tools call: start runs, read their status, steer them."""

    def __init__(self, client: Client, task_queue: str = DEFAULT_TASK_QUEUE) -> None:
        self.client = client
        self.task_queue = task_queue

    @classmethod
    async def connect(cls, settings: TemporalSettings | None = None) -> AgentWorkflowClient:
        settings = settings or TemporalSettings.from_env()
        return cls(await connect(settings), settings.task_queue)

    async def start(
        self, goal: str, *, workflow_id: str | None = None, max_steps: int = DEFAULT_MAX_STEPS
    ) -> WorkflowHandle[OrchestratorWorkflow, OrchestratorCollectorResult]:
        """Start an OrchestratorWorkflow; raises ValueError for an empty goal."""
        run_input = OrchestratorInput(goal=goal, max_steps=max_steps)
        return await self.client.start_workflow(
            OrchestratorWorkflow.run,
            run_input,
            id=workflow_id or f"orchestrator-{uuid.uuid4().hex[:12]}",
            task_queue=self.task_queue,
            static_summary=f"Goal: {run_input.goal}"[:200],
        )

    async def status(self, workflow_id: str) -> OrchestratorStatus:
        handle = self.client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
        return await handle.query(OrchestratorWorkflow.status)

    async def interrupt_status(self, interrupt_id: str) -> InterruptStatus:
        """The question an InterruptWorkflow waits on, its state and its events."""
        handle = self.client.get_workflow_handle_for(InterruptWorkflow.run, interrupt_id)
        return await handle.query(InterruptWorkflow.status)

    async def resolve(self, interrupt_id: str, resolution: InterruptResolution) -> ResolveAck:
        """Answer an interrupt; raises ResolutionRejected with every problem of a wrong answer."""
        handle = self.client.get_workflow_handle_for(InterruptWorkflow.run, interrupt_id)
        try:
            return await handle.execute_update(InterruptWorkflow.resolve_validated, resolution)
        except WorkflowUpdateFailedError as err:
            raise ResolutionRejected(failure_message(err)) from None

    async def send_interrupt_event(
        self, workflow_id: str, event: InterruptRequestEvent
    ) -> EventAck:
        """Ask the running agent to interrupt, then continue at ``rerouteToAgentType``.

        Raises EventRejected when the target is not running, an event is already pending for
        it, an interrupt is already waiting, or the event id was already processed.
        """
        handle = self.client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
        try:
            return await handle.execute_update(OrchestratorWorkflow.send_interrupt_event, event)
        except WorkflowUpdateFailedError as err:
            raise EventRejected(failure_message(err)) from None


class ResolutionRejected(Exception):
    """The interrupt refused the answer; the message names each problem."""


class EventRejected(Exception):
    """The orchestrator refused a supervisor's event; the message says why."""


def event_from_args(args: argparse.Namespace) -> InterruptRequestEvent:
    """Build an InterruptRequestEvent from ``client.py interrupt`` flags."""
    extra: dict[str, object] = {}
    if args.choices_file:
        loaded = json.loads(Path(args.choices_file).read_text())
        if isinstance(loaded, list):
            extra["choices"] = loaded
        elif isinstance(loaded, dict):
            extra.update({k: v for k, v in loaded.items() if k in ("choices", "confirmationItems")})
        else:
            raise ValueError(f"{args.choices_file}: expected a JSON list of choices or an object")
    return InterruptRequestEvent.model_validate(
        {
            "eventId": args.event_id or str(uuid.uuid4()),
            "timestamp": datetime.now(UTC).isoformat(),
            "nodeId": args.node,
            "sourceAgentType": args.source,
            "rerouteToAgentType": args.reroute,
            "interruptType": args.type,
            "reason": args.reason,
            "contextForDecision": args.context or "",
            **extra,
        }
    )


async def _print_progress(handle: WorkflowHandle, status: OrchestratorStatus, seen: int) -> int:
    """Print history entries from index ``seen``; return the next index to print."""
    for entry in await entries_since(handle, status, seen):
        if entry.kind is EntryKind.OUTPUT:
            route = f"-> {entry.route}" if entry.route else "(result)"
            phase = NODES[entry.agent_type].phase
            print(f"  [{phase:<13}] {entry.node_id:<44} {route}", flush=True)
    return status.entries_recorded


async def _follow(
    agents: AgentWorkflowClient,
    handle: WorkflowHandle[OrchestratorWorkflow, OrchestratorCollectorResult],
    ui: str | None,
    interactive: bool,
) -> OrchestratorCollectorResult:
    result_task = asyncio.create_task(handle.result())
    seen = 0
    answered: set[str] = set()
    while not result_task.done():
        with contextlib.suppress(RPCError):  # the query can race the workflow closing
            status = await agents.status(handle.id)
            seen = await _print_progress(handle, status, seen)
            pending = status.pending_interrupt
            if pending is not None and pending.workflow_id not in answered:
                answered.add(pending.workflow_id)
                await _answer(agents, pending.workflow_id, ui, interactive, result_task)
        await asyncio.wait({result_task}, timeout=POLL_SECONDS)
    seen = await _print_progress(handle, await agents.status(handle.id), seen)
    return result_task.result()


async def _answer(
    agents: AgentWorkflowClient,
    interrupt_id: str,
    ui: str | None,
    interactive: bool,
    result_task: asyncio.Task[OrchestratorCollectorResult],
) -> None:
    """Show the question; ask in the terminal when a person runs us, else say how to answer."""
    question = await agents.interrupt_status(interrupt_id)
    print("\n" + details_markdown(interrupt_id, question.origin, question.request))
    if ui:
        print(f"or in the Temporal UI: {ui}/{interrupt_id}")
    if not interactive:
        print("Waiting for the answer...", flush=True)
        return
    while not result_task.done():
        resolution = await asyncio.to_thread(ask, question.request)
        try:
            ack = await agents.resolve(interrupt_id, resolution)
        except ResolutionRejected as err:
            print(f"error: {err}")
            continue
        print(f"Answer accepted: {ack.message}\n", flush=True)
        return


@asynccontextmanager
async def _session(
    args: argparse.Namespace, *, with_worker: bool
) -> AsyncIterator[tuple[AgentWorkflowClient, str | None]]:
    """Connect (starting the embedded server and a worker when no address is set).

    Yields the SDK client and the UI's workflow-list URL, when known.
    """
    settings = TemporalSettings.from_env()
    ui = os.environ.get("TEMPORAL_UI_URL") or None
    async with AsyncExitStack() as stack:
        if settings.address:
            client = await connect(settings)
        else:
            env, ui = await stack.enter_async_context(embedded_server(settings.state_dir))
            client = env.client
            print(f"Temporal dev server: {env.client.service_client.config.target_host}  UI: {ui}")
            with_worker = True
        agents = AgentWorkflowClient(client, settings.task_queue)
        if with_worker:
            scenario = OfflineScenario.parse(args.scenario or os.environ.get("OFFLINE_SCENARIO"))
            llm = llm_settings_from_env()
            worker = build_worker(client, settings.task_queue, llm, scenario=scenario)
            await stack.enter_async_context(worker)
            model = "offline model" if llm.offline else f"model {llm.model}"
            print(f"In-process worker on queue {settings.task_queue!r} ({model})")
        yield agents, (f"{ui}/namespaces/{settings.namespace}/workflows" if ui else None)


async def _cmd_run(args: argparse.Namespace) -> int:
    if not args.goal.strip():
        print(
            'error: the goal is empty; run: python client.py run "<what to achieve>"',
            file=sys.stderr,
        )
        return 2
    async with _session(args, with_worker=args.worker) as (agents, ui):
        handle = await agents.start(args.goal, workflow_id=args.id, max_steps=args.max_steps)
        print(f"Started {handle.id}")
        interactive = sys.stdin.isatty() and not args.no_input
        try:
            result = await _follow(agents, handle, ui, interactive)
        except WorkflowFailureError as err:
            print(f"error: workflow {handle.id} failed: {failure_message(err)}", file=sys.stderr)
            return 1
        print("\nFinal result:")
        print(json.dumps(result.to_wire(), indent=2))
        return 0


async def _connect_to_cluster() -> AgentWorkflowClient | None:
    """The SDK client for TEMPORAL_ADDRESS; None (after saying so) when it is not set."""
    settings = TemporalSettings.from_env()
    if not settings.address:
        print("error: set TEMPORAL_ADDRESS to the server the workflow runs on", file=sys.stderr)
        return None
    return await AgentWorkflowClient.connect(settings)


async def _cmd_status(args: argparse.Namespace) -> int:
    agents = await _connect_to_cluster()
    if agents is None:
        return 2
    status = await agents.status(args.workflow_id)
    if args.json:
        entries = await read_blackboard(agents.client, args.workflow_id)
        print(json.dumps(status.model_copy(update={"history": entries}).to_wire(), indent=2))
        return 0
    current = status.current_node
    steps = f"step {status.steps_taken}/{status.max_steps}"
    print(f"workflow {status.workflow_id}: phase {status.phase}, {steps}")
    print(f"running: {current.node_id} ({current.agent_type})" if current else "running: nothing")
    if status.pending_interrupt:
        print(f"waiting on interrupt {status.pending_interrupt.workflow_id}")
    handle = agents.client.get_workflow_handle(args.workflow_id)
    await _print_progress(handle, status, status.history[0].index if status.history else 0)
    for event in status.events[-5:]:
        print(f"  {event.kind}: {event.message}")
    return 0


async def _cmd_resolve(args: argparse.Namespace) -> int:
    agents = await _connect_to_cluster()
    if agents is None:
        return 2
    answers_given = bool(args.choice or args.confirm or args.text)
    if args.show or not answers_given:
        question = await agents.interrupt_status(args.interrupt_id)
        print(details_markdown(args.interrupt_id, question.origin, question.request))
        if not answers_given:
            return 0
    resolution = resolution_from_flags(args.choice, args.custom, args.confirm, args.text)
    try:
        ack = await agents.resolve(args.interrupt_id, resolution)
    except ResolutionRejected as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"accepted: {ack.message}")
    return 0


async def _cmd_interrupt(args: argparse.Namespace) -> int:
    try:
        event = event_from_args(args)
    except ValidationError as err:
        print(f"error: invalid event: {describe_validation_error(err)}", file=sys.stderr)
        return 2
    agents = await _connect_to_cluster()
    if agents is None:
        return 2
    if args.signal:
        handle = agents.client.get_workflow_handle(args.workflow_id)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, event.to_wire())
        print(f"signalled event {event.event_id}; see `client.py status {args.workflow_id}`")
        return 0
    try:
        ack = await agents.send_interrupt_event(args.workflow_id, event)
    except EventRejected as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"accepted event {event.event_id}: {ack.message}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="client.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start a workflow for a goal and follow it to its result")
    run.add_argument("goal", help="what the agents should achieve")
    run.add_argument("--id", help="workflow id (default: orchestrator-<random>)")
    run.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS, help="agent step limit")
    run.add_argument(
        "--scenario",
        help="offline-model scenario, e.g. 'interrupt=PLANNING_ORCHESTRATOR;delay=REVIEW_AGENT:2'",
    )
    run.add_argument(
        "--worker",
        action="store_true",
        help="also run an in-process worker when TEMPORAL_ADDRESS is set",
    )
    run.add_argument(
        "--no-input",
        action="store_true",
        help="never ask in the terminal; answer interrupts with `resolve` or the Temporal UI",
    )
    run.set_defaults(handler=_cmd_run)
    status = sub.add_parser("status", help="show a workflow's phase, history and events")
    status.add_argument("workflow_id")
    status.add_argument("--json", action="store_true", help="print the raw status query result")
    status.set_defaults(handler=_cmd_status)
    resolve = sub.add_parser(
        "resolve",
        help="answer an interrupt (with no answers given: show its question)",
    )
    resolve.add_argument("interrupt_id", help="e.g. orchestrator-1a2b3c4d5e6f-interrupt-1")
    resolve.add_argument("--choice", action="append", default=[], metavar="ID=OPTION")
    resolve.add_argument("--custom", action="append", default=[], metavar='ID="TEXT"')
    resolve.add_argument("--confirm", action="append", default=[], metavar="ID=yes|no")
    resolve.add_argument("--text", help="free text for the agent")
    resolve.add_argument("--show", action="store_true", help="print the question first")
    resolve.set_defaults(handler=_cmd_resolve)
    agents = [a.value for a in AgentType]
    interrupt = sub.add_parser(
        "interrupt",
        help="ask the running agent to interrupt and re-route (a supervisor's event)",
    )
    interrupt.add_argument("workflow_id", help="the OrchestratorWorkflow's id")
    interrupt.add_argument(
        "--source",
        required=True,
        choices=agents,
        metavar="AGENT_TYPE",
        help="the agent that should interrupt (must be running)",
    )
    interrupt.add_argument(
        "--reroute",
        choices=agents,
        metavar="AGENT_TYPE",
        help="where to continue after the answer (default: back to --source)",
    )
    interrupt.add_argument("--reason", required=True, help="why; the agent is told this")
    interrupt.add_argument(
        "--type", default="HUMAN_REVIEW", choices=[t.value for t in InterruptType]
    )
    interrupt.add_argument("--node", help="the running node's id (default: the node of --source)")
    interrupt.add_argument("--context", help="contextForDecision shown with the question")
    interrupt.add_argument("--choices-file", help="JSON: [{label, value, description}, ...]")
    interrupt.add_argument("--event-id", help="idempotency key (default: a new uuid)")
    interrupt.add_argument(
        "--signal",
        action="store_true",
        help="send as a signal (no answer; problems become workflow events)",
    )
    interrupt.set_defaults(handler=_cmd_interrupt)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(asyncio.run(args.handler(args)))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except RPCError as err:
        print(f"error: Temporal said: {err.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    exit_now(main())
