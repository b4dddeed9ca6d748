"""The routing planner: a pure function from the last routing to the next step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_interrupts.models.agent_types import RouteTarget
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import EntryKind, HistoryEntry
from agent_interrupts.models.team import Team


@dataclass(frozen=True)
class NextStep:
    """The one non-null route of a routing: its field, where it leads, and its value."""

    route: str
    target: RouteTarget
    value: Any


def next_step(routing: Routing) -> NextStep:
    """Last routing -> its one non-null route field -> next node (BlackboardRoutingPlanner)."""
    route, target, value = routing.chosen_route()
    return NextStep(route=route, target=target, value=value)


def last_request(
    history: list[HistoryEntry], *, exclude: frozenset[str] = frozenset()
) -> HistoryEntry | None:
    """The most recent REQUEST entry whose agent is not excluded."""
    for entry in reversed(history):
        if entry.kind is EntryKind.REQUEST and entry.agent_type not in exclude:
            return entry
    return None


def last_request_of(history: list[HistoryEntry], agent_type: str) -> HistoryEntry | None:
    """The most recent request the given agent consumed (handler FR-002)."""
    for entry in reversed(history):
        if entry.kind is EntryKind.REQUEST and entry.agent_type == agent_type:
            return entry
    return None


def return_target(history: list[HistoryEntry], team: Team) -> HistoryEntry | None:
    """Where the context manager hands back to: the last request that was not its own."""
    return last_request(history, exclude=team.not_returnable())


def origin_of(request: InterruptRequestBase, history: list[HistoryEntry], team: Team) -> str:
    """Who asked: the request's subtype (research R6); else the last request in history
    (handler FR-002).

    A dispatched agent's question belongs to its dispatch node (handler US4, handler FR-010).
    """
    origin = getattr(request, "origin", None)
    if not isinstance(origin, str) or origin not in team.nodes:
        last = last_request(history, exclude=team.not_returnable())
        if last is None:
            raise ValueError("an interrupt with no origin and an empty blackboard")
        origin = last.agent_type
    return team.asker(origin)
