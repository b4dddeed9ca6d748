"""OrchestratorWorkflow: walks the agent graph, one agent activity per step.

The class is its loop, its handlers and its queries, and ``_run_node``, which says what one step
does. Decisions are pure functions beside it (``steps``, ``resume``, ``event_rules``, ``curation``,
``blackboard``, ``lifting``); the bookkeeping is ``run_book``; a dispatch node's fan-out is
``fan_out``; a question's round trip is ``asking``; the supervised agent call is
``supervised_call``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NoReturn

from pydantic import ValidationError
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ActivityError, ApplicationError

from agent_interrupts.models.agent_call import ContextItem
from agent_interrupts.models.errors import (
    DegenerateLoop,
    InvalidInput,
    Rejected,
    StepLimitExceeded,
    StoppedByPerson,
    UndecodablePayload,
    failure_message,
)
from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.fork_check import start_digest
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.ids import dispatched_agent_key
from agent_interrupts.models.interrupt_events import (
    INTERRUPT_REQUEST_EVENT_SIGNAL,
    EventAck,
    InterruptRequestEvent,
)
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import (
    AGENT_OUTPUT_BYTES,
    AGENT_REQUEST_BYTES,
    clip,
    fit_strings,
)
from agent_interrupts.models.resolution_rules import redirect_targets
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import (
    EntryKind,
    EventKind,
    HandedOverQuestion,
    HistoryEntry,
    HistoryPage,
    HistoryPageRequest,
    OrchestratorInput,
    OrchestratorState,
    OrchestratorStatus,
    PendingStep,
)
from agent_interrupts.models.team import Node
from agent_interrupts.models.team_build import TeamDefinitionError, TeamFinalResult, team_of
from agent_interrupts.models.team_spec import Role, declares_no_team
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.workflows import blackboard, code_changes
from agent_interrupts.workflows.asking import (
    QuestionHandedOver,
    ask,
    ask_again,
    ask_for_steps,
    settle_question,
)
from agent_interrupts.workflows.curation import with_contexts
from agent_interrupts.workflows.event_questions import question_from_event
from agent_interrupts.workflows.event_rules import EventVerdict, check_event, unknown_agents
from agent_interrupts.workflows.fan_out import (
    keep_late_event,
    lifted,
    question_while_agents_run,
    run_fan_out,
)
from agent_interrupts.workflows.fork_check import check_fork_link
from agent_interrupts.workflows.forks import forked_from
from agent_interrupts.workflows.handler_args import one_raw_payload, parse_raw, parse_values
from agent_interrupts.workflows.handler_list import list_named_handlers_only
from agent_interrupts.workflows.handover import history_is_long
from agent_interrupts.workflows.lifting import fan_out_context
from agent_interrupts.workflows.patches import (
    EVENT_ENDS_IN_QUESTION,
    EVENTS_ON_DISPATCH_NODES,
    EVENTS_ON_DISPATCHED_AGENTS,
    FORK_LINKS_CHECKED,
    STEP_BUDGET_ASKS,
    STUCK_WAYS_OUT,
)
from agent_interrupts.workflows.planner import last_request_of
from agent_interrupts.workflows.run_book import RunBook, upstream_of
from agent_interrupts.workflows.steps import decide
from agent_interrupts.workflows.stuck_questions import more_tokens
from agent_interrupts.workflows.teams import pin_team
from agent_interrupts.workflows.visibility import claim_attributes, show_orchestrator
from agent_interrupts.workflows.ways_out import Stop, chosen_way, request_for
from agent_interrupts.workflows.workspace import pin_workspace

CONTINUE_AS_NEW_STEPS = 500
"""Steps per run before continuing as new (sooner when the server suggests it)."""


@dataclass
class NodeStart:
    """A node that started: its id, its request (with its curated contexts) as recorded, and
    the context its agent sees (a dispatch node's grows by its agents' results)."""

    node_id: str
    request: dict[str, Any]
    entry: HistoryEntry
    context: list[ContextItem]


@dataclass(frozen=True)
class NodeOutput:
    """A node's output as recorded: the payload, its route, its routing and its entry."""

    payload: dict[str, Any]
    route: str | None
    routing: Routing
    output: HistoryEntry


@workflow.defn(failure_exception_types=[ValidationError, UndecodablePayload])
class OrchestratorWorkflow:
    """A goal in, the agent graph walked, the orchestrator collector's final result out."""

    @workflow.init
    def __init__(self, *args: Any) -> None:
        """Takes any start input; a missing or invalid one fails the run at once (``run``)."""
        list_named_handlers_only()
        parsed = parse_values("start input", args, OrchestratorInput, max_bytes=None)
        problem = parsed.problem
        forged = parsed.value is not None and parsed.value.carried_state is not None
        forked = parsed.value is not None and parsed.value.fork is not None
        if forged and not forked and workflow.info().continued_run_id is None:
            problem = (
                "carriedState is set by the workflow when it continues as new, or by a fork "
                "(agents fork), not by callers"
            )
        self._input_problem = problem
        self._input = (
            parsed.value
            if parsed.value is not None and problem is None
            else OrchestratorInput(goal="(no valid start input)")
        )
        input = self._input
        # a fork's first run: the digest of its start input, for its link's check (taken
        # before anything changes the state it carries)
        self._fork_digest = (
            start_digest(input)
            if input.fork is not None and workflow.info().continued_run_id is None
            else None
        )
        self._state = input.carried_state or OrchestratorState(
            goal=input.goal,
            max_steps=input.max_steps,
            interrupt_timeout_seconds=input.interrupt_timeout_seconds,
            on_interrupt_timeout=input.on_interrupt_timeout,
            fail_on_invalid_replies=input.fail_on_invalid_replies,
            fail_on_step_limit=input.fail_on_step_limit,
            question_gather_seconds=input.question_gather_seconds,
            shadow_answers=input.shadow_answers,
            controller_autonomy=input.controller_autonomy,
            step_budget=input.max_steps,
            pending=PendingStep(
                agent_type=SOFTWARE_TEAM.entry, request=dict(SOFTWARE_TEAM.entry_request)
            )
            if declares_no_team(input.team)
            else None,  # a declared team's first step is set once the run has pinned it
        )
        self._steps_at_start = self._state.steps_taken
        try:
            team = team_of(self._state.team)
        except TeamDefinitionError as err:  # pinned by an earlier version with looser rules
            team = SOFTWARE_TEAM
            self._input_problem = (
                self._input_problem or f"its pinned team cannot be followed: {err}"
            )
        self._book = RunBook(self._state, team)

    @workflow.run
    async def run(self, *args: Any) -> OrchestratorCollectorResult | TeamFinalResult:
        """Start input: one OrchestratorInput (``{"goal": "..."}``)."""
        if self._input_problem is not None:
            self._book.fail(
                InvalidInput(
                    f"{self._input_problem}. Start the workflow with one JSON object such as "
                    '{"goal": "add rate limiting to the gateway"}.'
                )
            )
        state = self._state
        if self._input.carried_state is None:
            self._book.event(EventKind.INFO, f"started with goal: {clip(state.goal)}")
        elif (fork := self._input.fork) is not None and workflow.info().continued_run_id is None:
            self._book.event(EventKind.INFO, forked_from(fork))
        if (
            self._input.fork is not None
            and self._fork_digest is not None
            and workflow.patched(FORK_LINKS_CHECKED)
        ):
            await check_fork_link(self._book, self._input.fork, self._fork_digest)
        if not declares_no_team(self._input.team) and state.team is None:
            await pin_team(self._book, self._input.team or "")
        if self._input.workspace is not None and state.workspace is None:
            try:
                pinned = await pin_workspace(self._input.workspace)
            except ActivityError as err:
                self._book.fail(
                    InvalidInput(f"the workspace was not pinned: {failure_message(err)}")
                )
            self._book.workspace_pinned(pinned)
            self._book.event(EventKind.INFO, f"workspace {pinned.source} pinned at {pinned.commit}")
        unlisted = await claim_attributes(state.phase)
        if unlisted is not None and self._input.carried_state is None:
            self._book.event(
                EventKind.WARNING,
                f"{unlisted}: this run's questions are not listed by `agents list --waiting` or "
                "the inbox (`agents list` names what to create)",
            )
        while True:
            if self._should_continue_as_new():
                await self._continue_as_new(f"continuing as new after {state.steps_taken} steps")
            if state.handed_over is not None:  # the run before continued as new while it waited
                await self._ask_again(state.handed_over)
                continue
            step = state.pending
            if step is None:
                self._book.fail(
                    DegenerateLoop("the run has no next step (a bug: please report it)")
                )
            if state.steps_taken >= state.max_steps:
                if (
                    state.fail_on_step_limit
                    or state.step_budget is None
                    or not workflow.patched(STEP_BUDGET_ASKS)
                ):
                    self._book.fail(
                        StepLimitExceeded(
                            f"the run took {state.steps_taken} agent steps without finishing, "
                            "the limit; it is probably looping. Start it again with a larger "
                            "maxSteps if the goal really needs more steps."
                        )
                    )
                await ask_for_steps(self._book, step, state.step_budget)
                continue
            self._book.take_step()
            try:
                result = await self._run_node(self._book.team.node(step.agent_type), step)
            except QuestionHandedOver as handed:
                await self._continue_as_new(str(handed))
            if result is not None:
                ended = (
                    "the orchestrator collector said STOP"
                    if isinstance(result, OrchestratorCollectorResult)
                    else f"{step.agent_type} ended the run with team {result.team}'s final result"
                )
                self._book.event(EventKind.INFO, f"finished: {ended}")
                return result

    @workflow.signal(
        name=INTERRUPT_REQUEST_EVENT_SIGNAL,
        description="A supervisor's InterruptRequestEvent (JSON, camelCase): interrupt the running "
        "agent, then continue at rerouteToAgentType; status shows what became of it.",
    )
    @one_raw_payload
    def interrupt_request_event(self, *args: object) -> None:
        """The InterruptRequestEvent JSON: any arity, size or encoding is taken; every problem
        becomes an event."""
        parsed = parse_raw(INTERRUPT_REQUEST_EVENT_SIGNAL, args, InterruptRequestEvent)
        problem = parsed.problem
        if parsed.value is not None:
            pinned = self._pinning() is None  # else the verdict says the team is not pinned yet
            problem = unknown_agents(parsed.value, self._book.team) if pinned else None
        if parsed.value is None or problem is not None:
            self._book.event(
                EventKind.ERROR, f"ignored a malformed InterruptRequestEvent: {problem}"
            )
            return
        event = parsed.value
        verdict = self._verdict(event)
        if (
            verdict.node_id is not None
            and "/" in verdict.node_id
            and not workflow.patched(EVENTS_ON_DISPATCHED_AGENTS)
        ):  # a run recorded before refused events on dispatched agents
            verdict = EventVerdict(None, f"{event.source_agent_type} is not running")
        if verdict.node_id is None:
            self._book.event(
                EventKind.INFO, f"InterruptRequestEvent {event.event_id}: {verdict.problem}"
            )
            return
        self._take_event(verdict.node_id, event)

    @workflow.signal(
        dynamic=True,
        description=f"Any other name is recorded as ignored; send "
        f"{INTERRUPT_REQUEST_EVENT_SIGNAL!r}.",
    )
    def unknown_signal(self, name: str, args: Sequence[RawValue]) -> None:
        """A signal of any other name: an ERROR event naming the one this workflow takes."""
        self._book.event(
            EventKind.ERROR,
            f"ignored unknown signal {clip(name, 60)!r}; this workflow takes "
            f"{INTERRUPT_REQUEST_EVENT_SIGNAL!r}",
        )

    @workflow.update(
        description="A supervisor's InterruptRequestEvent (JSON, camelCase), validated: accepted "
        "with the node it reached, or rejected with one line naming the problem."
    )
    @one_raw_payload
    def send_interrupt_event(self, *args: Any) -> EventAck:
        """The supervisor SDK's way to send an event: accepted, or rejected with the reason."""
        event = parse_raw("send_interrupt_event", args, InterruptRequestEvent).value
        verdict = self._verdict(event) if event is not None else None
        if event is None or verdict is None or verdict.node_id is None:
            raise ApplicationError("the event changed between validation and handling")
        what = self._take_event(verdict.node_id, event)
        return EventAck(accepted=True, node_id=verdict.node_id, message=what)

    @send_interrupt_event.validator
    @one_raw_payload
    def _check_event(self, *args: Any) -> None:
        parsed = parse_raw("send_interrupt_event", args, InterruptRequestEvent)
        if parsed.value is None:
            raise Rejected(f"event rejected: {parsed.problem}")
        verdict = self._verdict(parsed.value)
        if verdict.problem is not None:
            raise Rejected(f"event {clip(parsed.value.event_id)} rejected: {verdict.problem}")

    @workflow.query(
        description="The head of the run: phase, running node, pending interrupt, counters, "
        "the newest entries and events."
    )
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
            history=blackboard.status_entries(s),
            entries_recorded=s.entries_recorded,
            interrupt_counts=s.interrupt_counts,
            events=s.events,
            events_recorded=s.events_recorded,
            stored_events=s.stored_events,
            code=s.code if s.workspace is not None else None,
            team=self._book.pinned_team,
            fork=s.fork,
        )

    @workflow.query(
        description='Blackboard entries of this run from "start": {"start": 0, "limit": 100}.'
    )
    def history_page(self, *args: Any) -> HistoryPage:
        """Entries from ``start`` that this run holds (``{"start": 0, "limit": 100}``)."""
        parsed = parse_values("history_page", args or ({},), HistoryPageRequest)
        if parsed.value is None:
            raise Rejected(f"history_page: {parsed.problem}")
        return blackboard.page(self._state, parsed.value.start, parsed.value.limit)

    async def _continue_as_new(self, why: str) -> NoReturn:
        await workflow.wait_condition(workflow.all_handlers_finished)
        self._book.event(EventKind.INFO, why)
        workflow.continue_as_new(
            self._input.model_copy(update={"carried_state": blackboard.carried(self._state)})
        )

    async def _ask_again(self, handed_over: HandedOverQuestion) -> None:
        """Ask the question the run before handed over (``asking.settle_question``) and settle
        it as the step that asked it would have."""
        self._book.hand_over(None)
        started = await ask_again(self._book, handed_over)
        try:
            await settle_question(self._book, started, handed_over.fan_out)
        except QuestionHandedOver as handed:
            await self._continue_as_new(str(handed))
        keep_late_event(self._book, started.node_id)

    def _should_continue_as_new(self) -> bool:
        every = self._input.continue_as_new_every or CONTINUE_AS_NEW_STEPS
        taken = self._state.steps_taken - self._steps_at_start
        return history_is_long() or taken >= every

    def _pinning(self) -> str | None:
        """Why no event is taken yet: the run is still reading its declared team."""
        if declares_no_team(self._input.team) or self._state.team is not None:
            return None
        return f"the run is still pinning its team {self._input.team}; no agent runs yet"

    def _verdict(self, event: InterruptRequestEvent) -> EventVerdict:
        """Whether ``event`` is taken now, and by which node (a dispatched agent's, too)."""
        if (pinning := self._pinning()) is not None:
            return EventVerdict(None, pinning)
        return check_event(self._state, event, self._book.calls.running(), team=self._book.team)

    def _take_event(self, node_id: str, event: InterruptRequestEvent) -> str:
        """Store the event for the node and ask its running agent to interrupt (handler FR-008); at
        a dispatch node, every agent of its fan-out still running is cancelled and runs again
        with the message (finished ones keep their results). Says what happens."""
        self._book.supervisor.accept(node_id, event)
        agent = event.source_agent_type
        running = [n for n in self._book.calls.running() if n.startswith(f"{node_id}/")]
        if running and not workflow.patched(EVENTS_ON_DISPATCH_NODES):
            running = []  # a run recorded before let its agents finish first
        for sub_id in running:
            self._book.supervisor.also_at(sub_id, event)
            self._book.calls.redirect(sub_id)
        asked = (
            f"its running agents {', '.join(dispatched_agent_key(n) for n in running)} are "
            "cancelled and run again, asked to interrupt"
            if running
            else f"{agent} was asked to interrupt"
        )
        then = (
            f", then continue at {event.reroute_to_agent_type}"
            if event.reroute_to_agent_type
            else ""
        )
        self._book.event(
            EventKind.INFO,
            f"InterruptRequestEvent {event.event_id} accepted at {node_id}: {asked}{then}",
            node_id,
            agent,
        )
        self._book.calls.redirect(node_id)
        return f"{agent} at {node_id}: {asked}{then}"

    async def _run_node(
        self, node: Node, step: PendingStep
    ) -> OrchestratorCollectorResult | TeamFinalResult | None:
        """Run one node and set the next pending step; return the final result on STOP."""
        at = self._start_node(node, step)
        fan_out: list[HeldAgent] = []
        if node.dispatches is not None:
            end = await self._run_agents(node, step, at)
            if end is None:
                return None  # its agents' questions were answered, and the answer set the next step
            fan_out = end
        produced = await self._produce(node, step, at, fan_out)
        if produced is None:
            return None  # the model stayed invalid (or failed): a person was asked at this node
        if await self._ask_for_an_ignored_event(node, at, produced, fan_out):
            return None  # the agent ignored a supervisor's event: the workflow asked in its place
        return await self._follow(node, at, produced, fan_out)

    def _start_node(self, node: Node, step: PendingStep) -> NodeStart:
        """Record the node's request (with its curated contexts) and show it running."""
        state = self._state
        agent = node.agent_type
        node_id = self._book.next_node_id(agent)
        request, curated_ids = with_contexts(state.curated, node.request_model, step.request)
        entry = self._book.record(
            node_id,
            agent,
            EntryKind.REQUEST,
            request,
            upstream=[*step.upstream_context_ids, *curated_ids],
        )
        phase = None if self._book.team.role(agent) is Role.CONTEXT_MANAGER else node.phase
        running = self._book.node_running(node_id, agent, phase)
        show_orchestrator(state.phase, running, None)
        return NodeStart(node_id, request, entry, self._book.context())

    async def _run_agents(
        self, node: Node, step: PendingStep, at: NodeStart
    ) -> list[HeldAgent] | None:
        """A dispatch node's agents (``fan_out``): their fan-out once every agent has its
        result (their results join the node's context); None when an answer to their questions
        set the next step (or, in runs recorded before, the question asked while they ran)."""
        book = self._book
        ask_now = partial(
            question_while_agents_run, book, node, at.node_id, at.entry, at.request, at.context
        )
        end = await run_fan_out(book, node, at.node_id, at.entry, at.request, step, ask_now)
        if end.question is not None:  # runs recorded before: settled after the fan-out
            book.node_done()
            await settle_question(book, end.question, end.fan_out)
        if end.question is not None or end.left:
            book.node_done()
            keep_late_event(book, at.node_id)
            return None
        if node.dispatches is not None:
            at.context += fan_out_context(node.dispatches, end.fan_out)
        return end.fan_out

    async def _produce(
        self, node: Node, step: PendingStep, at: NodeStart, fan_out: list[HeldAgent]
    ) -> NodeOutput | None:
        """The node's output, recorded: the workflow's own question (a merge conflict, its
        agents' questions lifted) or its agent's reply; None when the model stayed invalid and a
        person was asked instead."""
        state, book, agent = self._state, self._book, node.agent_type
        output_id = book.context_id(agent)
        upstream = upstream_of(at.entry, at.request, at.context)
        route: str | None = "interruptRequest"
        git = await code_changes.before_call(
            book, agent, at.node_id, at.request, step, output_id, upstream
        )
        payload = git.question or lifted(book, node, fan_out, output_id, upstream)
        if payload is not None:  # its agents' questions, gathered: up to MAX_FAN_OUT of them
            payload = fit_strings(payload, AGENT_OUTPUT_BYTES)
        if payload is None:
            tokens = more_tokens(step.resolution, step.output_tokens_factor)
            reply = await book.call_agent(
                at.node_id,
                agent,
                git.request,
                at.entry,
                at.context,
                output_id,
                step.interrupt_resolution,
                output_tokens_factor=tokens,
                model=step.model,
            )
            if reply.stuck is not None:  # the model stays invalid: a person decides
                ways = self._ways_on(agent) if workflow.patched(STUCK_WAYS_OUT) else None
                stuck = book.stuck_question(agent, node.output_model, reply.stuck, at.node_id, ways)
                await ask(book, at.node_id, (agent, at.request), stuck, fan_out, person_only=True)
                if ways is not None:
                    self._take_way_out(agent, at.node_id, stuck, ways)
                resumed = state.pending
                if resumed is not None and resumed.agent_type == agent:  # doubled again later?
                    book.set_pending(resumed.model_copy(update={"output_tokens_factor": tokens}))
                return None
            payload = code_changes.after_call(git, state.code, reply.output)
            route = reply.route
        routing = node.output_model.model_validate(payload)
        output = book.record(
            at.node_id,
            agent,
            EntryKind.OUTPUT,
            payload,
            route=route,
            upstream=upstream,
            context_id=output_id,
        )
        book.remember_output(output)
        book.node_done()
        return NodeOutput(payload, route, routing, output)

    def _ways_on(self, agent: str) -> list[str]:
        """The agents a stuck ``agent``'s question may send the run on to: its routes' agents
        (``redirect_targets``) for which a request can be made (their last one, else blanks)."""
        book = self._book
        team = book.team
        found = []
        for target in redirect_targets(agent, team):
            last = last_request_of(self._state.history, target)
            model = team.node(target).request_model
            if request_for(model, last.payload if last else None, "-") is not None:
                found.append(target)
        return found

    def _take_way_out(
        self, agent: str, node_id: str, question: InterruptRequestBase, targets: list[str]
    ) -> None:
        """Act on the way out the answer to ``agent``'s stuck ``question`` took: stop the run, or
        set the step of the agent it continues at (else the agent runs again, as answered)."""
        state, book = self._state, self._book
        answered = state.pending
        way = chosen_way(agent, question, answered.resolution if answered else None, targets)
        if isinstance(way, Stop):
            book.fail(
                StoppedByPerson(
                    f"{way.who} stopped the run at {agent}, which could not finish its step: "
                    f"{clip(way.why, 1_000)}"
                ),
                node_id,
                agent,
            )
        if way is None:
            return
        last = last_request_of(state.history, way.target)
        model = book.team.node(way.target).request_model
        request = request_for(model, last.payload if last else None, way.guidance)
        if request is None:  # cannot be: the option is offered only when it can
            return
        how = "answered in its place" if way.in_place else "skipped it"
        book.event(
            EventKind.INFO,
            f"{agent} could not finish its step; the answer {how}: the run continues at "
            f"{way.target}",
            node_id,
            agent,
        )
        book.set_pending(
            PendingStep(
                agent_type=way.target,
                request=fit_strings(request, AGENT_REQUEST_BYTES),
                upstream_context_ids=answered.upstream_context_ids if answered else [],
            )
        )

    async def _ask_for_an_ignored_event(
        self, node: Node, at: NodeStart, produced: NodeOutput, fan_out: list[HeldAgent]
    ) -> bool:
        """An accepted event is a promise: when the agent answered without interrupting, the
        workflow asks in its place (True); runs recorded before went on (``_follow``)."""
        agent = node.agent_type
        unanswered = self._book.supervisor.waiting_at(at.node_id)
        if (
            unanswered is None
            or produced.route == "interruptRequest"
            or not workflow.patched(EVENT_ENDS_IN_QUESTION)
        ):
            return False
        self._book.event(
            EventKind.WARNING,
            f"{agent} did not interrupt although event {unanswered.event_id} asked it to; "
            "the workflow asks in its place, its reply is kept and not acted on",
            at.node_id,
            agent,
        )
        question = question_from_event(agent, unanswered, produced.payload, self._book.team)
        await ask(self._book, at.node_id, (agent, at.request), question, fan_out)
        return True

    async def _follow(
        self, node: Node, at: NodeStart, produced: NodeOutput, fan_out: list[HeldAgent]
    ) -> OrchestratorCollectorResult | TeamFinalResult | None:
        """Act on the node's output: curate a collector's result, then fail, finish, ask its
        question, or set the next step."""
        state, book, agent = self._state, self._book, node.agent_type
        if produced.route != "interruptRequest":
            book.curate(agent, produced.output, produced.payload)
        agent_results = [a.result for a in fan_out if a.result is not None]
        decision = decide(
            agent, produced.routing, produced.output, state.history, agent_results, team=book.team
        )
        unanswered = book.supervisor.waiting_at(at.node_id)
        if unanswered is not None and decision.interrupt is None:  # runs recorded before
            book.supervisor.take(at.node_id)
            book.event(
                EventKind.WARNING,
                f"{agent} finished without interrupting although event {unanswered.event_id} "
                f"asked it to; the event is dropped and the run continues at {decision.route}",
                at.node_id,
                agent,
            )
        if decision.failure is not None:
            book.fail(decision.failure, at.node_id, agent)
        if isinstance(decision.final, OrchestratorCollectorResult):
            return await code_changes.finish(book, decision.final)
        if decision.final is not None:  # a declared team's final result
            team = book.team
            return TeamFinalResult(
                team=team.name,
                team_sha256=team.sha256,
                result=decision.final.to_wire(),
                code_change=await code_changes.finish_code(book),
            )
        if decision.interrupt is not None:
            await ask(book, at.node_id, (agent, at.request), decision.interrupt, fan_out)
        else:
            book.set_pending(decision.step)
        return None
