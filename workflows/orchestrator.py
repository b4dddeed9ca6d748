"""OrchestratorWorkflow: walks the agent graph, one agent activity per step.

The class is its loop, its handlers and its queries. Decisions are pure functions beside it
(``steps``, ``resume``, ``event_rules``, ``curation``, ``blackboard``); the supervised agent call
is ``supervised_call``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, NoReturn

from pydantic import ValidationError
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError

from models.agent_call import AgentCall, AgentReply, ContextItem
from models.agent_types import AgentType, Terminal
from models.contexts import curated_ids_in
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
from models.fan_out import HeldAgent
from models.ids import make_context_id
from models.interrupt_events import INTERRUPT_REQUEST_EVENT_SIGNAL, EventAck, InterruptRequestEvent
from models.interrupt_flow import InterruptInput
from models.interrupts import InterruptRequestBase, InterruptRouting
from models.limits import MAX_REMEMBERED_EVENT_IDS, clip
from models.requests import OrchestratorRequest
from models.results import OrchestratorCollectorResult
from models.state import (
    EntryKind,
    EventKind,
    GraphEvent,
    HistoryEntry,
    HistoryPage,
    HistoryPageRequest,
    NodeRef,
    OrchestratorInput,
    OrchestratorState,
    OrchestratorStatus,
    PendingInterrupt,
    PendingStep,
)
from models.tools import ToolTrace
from workflows import blackboard
from workflows.curation import curate, with_contexts
from workflows.event_log import log_event, record_event
from workflows.event_rules import check_event
from workflows.graph import NODES, Node
from workflows.handler_args import parse_raw, parse_values
from workflows.handover import history_is_long
from workflows.interrupt import InterruptWorkflow
from workflows.interrupt_text import details_markdown, summary_line
from workflows.lifting import answer_each, fan_out_context, lift, lifted_output, plan_fan_out
from workflows.planner import last_request_of, origin_of
from workflows.resolution_rules import describe_resolution
from workflows.resume import resumed_request
from workflows.steps import decide
from workflows.supervised_call import SupervisedCalls
from workflows.visibility import child_attributes, show_orchestrator
from workflows.workspace import pin_workspace

CONTEXT_WINDOW = 6
"""How many recent outputs an agent sees as curated upstream context."""
CONTINUE_AS_NEW_STEPS = 500
"""Steps per run before continuing as new (sooner when the server suggests it)."""


@workflow.defn(failure_exception_types=[ValidationError, UndecodablePayload])
class OrchestratorWorkflow:
    """A goal in, the agent graph walked, the orchestrator collector's final result out."""

    @workflow.init
    def __init__(self, *args: Any) -> None:
        """Takes any start input; a missing or invalid one fails the run at once (``run``)."""
        parsed = parse_values("start input", args, OrchestratorInput, max_bytes=None)
        problem = parsed.problem
        forged = parsed.value is not None and parsed.value.carried_state is not None
        if forged and workflow.info().continued_run_id is None:
            problem = "carriedState is set by the workflow when it continues as new, not by callers"
        self._input_problem = problem
        self._input = (
            parsed.value
            if parsed.value is not None and problem is None
            else OrchestratorInput(goal="(no valid start input)")
        )
        input = self._input
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
        self._steps_at_start = self._state.steps_taken
        self._calls = SupervisedCalls()
        self._tool_calls: dict[str, list[ToolTrace]] = {}
        """Each finished call's tool trace by node id, until its OUTPUT entry takes it."""

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
        state = self._state
        if self._input.carried_state is None:
            self._event(EventKind.INFO, f"started with goal: {clip(state.goal)}")
        if self._input.workspace is not None and state.workspace is None:
            try:
                state.workspace = await pin_workspace(self._input.workspace)
            except ActivityError as err:
                self._fail(InvalidInput(f"the workspace was not pinned: {failure_message(err)}"))
            pinned = state.workspace
            self._event(EventKind.INFO, f"workspace {pinned.source} pinned at {pinned.commit}")
        while True:
            if self._should_continue_as_new():
                await workflow.wait_condition(workflow.all_handlers_finished)
                self._event(EventKind.INFO, f"continuing as new after {state.steps_taken} steps")
                workflow.continue_as_new(
                    self._input.model_copy(update={"carried_state": blackboard.carried(state)})
                )
            step = state.pending
            if step is None:
                self._fail(DegenerateLoop("the run has no next step (a bug: please report it)"))
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
        """The head of the run: phase, running node, pending interrupt, counters, the newest
        entries and events. Older entries: ``history_page``."""
        s = self._state
        return OrchestratorStatus(
            workflow_id=workflow.info().workflow_id,
            phase=s.phase,
            current_node=s.current,
            pending_interrupt=s.pending_interrupt,
            steps_taken=s.steps_taken,
            max_steps=s.max_steps,
            history=s.history[-blackboard.STATUS_ENTRIES :],
            entries_recorded=s.entries_recorded,
            interrupt_counts=s.interrupt_counts,
            events=s.events,
            events_recorded=s.events_recorded,
            stored_events=s.stored_events,
        )

    @workflow.query
    def history_page(self, *args: Any) -> HistoryPage:
        """Entries from ``start`` that this run holds (``{"start": 0, "limit": 100}``)."""
        parsed = parse_values("history_page", args or ({},), HistoryPageRequest)
        if parsed.value is None:
            raise ValueError(f"history_page: {parsed.problem}")
        return blackboard.page(self._state, parsed.value.start, parsed.value.limit)

    def _should_continue_as_new(self) -> bool:
        every = self._input.continue_as_new_every or CONTINUE_AS_NEW_STEPS
        taken = self._state.steps_taken - self._steps_at_start
        return history_is_long() or taken >= every

    def _take_event(self, node_id: str, event: InterruptRequestEvent) -> None:
        """Store the event for the node and ask its running agent to interrupt (FR-008)."""
        state = self._state
        state.stored_events[node_id] = event
        state.processed_event_ids.append(event.event_id)
        del state.processed_event_ids[:-MAX_REMEMBERED_EVENT_IDS]
        agent = event.source_agent_type
        then = (
            f", then continue at {event.reroute_to_agent_type}"
            if event.reroute_to_agent_type
            else ""
        )
        self._event(
            EventKind.INFO,
            f"InterruptRequestEvent {event.event_id} accepted: asking {agent} to interrupt{then}",
            node_id,
            agent,
        )
        self._calls.redirect(node_id)

    async def _run_node(self, node: Node, step: PendingStep) -> OrchestratorCollectorResult | None:
        """Run one node and set the next pending step; return the final result on STOP."""
        state = self._state
        agent = node.agent_type
        node_id = f"{agent.slug}-{state.next_seq:03d}"
        request, curated_ids = with_contexts(state.curated, node.request_model, step.request)
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
        fan_out: list[HeldAgent] = []
        context = self._context()
        if node.dispatches is not None:
            fan_out = await self._dispatch(node, node_id, request_entry, request, step.held)
            context += fan_out_context(node.dispatches, fan_out)
        output_id = self._context_id(agent)
        upstream = _upstream(request_entry, request, context)
        route: str | None = "interruptRequest"
        payload = self._lifted(node, fan_out, output_id, upstream)
        if payload is None:
            reply = await self._agent(
                node_id,
                agent,
                request,
                request_entry,
                context,
                output_id,
                step.interrupt_resolution,
            )
            payload, route = reply.output, reply.route
        routing = node.output_model.model_validate(payload)
        output = self._record(
            node_id,
            agent,
            EntryKind.OUTPUT,
            payload,
            route=route,
            upstream=upstream,
            context_id=output_id,
        )
        blackboard.remember_output(state, output)
        state.current = None
        if route != "interruptRequest":
            self._curate(agent, output, payload)
        agent_results = [a.result for a in fan_out if a.result is not None]
        decision = decide(agent, routing, output, state.history, agent_results)
        unanswered = state.stored_events.get(node_id)
        if unanswered is not None and decision.interrupt is None:
            del state.stored_events[node_id]
            self._event(
                EventKind.WARNING,
                f"{agent} finished without interrupting although event {unanswered.event_id} "
                f"asked it to; the event is dropped and the run continues at {decision.route}",
                node_id,
                agent,
            )
        if decision.failure is not None:
            self._fail(decision.failure, node_id, agent)
        if decision.final is not None:
            return decision.final
        if decision.interrupt is not None:
            await self._interrupt(node_id, decision.interrupt, fan_out)
        else:
            state.pending = decision.step
        return None

    async def _interrupt(
        self, node_id: str, request: InterruptRequestBase, fan_out: list[HeldAgent]
    ) -> None:
        """Hand the question to InterruptWorkflow; continue where its routing leads (FR-001).

        A dispatch node that resumes keeps its ``fan_out``: finished agents are not run again,
        and each agent that asked runs with its own part of the answer (spec 004 section 5).
        """
        state = self._state
        origin = origin_of(request, state.history)
        last = last_request_of(state.history, origin)
        if last is None or last.payload is None:
            self._fail(
                DegenerateLoop(
                    f"{origin} raised an interrupt but the blackboard holds no earlier request "
                    f"of {origin} to return to (degenerate loop)"
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
        decision = decide(origin, routing, entry, state.history)
        if decision.step is None:
            self._fail(
                InterruptFailed(f"interrupt {child_id} resolved to {decision.route}: no request"),
                node_id,
                origin,
            )
        target = decision.step.agent_type
        resumes = target is origin
        carried = last if resumes else last_request_of(state.history, target)
        state.pending = decision.step.model_copy(
            update={
                "request": resumed_request(
                    NODES[target].request_model,
                    carried.payload if carried is not None and carried.payload else {},
                    NODES[target].request_model.model_validate(decision.step.request),
                ),
                "interrupt_resolution": describe_resolution(request, outcome.resolution),
                "held": answer_each(request, outcome.resolution, fan_out)
                if resumes and fan_out
                else [],
            }
        )

    async def _dispatch(
        self,
        node: Node,
        node_id: str,
        parent: HistoryEntry,
        request: dict[str, Any],
        held: list[HeldAgent],
    ) -> list[HeldAgent]:
        """Run the fan-out in parallel: one dispatched agent per entry of ``request.requests``,
        except the ``held`` agents that finished or still wait for their answer."""
        if node.dispatches is None:
            self._fail(AgentFailed(f"{node.agent_type} dispatches no agent (a bug)"), node_id)
        child = NODES[node.dispatches]
        fan_out = plan_fan_out(child.agent_type, held, list(request.get("requests") or []))
        if not fan_out:
            self._event(EventKind.WARNING, f"{node.agent_type} got no agent requests", node_id)
        kept = [a.key for a in fan_out if not a.runs()]
        if kept:
            self._event(
                EventKind.INFO,
                f"{node.agent_type} keeps {', '.join(kept)} (finished, or waiting for an answer) "
                "and runs only the others",
                node_id,
            )
        running: dict[int, tuple[str, str, list[str]]] = {}
        calls = []
        for index, held_agent in enumerate(fan_out):
            if not held_agent.runs():
                continue
            sub, curated_ids = with_contexts(
                self._state.curated, child.request_model, held_agent.request
            )
            sub_id = f"{node_id}/{held_agent.key}"
            entry = self._record(
                sub_id,
                child.agent_type,
                EntryKind.REQUEST,
                sub,
                upstream=[parent.context_id, *curated_ids],
            )
            output_id = self._context_id(child.agent_type)
            context = self._context()
            running[index] = (sub_id, output_id, _upstream(entry, sub, context))
            calls.append(
                self._agent(
                    sub_id, child.agent_type, sub, entry, context, output_id, held_agent.answer
                )
            )
        replies = await asyncio.gather(*calls)
        for (index, (sub_id, output_id, upstream)), reply in zip(
            running.items(), replies, strict=True
        ):
            payload = reply.output
            routing = child.output_model.model_validate(payload)
            _, target, value = routing.chosen_route()
            output = self._record(
                sub_id,
                child.agent_type,
                EntryKind.OUTPUT,
                payload,
                route=reply.route,
                context_id=output_id,
                upstream=upstream,
            )
            blackboard.remember_output(self._state, output)
            asked = target is Terminal.INTERRUPT
            fan_out[index] = fan_out[index].model_copy(
                update={
                    "node_id": sub_id,
                    "result": None if asked else value,
                    "question": value if asked else None,
                    "answer": None,
                }
            )
        return fan_out

    def _lifted(
        self, node: Node, fan_out: list[HeldAgent], output_id: str, upstream: list[str]
    ) -> dict[str, Any] | None:
        """The dispatch node's output when its agents asked: their questions lifted into its own
        interrupt by the workflow, with no LLM call (spec 002 US4 scenario 2); else None."""
        question = lift(node.agent_type, fan_out) if node.dispatches is not None else None
        if question is None or node.dispatches is None:
            return None
        counts = self._state.interrupt_counts
        counts[node.dispatches] = counts.get(node.dispatches, 0) + 1
        summary = (
            f"{len(question.agent_questions)} of {len(fan_out)} agents asked; the workflow "
            "raises their questions"
        )
        return lifted_output(node.agent_type, question.to_wire(), summary, output_id, upstream)

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
        """One supervised agent call; a failure ends the run with the agent's message."""
        state = self._state
        call = AgentCall(
            node_id=node_id,
            agent_type=agent,
            result_id=result_id,
            goal=state.goal,
            request={k: v for k, v in request.items() if k != "goal"},
            upstream_context_ids=_upstream(request_entry, request, context),
            context=context,
            interrupt_resolution=interrupt_resolution,
            previous=blackboard.previous_attempt(state, agent, request_entry),
            interrupts_here=state.interrupt_counts.get(agent, 0),
            recent=blackboard.recent_digest(state),
            workspace=state.workspace,
        )
        try:
            reply = await self._calls.run(call, lambda: state.stored_events.get(node_id))
        except ActivityError as err:
            if workflow.cancellation_reason() is not None:
                raise  # the run is being cancelled: it ends cancelled, not failed
            text = failure_message(err)
            self._fail(AgentFailed(f"{agent} at {node_id} failed: {text}"), node_id, agent)
        for warning in reply.warnings:
            self._event(EventKind.WARNING, warning, node_id, agent)
        self._tool_calls[node_id] = reply.tool_trace
        return reply

    def _curate(self, agent: AgentType, output: HistoryEntry, payload: dict[str, Any]) -> None:
        """After a collector: derive its curated context and record it (spec 003 US3)."""
        context_id = self._context_id(agent)
        curated = curate(agent, payload, context_id)
        if curated is None:
            return
        field, context = curated
        setattr(self._state.curated, field, context)
        payload["collectorResult"]["derivedCurationIds"] = [context_id]
        self._record(
            output.node_id,
            agent,
            EntryKind.CONTEXT,
            context.to_wire(),
            upstream=[output.context_id],
            context_id=context_id,
        )

    def _context(self) -> list[ContextItem]:
        """Curated upstream context: recent results' summaries, with their context ids."""
        return [
            ContextItem(context_id=e.context_id, agent_type=e.agent_type, summary=e.summary)
            for e in self._state.history
            if e.kind is EntryKind.OUTPUT and "/" not in e.node_id
        ][-CONTEXT_WINDOW:]

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
        return blackboard.record(
            self._state,
            tool_calls=self._tool_calls.pop(node_id, []) if kind is EntryKind.OUTPUT else [],
            node_id=node_id,
            agent=agent,
            kind=kind,
            payload=payload,
            context_id=context_id or self._context_id(agent),
            at=workflow.now(),
            route=route,
            upstream=upstream or [],
        )

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


def _upstream(
    request_entry: HistoryEntry, request: dict[str, Any], context: list[ContextItem]
) -> list[str]:
    """What an agent call considered: its request, the curated contexts in it, the context items."""
    return [
        request_entry.context_id,
        *curated_ids_in(request),
        *(c.context_id for c in context),
    ]
