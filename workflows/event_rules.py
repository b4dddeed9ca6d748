"""Whether a supervisor's InterruptRequestEvent can be taken now, and by which node (handler
US3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_interrupts.models.agent_call import SUPERVISOR_MESSAGE_PREFIX
from agent_interrupts.models.agent_types import slug
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.state import OrchestratorState
from agent_interrupts.models.team import Team
from agent_interrupts.workflows.supervisor_events import SupervisorEvents


@dataclass(frozen=True)
class EventVerdict:
    """The node the event targets, or why it is not taken."""

    node_id: str | None
    problem: str | None = None


def unknown_agents(event: InterruptRequestEvent, team: Team) -> str | None:
    """Why ``event`` names an agent the run's team does not have (as its source) or cannot
    continue at (as its reroute target); None when it names none."""
    source, target = event.source_agent_type, event.reroute_to_agent_type
    if source not in team.nodes:
        return (
            f"sourceAgentType {source} is not an agent of team {team.name} (its agents: "
            f"{', '.join(team.nodes)})"
        )
    if target is not None and team.route_for(target) is None:
        allowed = ", ".join(sorted(team.route_targets()))
        return (
            f"rerouteToAgentType {target} is not a node the workflow can continue at; "
            f"use one of {allowed}"
        )
    return None


def check_event(
    state: OrchestratorState,
    event: InterruptRequestEvent,
    running_agents: Sequence[str] = (),
    *,
    team: Team,
) -> EventVerdict:
    """Apply the rules of handler US3 and its edge cases to ``event``.

    ``running_agents`` are the node ids of the dispatched agents whose calls run now
    (``ticket-dispatch-033/ticket-agent-2``): an event may target one of them, by its node id or
    by its agent type (the first one running), and only that call is redirected."""
    source = event.source_agent_type
    events = SupervisorEvents(state)
    if (problem := unknown_agents(event, team)) is not None:
        return EventVerdict(None, problem)
    if source in team.dispatched:
        return _check_dispatched(events, event, running_agents)
    if events.seen(event.event_id):
        return EventVerdict(None, f"event {event.event_id} was already processed; ignored")
    waiting = state.pending_interrupt
    if waiting is not None and (
        waiting.origin_agent_type == source or event.node_id in (None, waiting.workflow_id)
    ):
        return EventVerdict(
            None,
            f"interrupt {waiting.workflow_id} of {waiting.origin_agent_type} is already waiting "
            "for an answer; answer it first, then send the event to the node that runs next",
        )
    running = state.current
    if running is None or running.agent_type != source:
        now = f"{running.agent_type} ({running.node_id})" if running else "no agent"
        return EventVerdict(
            None, f"{source} is not running (running now: {now}); no message was sent"
        )
    if event.node_id is not None and event.node_id != running.node_id:
        return EventVerdict(
            None,
            f"node {event.node_id} is not running ({source} runs as {running.node_id}); "
            "no message was sent",
        )
    stored = events.waiting_at(running.node_id)
    if stored is not None:
        return EventVerdict(
            None,
            f"event {stored.event_id} is already pending for node {running.node_id}; "
            "only the first event for a node is processed",
        )
    return EventVerdict(running.node_id)


def _check_dispatched(
    events: SupervisorEvents, event: InterruptRequestEvent, running_agents: Sequence[str]
) -> EventVerdict:
    source = event.source_agent_type
    if events.seen(event.event_id):
        return EventVerdict(None, f"event {event.event_id} was already processed; ignored")
    prefix = f"/{slug(source)}-"
    candidates = [n for n in running_agents if prefix in n]
    if event.node_id is not None:
        candidates = [n for n in candidates if n == event.node_id]
    if not candidates:
        running = ", ".join(running_agents) or "none"
        wanted = event.node_id or str(source)
        return EventVerdict(
            None,
            f"{wanted} is not running (dispatched agents running now: {running}); "
            "no message was sent",
        )
    target = candidates[0]
    stored = events.waiting_at(target)
    if stored is not None:
        return EventVerdict(
            None,
            f"event {stored.event_id} is already pending for node {target}; "
            "only the first event for a node is processed",
        )
    return EventVerdict(target)


def supervisor_message(event: InterruptRequestEvent) -> str:
    """The user message that asks the running agent to interrupt (research R5 step 2)."""
    return (
        f"{SUPERVISOR_MESSAGE_PREFIX} {event.reason}\n"
        "Stop here: answer with your `interruptRequest` (and no route), explaining what you "
        "have done so far and what you need decided."
    )
