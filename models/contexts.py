"""Curated, typed upstream contexts (agents US3, agents FR-012..015): what downstream agents get
instead of whole upstream results, each with its own context id and its source result id.

The software team's three collectors have typed curations of their own (``SOFTWARE_CURATORS``),
each in its own request field; any other team's collectors (role ``collector``) get a
``TeamContext``: the result fields the team names, capped, carried by every later request of the
team in its ``contexts`` field (``docs/teams.md``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import Field

from agent_interrupts.models.agent_types import AgentType
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.limits import (
    CURATED_CONTEXT_BYTES,
    MAX_REQUEST_CONTEXTS,
    fit_strings,
    json_bytes,
)
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


class TeamContext(CuratedContext):
    """A declared team's collector's curated context: the result fields its team names."""

    agent_type: str
    """The collector whose result it was curated from."""
    curation: dict[str, Any]
    """Those fields (camelCase, as the result has them), capped at ``CURATED_CONTEXT_BYTES``."""


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
TEAM_CONTEXTS_FIELD = "contexts"
"""The request field of a declared team's agents that carries its collectors' curated contexts
(filled by the workflow; a team may not declare a request field by this name)."""
_CONTEXT_KEYS = ("discoveryContext", "planningContext", "ticketContext")


def curated_in(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The curated contexts a request (camelCase JSON) carries, in its fields' order."""
    found = [c for k in _CONTEXT_KEYS if isinstance(c := request.get(k), dict)]
    team = request.get(TEAM_CONTEXTS_FIELD)
    if isinstance(team, list):
        found += [c for c in team if isinstance(c, dict) and "sourceResultId" in c]
    return [c for c in found if "contextId" in c]


def curated_ids_in(request: dict[str, Any]) -> list[str]:
    """Context ids of the curated contexts a request (camelCase JSON) carries."""
    return [str(c["contextId"]) for c in curated_in(request)]


def curate_team(
    agent: str, result: dict[str, Any], fields: Sequence[str], context_id: str
) -> TeamContext:
    """A declared collector's curated context: ``fields`` (JSON names) of its ``result``,
    capped at ``CURATED_CONTEXT_BYTES``."""
    chosen = {name: result[name] for name in fields if name in result}
    return TeamContext(
        context_id=context_id,
        source_result_id=str(result.get("resultId") or ""),
        agent_type=agent,
        curation=capped(chosen, CURATED_CONTEXT_BYTES),
    )


def capped(values: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """``values`` in at most ``max_bytes`` of compact JSON: the longest texts cut first
    (``fit_strings``), then the longest list loses its last item, then (lists empty) the last
    field goes, until it fits."""
    fitted: dict[str, Any] = fit_strings(values, max_bytes)
    if json_bytes(fitted) <= max_bytes:
        return fitted
    fitted = {k: list(v) if isinstance(v, list) else v for k, v in fitted.items()}
    sizes = {k: json_bytes(v) for k, v in fitted.items() if isinstance(v, list)}
    total = json_bytes(fitted)
    while fitted and total > max_bytes:  # sizes kept as they change: each step is cheap
        lists = [k for k in sizes if fitted[k]]
        if lists:
            longest = max(lists, key=sizes.__getitem__)
            item = fitted[longest].pop()
            lost = json_bytes(item) + (1 if fitted[longest] else 0)  # and its comma
            sizes[longest] -= lost
            total -= lost
        else:
            sizes.pop(last := next(reversed(fitted)), None)
            fitted.pop(last)
            total = json_bytes(fitted)
    return fitted


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
