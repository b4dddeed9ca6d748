"""The run book: the orchestrator's state and the bookkeeping every step does with it.

Recording blackboard entries and events, context ids, failing cleanly, curating a collector's
result, and calling an agent under supervision: the workflow class and its step modules
(``fan_out``, ``asking``) share one ``RunBook`` instead of reaching into each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from temporalio import workflow
from temporalio.exceptions import ActivityError

from agent_interrupts.models.agent_call import AgentCall, AgentReply, ContextItem
from agent_interrupts.models.agent_types import slug
from agent_interrupts.models.code import WorktreeRef
from agent_interrupts.models.contexts import curated_ids_in
from agent_interrupts.models.errors import (
    RESCUABLE_FAILURES,
    AgentFailed,
    AgentWorkflowError,
    failure_message,
    failure_type,
)
from agent_interrupts.models.graph import SOFTWARE_TEAM
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
    HistoryEntry,
    OrchestratorState,
)
from agent_interrupts.models.team import Team, TeamPin
from agent_interrupts.models.tools import ToolTrace
from agent_interrupts.workflows import blackboard
from agent_interrupts.workflows.curation import curate as derive_curation
from agent_interrupts.workflows.event_log import log_event, record_event
from agent_interrupts.workflows.legacy import upgrade_output
from agent_interrupts.workflows.patches import MODEL_FAILURES_ASK
from agent_interrupts.workflows.stuck_questions import stuck_question
from agent_interrupts.workflows.supervised_call import SupervisedCalls
from agent_interrupts.workflows.supervisor_events import SupervisorEvents

CONTEXT_WINDOW = 6
"""How many recent outputs an agent sees as curated upstream context."""


class RunBook:
    """The state a run carries, and the one place that writes to it."""

    def __init__(self, state: OrchestratorState, team: Team = SOFTWARE_TEAM) -> None:
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
        curated = derive_curation(agent, payload, context_id)
        if curated is None:
            return
        field, context = curated
        setattr(self.state.curated, field, context)
        payload["collectorResult"]["derivedCurationIds"] = [context_id]
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
        return stuck_question(agent, output_model, problem, earlier, self.team, ways_out=ways_out)

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
