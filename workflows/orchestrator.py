"""OrchestratorWorkflow: walks the agent graph, one agent activity per step."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from pydantic import ValidationError
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    ChildWorkflowError,
    is_cancelled_exception,
)
from temporalio.workflow import ActivityHandle

from models.agent_call import AgentCall, AgentReply, ContextItem, HistoryDigestEntry
from models.agent_types import AgentType, Terminal
from models.contexts import (
    CONTEXT_FIELDS,
    CuratedContext,
    curate_discovery,
    curate_planning,
    curate_tickets,
    curated_ids_in,
)
from models.errors import (
    AgentFailed,
    AgentWorkflowError,
    DegenerateLoop,
    InterruptFailed,
    InvalidInput,
    StepLimitExceeded,
    UndecodablePayload,
    failure_message,
)
from models.ids import make_context_id
from models.interrupt_events import INTERRUPT_REQUEST_EVENT_SIGNAL, EventAck, InterruptRequestEvent
from models.interrupt_flow import InterruptInput
from models.interrupts import InterruptRequestBase, InterruptRouting
from models.limits import MAX_REMEMBERED_EVENT_IDS, clip
from models.requests import CONTEXT_FOUND, AgentRequest, OrchestratorRequest
from models.results import (
    AgentResult,
    DiscoveryCollectorResult,
    OrchestratorCollectorResult,
    PlanningCollectorResult,
    TicketCollectorResult,
)
from models.routing import Routing
from models.state import (
    EntryKind,
    EventKind,
    GraphEvent,
    HistoryEntry,
    NodeRef,
    OrchestratorInput,
    OrchestratorState,
    OrchestratorStatus,
    PendingInterrupt,
    PendingStep,
)
from workflows.event_log import log_event, record_event
from workflows.event_rules import check_event, supervisor_message
from workflows.graph import NODES, Node
from workflows.handler_args import parse_raw, parse_values
from workflows.interrupt import InterruptWorkflow
from workflows.interrupt_text import details_markdown, summary_line
from workflows.planner import (
    last_request_of,
    next_step,
    origin_of,
    previous_attempt,
    return_target,
)
from workflows.policies import AGENT_HEARTBEAT_TIMEOUT, AGENT_RETRY, AGENT_START_TO_CLOSE
from workflows.resolution_rules import describe_resolution
from workflows.resume import resumed_request
from workflows.visibility import child_attributes, show_orchestrator

with workflow.unsafe.imports_passed_through():
    from activities.agents import AgentActivities

CONTEXT_WINDOW = 6
"""How many recent outputs an agent sees as curated upstream context."""
HISTORY_DIGEST_LIMIT = 200
"""How many recent blackboard entries prompt contributors see."""


@workflow.defn(failure_exception_types=[ValidationError, UndecodablePayload])
class OrchestratorWorkflow:
    """A goal in, the agent graph walked, the orchestrator collector's final result out."""

    @workflow.init
    def __init__(self, *args: Any) -> None:
        """Takes any start input; a missing or invalid one fails the run at once (``run``)."""
        parsed = parse_values("start input", args, OrchestratorInput)
        self._input_problem = parsed.problem
        input = parsed.value or OrchestratorInput(goal="(no valid start input)")
        self._input = input
        self._state = input.carried_state or OrchestratorState(
            goal=input.goal,
            max_steps=input.max_steps,
            interrupt_timeout_seconds=input.interrupt_timeout_seconds,
            on_interrupt_timeout=input.on_interrupt_timeout,
            pending=PendingStep(
                agent_type=AgentType.ORCHESTRATOR,
                request=OrchestratorRequest(
                    guidance="Plan how to achieve the goal.", phase="DISCOVERY"
                ).to_wire(),
            ),
        )
        self._continue_as_new_every = input.continue_as_new_every
        self._steps_at_start = self._state.steps_taken
        self._inflight: dict[str, ActivityHandle[AgentReply]] = {}
        """Running agent activities by node id, so a supervisor's event can cancel them."""
        self._cancelled_for_event: set[str] = set()
        """Nodes whose running call this workflow cancelled for a supervisor's event."""

    @workflow.run
    async def run(self, *args: Any) -> OrchestratorCollectorResult:
        """Start input: one OrchestratorInput (``{"goal": "..."}``)."""
        if self._input_problem is not None:
            self._fail(
                InvalidInput(
                    f"{self._input_problem}. Start the workflow with one JSON object such as "
                    '{"goal": "add rate limiting to the gateway"}.'
                )
            )
        input = self._input
        state = self._state
        if input.carried_state is None:
            self._event(EventKind.INFO, f"started with goal: {clip(state.goal)}")
        while True:
            if self._should_continue_as_new():
                await workflow.wait_condition(workflow.all_handlers_finished)
                self._event(EventKind.INFO, f"continuing as new after {state.steps_taken} steps")
                workflow.continue_as_new(
                    input.model_copy(update={"carried_state": state, "goal": state.goal})
                )
            step = state.pending
            if step is None:
                self._fail(
                    DegenerateLoop("the run has no next step to take (a bug: please report)")
                )
            if state.steps_taken >= state.max_steps:
                self._fail(
                    StepLimitExceeded(
                        f"the run took {state.steps_taken} agent steps without finishing, the "
                        "limit; it is probably looping. Start it again with a larger maxSteps if "
                        "the goal really needs more steps."
                    )
                )
            state.steps_taken += 1
            result = await self._run_node(NODES[step.agent_type], step)
            if result is not None:
                self._event(EventKind.INFO, "finished: the orchestrator collector said STOP")
                return result

    @workflow.signal(dynamic=True)
    def signal(self, name: str, args: Sequence[RawValue]) -> None:
        """Signal ``interrupt_request_event``: a supervisor's InterruptRequestEvent (spec 000 JSON).

        Any signal name, arity, size or encoding is taken; every problem becomes an event.
        """
        if name != INTERRUPT_REQUEST_EVENT_SIGNAL:
            self._event(
                EventKind.ERROR,
                f"ignored unknown signal {clip(name, 60)!r}; this workflow takes "
                f"{INTERRUPT_REQUEST_EVENT_SIGNAL!r}",
            )
            return
        parsed = parse_raw(name, args, InterruptRequestEvent)
        if parsed.value is None:
            self._event(
                EventKind.ERROR, f"ignored a malformed InterruptRequestEvent: {parsed.problem}"
            )
            return
        event = parsed.value
        verdict = check_event(self._state, event)
        if verdict.node_id is None:
            self._event(
                EventKind.INFO, f"InterruptRequestEvent {event.event_id}: {verdict.problem}"
            )
            return
        self._take_event(verdict.node_id, event)

    @workflow.update
    def send_interrupt_event(self, *args: Any) -> EventAck:
        """The supervisor SDK's way to send an event: accepted, or rejected with the reason."""
        event = parse_values("send_interrupt_event", args, InterruptRequestEvent).value
        verdict = check_event(self._state, event) if event is not None else None
        if event is None or verdict is None or verdict.node_id is None:
            raise ApplicationError("the event changed between validation and handling")
        self._take_event(verdict.node_id, event)
        return EventAck(
            accepted=True,
            node_id=verdict.node_id,
            message=f"{event.source_agent_type} at {verdict.node_id} was asked to interrupt",
        )

    @send_interrupt_event.validator
    def _check_event(self, *args: Any) -> None:
        parsed = parse_values("send_interrupt_event", args, InterruptRequestEvent)
        if parsed.value is None:
            raise ValueError(f"event rejected: {parsed.problem}")
        verdict = check_event(self._state, parsed.value)
        if verdict.problem is not None:
            raise ValueError(f"event {clip(parsed.value.event_id)} rejected: {verdict.problem}")

    @workflow.query
    def status(self) -> OrchestratorStatus:
        """Phase, running node, pending interrupt, blackboard history and events."""
        s = self._state
        return OrchestratorStatus(
            workflow_id=workflow.info().workflow_id,
            phase=s.phase,
            current_node=s.current,
            pending_interrupt=s.pending_interrupt,
            steps_taken=s.steps_taken,
            max_steps=s.max_steps,
            history=s.history,
            events=s.events,
            events_recorded=s.events_recorded,
            stored_events=s.stored_events,
        )

    def _should_continue_as_new(self) -> bool:
        every = self._continue_as_new_every
        taken = self._state.steps_taken - self._steps_at_start
        return workflow.info().is_continue_as_new_suggested() or (
            every is not None and taken >= every
        )

    def _take_event(self, node_id: str, event: InterruptRequestEvent) -> None:
        """Store the event for the node and ask its running agent to interrupt (FR-008)."""
        self._state.stored_events[node_id] = event
        self._state.processed_event_ids.append(event.event_id)
        del self._state.processed_event_ids[:-MAX_REMEMBERED_EVENT_IDS]
        agent = event.source_agent_type
        self._event(
            EventKind.INFO,
            f"InterruptRequestEvent {event.event_id} accepted: asking {agent} to interrupt"
            + (
                f", then continue at {event.reroute_to_agent_type}"
                if event.reroute_to_agent_type
                else ""
            ),
            node_id,
            agent,
        )
        running = self._inflight.get(node_id)
        if running is not None and not running.done():
            self._cancelled_for_event.add(node_id)
            running.cancel()

    async def _run_node(self, node: Node, step: PendingStep) -> OrchestratorCollectorResult | None:
        """Run one node and set the next pending step; return the final result on STOP."""
        state = self._state
        agent = node.agent_type
        node_id = f"{agent.slug}-{state.next_seq:03d}"
        request, curated_ids = self._with_contexts(node.request_model, step.request)
        request_entry = self._record(
            node_id,
            agent,
            EntryKind.REQUEST,
            request,
            upstream=[*step.upstream_context_ids, *curated_ids],
        )
        state.current = NodeRef(node_id=node_id, agent_type=agent)
        if agent is not AgentType.CONTEXT_MANAGER:
            state.phase = node.phase
        show_orchestrator(state.phase, state.current, None)
        agent_results: list[AgentResult] = []
        if node.dispatches is not None:
            agent_results = await self._dispatch(node, node_id, request_entry)
        context = self._context(extra=agent_results)
        output_id = self._context_id(agent)
        reply = await self._agent(
            node_id,
            agent,
            request,
            request_entry,
            context,
            output_id,
            step.interrupt_resolution,
        )
        routing = node.output_model.model_validate(reply.output)
        if not isinstance(routing, Routing):
            self._fail(AgentFailed(f"{agent}'s output model is not a Routing (a bug)"), node_id)
        output_entry = self._record(
            node_id,
            agent,
            EntryKind.OUTPUT,
            reply.output,
            route=reply.route,
            upstream=_upstream(request_entry, context),
            context_id=output_id,
        )
        state.current = None
        self._curate(agent, output_entry)
        nxt = next_step(routing)
        unanswered = state.stored_events.get(node_id)
        if unanswered is not None and nxt.target is not Terminal.INTERRUPT:
            del state.stored_events[node_id]
            self._event(
                EventKind.WARNING,
                f"{agent} finished without interrupting although event {unanswered.event_id} "
                f"asked it to; the event is dropped and the run continues at {nxt.route}",
                node_id,
                agent,
            )
        if nxt.target is Terminal.END:
            if not isinstance(nxt.value, OrchestratorCollectorResult):
                self._fail(AgentFailed(f"{agent} stopped without a final result"), node_id, agent)
            return nxt.value
        if nxt.target is Terminal.INTERRUPT:
            await self._interrupt(node_id, nxt.value)
            return None
        if nxt.target is Terminal.RETURN:
            back = return_target(state.history)
            if back is None:
                self._fail(
                    DegenerateLoop("the context manager has no earlier request to return to")
                )
            request = dict(back.payload)
            request["guidance"] = (
                f"{request.get('guidance', '')}\n{CONTEXT_FOUND} {clip(nxt.value.summary, 2000)}"
            )
            state.pending = PendingStep(
                agent_type=back.agent_type,
                request=request,
                upstream_context_ids=[output_entry.context_id],
            )
            return None
        if not isinstance(nxt.target, AgentType) or not isinstance(nxt.value, AgentRequest):
            self._fail(AgentFailed(f"{agent} chose {nxt.route}, which is not a request"), node_id)
        update: dict[str, Any] = {}
        if agent_results and "agent_results" in type(nxt.value).model_fields:
            update["agent_results"] = agent_results
        state.pending = PendingStep(
            agent_type=nxt.target,
            request=nxt.value.model_copy(update=update).to_wire(),
            upstream_context_ids=[output_entry.context_id],
        )
        return None

    async def _interrupt(self, node_id: str, request: InterruptRequestBase) -> None:
        """Hand the question to InterruptWorkflow; continue where its routing leads (FR-001)."""
        state = self._state
        origin = origin_of(request, state.history)
        last = last_request_of(state.history, origin)
        if last is None:
            self._fail(
                DegenerateLoop(
                    f"{origin} raised an interrupt but the blackboard has no earlier request of "
                    f"{origin} to return to (degenerate loop)"
                ),
                node_id,
                origin,
            )
        event = state.stored_events.pop(node_id, None)
        state.interrupts_started += 1
        child_id = f"{workflow.info().workflow_id}-interrupt-{state.interrupts_started}"
        job = InterruptInput(
            orchestrator_id=workflow.info().workflow_id,
            goal=state.goal,
            request=request,
            origin=origin,
            origin_node_id=node_id,
            origin_request=last.payload,
            reroute_to=event.reroute_to_agent_type if event else None,
            event=event,
            timeout_seconds=state.interrupt_timeout_seconds,
            on_timeout=state.on_interrupt_timeout,
        )
        self._record(
            node_id, origin, EntryKind.INTERRUPT, {"workflowId": child_id, **request.to_wire()}
        )
        self._event(EventKind.INTERRUPT_STATUS, f"REQUESTED: {child_id}", node_id, origin)
        try:
            child = await workflow.start_child_workflow(
                InterruptWorkflow.run,
                job,
                id=child_id,
                static_summary=summary_line(origin, request),
                static_details=details_markdown(child_id, origin, request),
                search_attributes=child_attributes(job),
            )
            state.pending_interrupt = PendingInterrupt(
                workflow_id=child_id,
                origin_agent_type=origin,
                reroute_to_agent_type=job.reroute_to,
                request=request.to_wire(),
            )
            show_orchestrator(state.phase, None, state.pending_interrupt)
            outcome = await child
        except ChildWorkflowError as err:
            message = failure_message(err)
            self._fail(InterruptFailed(f"interrupt {child_id} failed: {message}"), node_id, origin)
        state.pending_interrupt = None
        self._event(
            EventKind.INTERRUPT_STATUS,
            f"RESOLVED: {child_id} by {outcome.resolution.resolved_by} -> {outcome.route}",
            node_id,
            origin,
        )
        routing = InterruptRouting.model_validate(outcome.routing)
        entry = self._record(
            node_id, origin, EntryKind.RESOLUTION, outcome.routing, route=outcome.route
        )
        nxt = next_step(routing)
        if not isinstance(nxt.target, AgentType) or not isinstance(nxt.value, AgentRequest):
            self._fail(
                InterruptFailed(f"interrupt {child_id} resolved to {nxt.route}, not a request"),
                node_id,
                origin,
            )
        carried = last if nxt.target is origin else last_request_of(state.history, nxt.target)
        state.pending = PendingStep(
            agent_type=nxt.target,
            request=resumed_request(
                NODES[nxt.target].request_model,
                carried.payload if carried is not None else {},
                nxt.value,
            ),
            upstream_context_ids=[entry.context_id],
            interrupt_resolution=describe_resolution(request, outcome.resolution),
        )

    async def _dispatch(self, node: Node, node_id: str, parent: HistoryEntry) -> list[AgentResult]:
        """Fan out one dispatched agent per entry of ``request.requests``, in parallel."""
        if node.dispatches is None:
            self._fail(AgentFailed(f"{node.agent_type} dispatches no agent (a bug)"), node_id)
        child = NODES[node.dispatches]
        requests = list(parent.payload.get("requests") or [])
        if not requests:
            self._event(EventKind.WARNING, f"{node.agent_type} got no agent requests", node_id)
        calls, sub_ids, output_ids = [], [], []
        for i, sub in enumerate(requests, start=1):
            sub, curated_ids = self._with_contexts(child.request_model, sub)
            sub_id = f"{node_id}/{child.agent_type.slug}-{i}"
            entry = self._record(
                sub_id,
                child.agent_type,
                EntryKind.REQUEST,
                sub,
                upstream=[parent.context_id, *curated_ids],
            )
            output_id = self._context_id(child.agent_type)
            sub_ids.append(sub_id)
            output_ids.append(output_id)
            calls.append(
                self._agent(sub_id, child.agent_type, sub, entry, self._context(), output_id)
            )
        replies = await asyncio.gather(*calls)
        results: list[AgentResult] = []
        for sub_id, output_id, reply in zip(sub_ids, output_ids, replies, strict=True):
            self._record(
                sub_id,
                child.agent_type,
                EntryKind.OUTPUT,
                reply.output,
                context_id=output_id,
                upstream=reply.output.get("upstreamContextIds", []),
            )
            result = child.output_model.model_validate(reply.output)
            if not isinstance(result, AgentResult):
                self._fail(AgentFailed(f"{child.agent_type} returned no result (a bug)"), sub_id)
            results.append(result)
        return results

    async def _agent(
        self,
        node_id: str,
        agent: AgentType,
        request: dict[str, Any],
        request_entry: HistoryEntry,
        context: list[ContextItem],
        result_id: str,
        interrupt_resolution: str | None = None,
    ) -> AgentReply:
        state = self._state
        call = AgentCall(
            node_id=node_id,
            agent_type=agent,
            result_id=result_id,
            goal=state.goal,
            request=request,
            upstream_context_ids=_upstream(request_entry, context),
            context=context,
            interrupt_resolution=interrupt_resolution,
            previous=previous_attempt(state.history, agent, request_entry),
            history=[
                HistoryDigestEntry(
                    node_id=e.node_id,
                    agent_type=e.agent_type,
                    kind=e.kind.value,
                    route=e.route,
                    context_id=e.context_id,
                )
                for e in state.history[-HISTORY_DIGEST_LIMIT:]
            ],
        )
        while True:
            event = state.stored_events.get(node_id)
            call.user_messages = [supervisor_message(event)] if event else []
            handle = workflow.start_activity_method(
                AgentActivities.run_agent,
                call,
                start_to_close_timeout=AGENT_START_TO_CLOSE,
                heartbeat_timeout=AGENT_HEARTBEAT_TIMEOUT,
                retry_policy=AGENT_RETRY,
                summary=f"{agent} {node_id}" + (" (asked to interrupt)" if event else ""),
            )
            self._inflight[node_id] = handle
            try:
                reply = await handle
            except (ActivityError, asyncio.CancelledError) as err:
                if workflow.cancellation_reason() is not None or (
                    is_cancelled_exception(err) and node_id not in self._cancelled_for_event
                ):
                    raise  # the run itself is being cancelled: never swallowed
                if node_id in self._cancelled_for_event:
                    self._cancelled_for_event.discard(node_id)
                    continue  # cancelled by a supervisor's event: run again with its message
                text = failure_message(err)
                self._fail(AgentFailed(f"{agent} at {node_id} failed: {text}"), node_id, agent)
            finally:
                self._inflight.pop(node_id, None)
            self._cancelled_for_event.discard(node_id)
            if state.stored_events.get(node_id) is not event:
                continue  # the event arrived as the call finished: its result is superseded
            for warning in reply.warnings:
                self._event(EventKind.WARNING, warning, node_id, agent)
            return reply

    def _with_contexts(
        self, model: type[AgentRequest], request: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """Fill the curated contexts ``model`` declares; return the request and their ids."""
        curated = self._state.curated
        update: dict[str, Any] = {}
        for name in CONTEXT_FIELDS:
            context = getattr(curated, name)
            if name in model.model_fields and context is not None:
                update[name] = context
        planning = curated.planning_context
        if "ticket" in model.model_fields and planning is not None:
            wanted = request.get("ticketId")
            update["ticket"] = next(
                (t for t in planning.curation.tickets if t.ticket_id == wanted), None
            )
        if not update:
            return request, []
        filled = model.model_validate(request).model_copy(update=update)
        wire = filled.to_wire()
        return wire, curated_ids_in(wire)

    def _curate(self, agent: AgentType, output: HistoryEntry) -> None:
        """After a collector: derive its curated context and record it (spec 003 US3)."""
        curate = _CURATORS.get(agent)
        result = output.payload.get("collectorResult")
        if curate is None or output.route == "interruptRequest" or not isinstance(result, dict):
            return
        context_id = self._context_id(agent)
        field, context = curate(result, context_id)
        setattr(self._state.curated, field, context)
        result["derivedCurationIds"] = [context_id]
        self._record(
            output.node_id,
            agent,
            EntryKind.CONTEXT,
            context.to_wire(),
            upstream=[output.context_id],
            context_id=context_id,
        )

    def _context(self, extra: Sequence[AgentResult] = ()) -> list[ContextItem]:
        """Curated upstream context: recent results' summaries, with their context ids."""
        items: list[ContextItem] = []
        for entry in self._state.history:
            if entry.kind is EntryKind.OUTPUT and "/" not in entry.node_id:
                items.append(
                    ContextItem(
                        context_id=entry.context_id,
                        agent_type=entry.agent_type,
                        summary=_summarise(entry),
                    )
                )
        items = items[-CONTEXT_WINDOW:]
        for result in extra:
            items.append(
                ContextItem(
                    context_id=result.result_id,
                    agent_type=_result_agent(self._state.history, result.result_id),
                    summary=result.model_dump_json(
                        exclude={"schema_version", "upstream_context_ids"}
                    ),
                )
            )
        return items

    def _context_id(self, agent: AgentType) -> str:
        state = self._state
        cid = make_context_id(
            workflow.info().first_execution_run_id, agent, state.next_seq, workflow.now()
        )
        state.next_seq += 1
        return cid

    def _record(
        self,
        node_id: str,
        agent: AgentType,
        kind: EntryKind,
        payload: dict[str, Any],
        *,
        route: str | None = None,
        upstream: list[str] | None = None,
        context_id: str | None = None,
    ) -> HistoryEntry:
        entry = HistoryEntry(
            node_id=node_id,
            agent_type=agent,
            kind=kind,
            context_id=context_id or self._context_id(agent),
            payload=payload,
            route=route,
            upstream_context_ids=upstream or [],
            at=workflow.now(),
        )
        self._state.history.append(entry)
        return entry

    def _event(
        self,
        kind: EventKind,
        message: str,
        node_id: str | None = None,
        agent: AgentType | None = None,
    ) -> None:
        state = self._state
        event = GraphEvent(
            kind=kind, message=message, node_id=node_id, agent_type=agent, at=workflow.now()
        )
        state.events_recorded = record_event(state.events, state.events_recorded, event)
        log_event(event)

    def _fail(
        self,
        error: AgentWorkflowError,
        node_id: str | None = None,
        agent: AgentType | None = None,
    ) -> NoReturn:
        """Record an ERROR event and fail the run with a non-retryable error."""
        self._state.current = None
        self._event(EventKind.ERROR, str(error), node_id, agent)
        raise error.to_application_error()


def _upstream(request_entry: HistoryEntry, context: list[ContextItem]) -> list[str]:
    """What an agent call considered: its request, the curated contexts in it, the context items."""
    return [
        request_entry.context_id,
        *curated_ids_in(request_entry.payload),
        *(c.context_id for c in context),
    ]


def _summarise(entry: HistoryEntry) -> str:
    """One line for an output entry: its result's summary if it has one, else its route."""
    for value in entry.payload.values():
        if isinstance(value, dict) and isinstance(value.get("summary"), str):
            return str(value["summary"])
    if isinstance(entry.payload.get("summary"), str):
        return str(entry.payload["summary"])
    return f"routed to {entry.route}"


def _result_agent(history: list[HistoryEntry], context_id: str) -> AgentType:
    for entry in reversed(history):
        if entry.context_id == context_id:
            return entry.agent_type
    raise KeyError(context_id)


_CURATORS: dict[AgentType, Callable[[dict[str, Any], str], tuple[str, CuratedContext]]] = {
    AgentType.DISCOVERY_COLLECTOR: lambda r, cid: (
        "discovery_context",
        curate_discovery(DiscoveryCollectorResult.model_validate(r), cid),
    ),
    AgentType.PLANNING_COLLECTOR: lambda r, cid: (
        "planning_context",
        curate_planning(PlanningCollectorResult.model_validate(r), cid),
    ),
    AgentType.TICKET_COLLECTOR: lambda r, cid: (
        "ticket_context",
        curate_tickets(TicketCollectorResult.model_validate(r), cid),
    ),
}
"""Collectors whose results are curated for the phases after them."""
