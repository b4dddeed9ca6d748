"""Curated, typed upstream contexts (agents US3, agents FR-012..015): what downstream agents get
instead of whole upstream results, each with its own context id and its source result id."""

from __future__ import annotations

from typing import Any

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.results import (
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


class CuratedContext(WireModel):
    """The Curation mixin: every curated context names itself and the result it came from."""

    context_id: str
    source_result_id: str


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


class CuratedContexts(WireModel):
    """The latest curated context of each phase, as the workflow holds them."""

    discovery_context: DiscoveryCollectorContext | None = None
    planning_context: PlanningCollectorContext | None = None
    ticket_context: TicketCollectorContext | None = None

    def ids(self) -> list[str]:
        return [
            c.context_id
            for c in (self.discovery_context, self.planning_context, self.ticket_context)
            if c is not None
        ]


CONTEXT_FIELDS = ("discovery_context", "planning_context", "ticket_context")
"""Request fields the workflow fills from CuratedContexts when a request declares them."""


def curated_ids_in(request: dict[str, Any]) -> list[str]:
    """Context ids of the curated contexts a request (camelCase JSON) carries."""
    keys = ("discoveryContext", "planningContext", "ticketContext")
    return [str(c["contextId"]) for k in keys if isinstance(c := request.get(k), dict)]
