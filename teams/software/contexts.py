"""The software team's curated contexts (agents US3, agents FR-012..015): each of its three
collectors' typed curation, in its own request field, and ``CuratedContexts``, the latest of each
as a run holds them (a declared team's ``TeamContext`` beside them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.contexts import CuratedContext, TeamContext
from agent_interrupts.models.limits import MAX_REQUEST_CONTEXTS
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.results import (
    ConsolidatedReference,
    DiscoveryCollectorResult,
    PlannedTicket,
    PlanningCollectorResult,
    QueryFinding,
    Recommendation,
    TicketCollectorResult,
)

KEY_REFERENCES = 10
"""How many of the most relevant file references a discovery curation keeps."""


class DiscoveryCuration(WireModel):
    summary: str
    recommendations: list[Recommendation]
    key_references: list[ConsolidatedReference]
    query_findings: list[QueryFinding]


class DiscoveryCollectorContext(CuratedContext):
    curation: DiscoveryCuration


class PlanningCuration(WireModel):
    summary: str
    tickets: list[PlannedTicket]
    execution_order: list[str]


class PlanningCollectorContext(CuratedContext):
    curation: PlanningCuration


class TicketCuration(WireModel):
    summary: str
    completed_tickets: list[str]
    failed_tickets: list[str]
    follow_ups: list[str]


class TicketCollectorContext(CuratedContext):
    curation: TicketCuration


def curate_discovery(
    result: DiscoveryCollectorResult, context_id: str
) -> DiscoveryCollectorContext:
    ranked = sorted(result.file_references, key=lambda r: (-r.relevance, r.path))
    check = result.reference_check
    invalid = {r.path for r in check.invalid} if check is not None else set()
    findings = [
        f.model_copy(update={"file_paths": [p for p in f.file_paths if p not in invalid]})
        for f in result.query_findings
    ]
    return DiscoveryCollectorContext(
        context_id=context_id,
        source_result_id=result.result_id,
        curation=DiscoveryCuration(
            summary=result.summary,
            recommendations=sorted(result.recommendations, key=lambda r: r.priority),
            key_references=ranked[:KEY_REFERENCES],
            query_findings=findings,
        ),
    )


def curate_planning(result: PlanningCollectorResult, context_id: str) -> PlanningCollectorContext:
    return PlanningCollectorContext(
        context_id=context_id,
        source_result_id=result.result_id,
        curation=PlanningCuration(
            summary=result.summary,
            tickets=result.tickets,
            execution_order=result.execution_order,
        ),
    )


def curate_tickets(result: TicketCollectorResult, context_id: str) -> TicketCollectorContext:
    return TicketCollectorContext(
        context_id=context_id,
        source_result_id=result.result_id,
        curation=TicketCuration(
            summary=result.summary,
            completed_tickets=result.completed_tickets,
            failed_tickets=result.failed_tickets,
            follow_ups=result.follow_ups,
        ),
    )


def _empty(value: object) -> bool:
    return not value


class CuratedContexts(WireModel):
    """The latest curated context of each phase, as the workflow holds them."""

    discovery_context: DiscoveryCollectorContext | None = None
    planning_context: PlanningCollectorContext | None = None
    ticket_context: TicketCollectorContext | None = None
    team_contexts: list[TeamContext] = Field(default_factory=list, exclude_if=_empty)
    """A declared team's: each collector's latest, oldest first (left out on the wire while
    there is none, so the software team's state keeps its shape)."""

    def ids(self) -> list[str]:
        return [
            c.context_id
            for c in (self.discovery_context, self.planning_context, self.ticket_context)
            if c is not None
        ] + [c.context_id for c in self.team_contexts]

    def keep(self, context: CuratedContext) -> None:
        """Hold ``context`` as its collector's latest (the software team's in its own field)."""
        if isinstance(context, TeamContext):
            self.team_contexts = [
                c for c in self.team_contexts if c.agent_type != context.agent_type
            ] + [context]
            return
        setattr(self, _FIELD_OF[type(context)], context)

    def carried(self) -> list[TeamContext]:
        """The declared team's contexts a request carries: the newest ``MAX_REQUEST_CONTEXTS``."""
        return self.team_contexts[-MAX_REQUEST_CONTEXTS:]


CONTEXT_FIELDS = ("discovery_context", "planning_context", "ticket_context")
"""Request fields the workflow fills from CuratedContexts when a request declares them."""
_FIELD_OF: dict[type[CuratedContext], str] = {
    DiscoveryCollectorContext: "discovery_context",
    PlanningCollectorContext: "planning_context",
    TicketCollectorContext: "ticket_context",
}
SOFTWARE_CURATORS: dict[str, Callable[[dict[str, Any], str], CuratedContext]] = {
    AgentType.DISCOVERY_COLLECTOR: lambda r, cid: curate_discovery(
        DiscoveryCollectorResult.model_validate(r), cid
    ),
    AgentType.PLANNING_COLLECTOR: lambda r, cid: curate_planning(
        PlanningCollectorResult.model_validate(r), cid
    ),
    AgentType.TICKET_COLLECTOR: lambda r, cid: curate_tickets(
        TicketCollectorResult.model_validate(r), cid
    ),
}
"""The software team's collectors, each curated by its own typed curation (its
``collectorResult``)."""

CURATED_BY: dict[str, str] = {
    "discoveryContext": AgentType.DISCOVERY_COLLECTOR,
    "planningContext": AgentType.PLANNING_COLLECTOR,
    "ticketContext": AgentType.TICKET_COLLECTOR,
}
"""The software team's curated contexts (the request field each arrives in) and the collector
that made each."""
