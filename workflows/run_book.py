"""The run book: the orchestrator's state and the bookkeeping every step does with it.

Recording blackboard entries and events, context ids, failing cleanly, curating a collector's
result, and calling an agent under supervision: the workflow class and its step modules
(``fan_out``, ``asking``, ``code_changes`` ...) share one ``RunBook`` instead of reaching into
each other. Every write to the run's state is a named verb here (``set_pending``,
``node_running``, ``waiting_on`` ...; a supervisor's events: ``SupervisorEvents``); the other
modules read the state and call the verbs (``tests/workflows/test_state_owner.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from temporalio import workflow
from temporalio.exceptions import ActivityError

from agent_interrupts.models.agent_call import AgentCall, AgentReply, ContextItem
from agent_interrupts.models.agent_types import slug
from agent_interrupts.models.code import (
    MAX_RUN_TICKETS,
    AskedConflict,
    CodeState,
    MergeOutcome,
    TicketBranch,
    WorktreeRef,
)
from agent_interrupts.models.contexts import TeamContext, curated_ids_in
from agent_interrupts.models.errors import (
    RESCUABLE_FAILURES,
    AgentFailed,
    AgentWorkflowError,
    failure_message,
    failure_type,
)
from agent_interrupts.models.ids import make_context_id
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import (
    AGENT_OUTPUT_BYTES,
    AGENT_REQUEST_BYTES,
    clip,
    fit_strings,
    json_bytes,
)
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import (
    EntryKind,
    EventKind,
    GraphEvent,
    HandedOverQuestion,
    HistoryEntry,
    NodeRef,
    OrchestratorState,
    PendingInterrupt,
    PendingStep,
)
from agent_interrupts.models.team import Team, TeamPin
from agent_interrupts.models.tools import PinnedWorkspace, ToolTrace
from agent_interrupts.workflows import blackboard
from agent_interrupts.workflows.curation import curate as derive_curation
from agent_interrupts.workflows.event_log import log_event, record_event
from agent_interrupts.workflows.legacy import upgrade_output
from agent_interrupts.workflows.patches import MODEL_FAILURES_ASK, TEAM_CONTEXTS
from agent_interrupts.workflows.stuck_questions import stuck_question
from agent_interrupts.workflows.supervised_call import SupervisedCalls
from agent_interrupts.workflows.supervisor_events import SupervisorEvents

CONTEXT_WINDOW = 6
"""How many recent outputs an agent sees as curated upstream context."""


class RunBook:
    """The state a run carries, and the one place that writes to it."""

    def __init__(self, state: OrchestratorState, team: Team) -> None:
        self.state = state
        self.team = team
        """The team the run pinned at its start: every rule of the graph is read here."""
        self.calls = SupervisedCalls()
        self.supervisor = SupervisorEvents(state)
        """A supervisor's events, by the node each waits for: read and written only there."""
        self._tool_calls: dict[str, list[ToolTrace]] = {}
        """Each finished call's tool trace by node id, until its OUTPUT entry takes it."""

    async def call_agent(
        self,
        node_id: str,
        agent: str,
        request: dict[str, Any],
        request_entry: HistoryEntry,
        context: list[ContextItem],
        result_id: str,
        interrupt_resolution: str | None = None,
        worktree: WorktreeRef | None = None,
        output_tokens_factor: int = 1,
        model: str | None = None,
    ) -> AgentReply:
        """One supervised agent call; a failure ends the run with the agent's message."""
        state = self.state
        call = AgentCall(
            node_id=node_id,
            agent_type=agent,
            result_id=result_id,
            goal=state.goal,
            request=fit_strings(
                {k: v for k, v in request.items() if k != "goal"}, AGENT_REQUEST_BYTES
            ),
            upstream_context_ids=upstream_of(request_entry, request, context),
            context=context,
            interrupt_resolution=interrupt_resolution,
            previous=blackboard.previous_attempt(state, agent, request_entry),
            interrupts_here=state.interrupt_counts.get(agent, 0),
            agent_runs=dict(state.agent_runs),
            recent=blackboard.recent_digest(state),
            workspace=state.workspace,
            worktree=worktree,
            ask_when_stuck=not state.fail_on_invalid_replies,
            output_tokens_factor=output_tokens_factor,
            team=self.team_ref,
            model=model,
            memories_as_of=state.fork.point.at if state.fork is not None else None,
        )
        state.agent_runs[agent] = state.agent_runs.get(agent, 0) + 1
        try:
            reply = await self.calls.run(call, lambda: self.supervisor.waiting_at(node_id))
        except ActivityError as err:
            if workflow.cancellation_reason() is not None:
                raise  # the run is being cancelled: it ends cancelled, not failed
            text = failure_message(err)
            if (
                failure_type(err) in RESCUABLE_FAILURES
                and not state.fail_on_invalid_replies
                and workflow.patched(MODEL_FAILURES_ASK)
            ):  # a person rescues it at this node, as a stuck agent's question
                return AgentReply(output={}, route=None, stuck=f"the model call failed: {text}")
            self.fail(AgentFailed(f"{agent} at {node_id} failed: {text}"), node_id, agent)
        for warning in reply.warnings:
            self.event(EventKind.WARNING, warning, node_id, agent)
        upgraded = upgrade_output(agent, reply.output, self.team)
        output = fit_strings(upgraded, AGENT_OUTPUT_BYTES)
        if output is not upgraded:
            self.event(
                EventKind.WARNING,
                f"{agent}'s output is {json_bytes(upgraded):,} bytes: its longest texts are cut "
                f"to fit the run's {AGENT_OUTPUT_BYTES:,} bytes for one output (the activity's "
                "result in history keeps all of it)",
                node_id,
                agent,
            )
        reply = reply.model_copy(update={"output": output})
        self._tool_calls[node_id] = reply.tool_trace
        return reply

    def curate(self, agent: str, output: HistoryEntry, payload: dict[str, Any]) -> None:
        """After a collector: derive its curated context and record it (agents US3)."""
        context_id = self.context_id(agent)
        context = derive_curation(self.team, agent, payload, context_id)
        if context is None:
            return
        if isinstance(context, TeamContext):
            if not workflow.patched(TEAM_CONTEXTS):
                return
        else:
            payload["collectorResult"]["derivedCurationIds"] = [context_id]
        self.state.curated.keep(context)
        self.record(
            output.node_id,
            agent,
            EntryKind.CONTEXT,
            context.to_wire(),
            upstream=[output.context_id],
            context_id=context_id,
        )

    def stuck_question(
        self,
        agent: str,
        output_model: type[Routing],
        problem: str,
        node_id: str,
        ways_out: Sequence[str] | None = None,
    ) -> InterruptRequestBase:
        """``agent`` could not finish its step at ``node_id``: a WARNING event, the count of its
        stuck questions in the run, and the question for a person (another way out each time;
        ``ways_out``: the agents the run may continue at, offered as options)."""
        self.event(
            EventKind.WARNING,
            f"{agent} could not finish its step; a person is asked: {clip(problem)}",
            node_id,
            agent,
        )
        earlier = self.state.stuck_counts.get(agent, 0)
        self.state.stuck_counts[agent] = earlier + 1
        return stuck_question(
            agent, output_model, problem, earlier, team=self.team, ways_out=ways_out
        )

    @property
    def pinned_team(self) -> TeamPin | None:
        """What activities and questions are given of the team: None for the software team (its
        payloads keep their shape), else the pinned team itself."""
        return None if self.team.builtin else self.team.pin

    @property
    def team_ref(self) -> TeamPin | None:
        """What an agent call is given of the team: its name and content hash (None for the
        software team); the worker finds the team by them (``activities/teams.py``), so the
        team is in the run's history once, not in every call."""
        team = self.team
        return None if team.builtin else TeamPin(name=team.name, sha256=team.sha256)

    def context(self) -> list[ContextItem]:
        """Curated upstream context: recent results' summaries, with their context ids."""
        return [
            ContextItem(context_id=e.context_id, agent_type=e.agent_type, summary=e.summary)
            for e in self.state.history
            if e.kind is EntryKind.OUTPUT and "/" not in e.node_id
        ][-CONTEXT_WINDOW:]

    def next_node_id(self, agent: str) -> str:
        """The id the next node of ``agent`` gets (``ticket-dispatch-033``)."""
        return f"{slug(agent)}-{self.state.next_seq:03d}"

    def context_id(self, agent: str) -> str:
        state = self.state
        cid = make_context_id(
            workflow.info().first_execution_run_id, agent, state.next_seq, workflow.now()
        )
        state.next_seq += 1
        return cid

    def record(
        self,
        node_id: str,
        agent: str,
        kind: EntryKind,
        payload: dict[str, Any],
        *,
        route: str | None = None,
        upstream: list[str] | None = None,
        context_id: str | None = None,
        supervised: bool = False,
    ) -> HistoryEntry:
        return blackboard.record(
            self.state,
            tool_calls=self._tool_calls.pop(node_id, []) if kind is EntryKind.OUTPUT else [],
            node_id=node_id,
            agent=agent,
            kind=kind,
            payload=payload,
            context_id=context_id or self.context_id(agent),
            at=workflow.now(),
            route=route,
            upstream=upstream or [],
            supervised=supervised,
        )

    def event(
        self,
        kind: EventKind,
        message: str,
        node_id: str | None = None,
        agent: str | None = None,
    ) -> None:
        state = self.state
        event = GraphEvent(
            kind=kind, message=message, node_id=node_id, agent_type=agent, at=workflow.now()
        )
        state.events_recorded = record_event(state.events, state.events_recorded, event)
        log_event(event)

    # The run's state, written here alone: one verb for each thing a step changes.

    def team_pinned(self, pin: TeamPin, team: Team) -> None:
        """The run follows ``team`` (``pin``: as the worker read it): its first step is set."""
        state = self.state
        self.team = team
        state.team = pin
        state.phase = team.node(team.entry).phase
        state.pending = PendingStep(agent_type=team.entry, request=dict(team.entry_request))

    def workspace_pinned(self, workspace: PinnedWorkspace) -> None:
        """The run's workspace, pinned to a commit."""
        self.state.workspace = workspace

    def take_step(self) -> None:
        """One more agent step counts against the run's budget (maxSteps)."""
        self.state.steps_taken += 1

    def grant_steps(self, budget: int) -> None:
        """A person gave the run ``budget`` more steps from here."""
        state = self.state
        state.max_steps = state.steps_taken + budget

    def set_pending(self, step: PendingStep | None) -> None:
        """The next node to run (and the request it consumes)."""
        self.state.pending = step

    def node_running(self, node_id: str, agent: str, phase: str | None) -> NodeRef:
        """``agent`` runs at ``node_id``; ``phase`` (None: unchanged) is the run's phase now."""
        state = self.state
        state.current = NodeRef(node_id=node_id, agent_type=agent)
        if phase is not None:
            state.phase = phase
        return state.current

    def node_done(self) -> None:
        """No node runs (its output is recorded, or a question settled it)."""
        self.state.current = None

    def remember_output(self, entry: HistoryEntry) -> None:
        """``entry`` (an OUTPUT) is its agent type's latest, for the next attempt's prompt."""
        blackboard.remember_output(self.state, entry)

    def count_interrupt(self, agent: str) -> None:
        """``agent`` asked a question of its own (the loop breaker counts them per agent type;
        an entry of kind INTERRUPT is counted as it is recorded)."""
        counts = self.state.interrupt_counts
        counts[agent] = counts.get(agent, 0) + 1

    def number_question(self) -> int:
        """The number of the run's next question (its InterruptWorkflow's id ends in it)."""
        self.state.interrupts_started += 1
        return self.state.interrupts_started

    def waiting_on(self, question: PendingInterrupt | None) -> None:
        """The question the run waits on (status shows it); None: none."""
        self.state.pending_interrupt = question

    def hand_over(self, question: HandedOverQuestion | None) -> None:
        """The question the next run asks again (None: the run asked it again, it is taken)."""
        self.state.handed_over = question

    def leave_open(self, questions: list[HandedOverQuestion]) -> None:
        """A dispatch node's questions the next run asks again."""
        self.state.open_questions = questions

    def take_open_questions(self) -> list[HandedOverQuestion]:
        """The questions the run before left open, which the node asks again now."""
        state = self.state
        handed, state.open_questions = state.open_questions, []
        return handed

    def worktree_ready(self, worktree: WorktreeRef) -> None:
        """A ticket's worktree exists (a failed run keeps it; status lists its path)."""
        code = self.state.code
        code.repository = worktree.repository
        kept = [p for p in code.worktrees if p != worktree.path]
        code.worktrees = [*kept, worktree.path][-MAX_RUN_TICKETS:]

    def keep_tickets(self, tickets: list[TicketBranch]) -> None:
        """The ticket branches the merge takes (``code_changes.remember_ticket``'s list)."""
        self.state.code.tickets = tickets

    def merge_answered(self, code: CodeState) -> CodeState:
        """The run's code once a person answered its merge conflict
        (``code_changes.take_answer``); returns it."""
        self.state.code = code
        return code

    def merged(self, outcome: MergeOutcome) -> None:
        """The real merge's outcome: a conflict is asked (its ticket and files), else the file
        resolutions it applied are spent."""
        code = self.state.code
        code.merge = outcome.compact()
        if outcome.conflict_ticket is None:
            code.resolutions = {}
            return
        asked = [c.path for c in outcome.conflicts]
        code.asked = AskedConflict(
            ticket_id=outcome.conflict_ticket,
            paths=asked,
            more=max(outcome.conflict_count - len(asked), 0),
        )

    def worktrees_removed(self) -> None:
        """The run's worktrees are gone (it finished)."""
        self.state.code.worktrees = []

    def fail(
        self,
        error: AgentWorkflowError,
        node_id: str | None = None,
        agent: str | None = None,
    ) -> NoReturn:
        """Record an ERROR event and fail the run with a non-retryable error."""
        self.state.current = None
        self.event(EventKind.ERROR, str(error), node_id, agent)
        raise error.to_application_error()


def upstream_of(
    request_entry: HistoryEntry, request: dict[str, Any], context: list[ContextItem]
) -> list[str]:
    """What an agent call considered: its request, the curated contexts in it, the context items."""
    return [
        request_entry.context_id,
        *curated_ids_in(request),
        *(c.context_id for c in context),
    ]
