"""Context curation (agents US3): fill requests with the curated contexts they take, and derive
a curated context from each collector's result. Pure functions over the workflow's state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_interrupts.models.agent_types import AgentType
from agent_interrupts.models.contexts import (
    CONTEXT_FIELDS,
    CuratedContext,
    CuratedContexts,
    curate_discovery,
    curate_planning,
    curate_tickets,
    curated_ids_in,
)
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.models.results import (
    DiscoveryCollectorResult,
    PlanningCollectorResult,
    TicketCollectorResult,
)


def with_contexts(
    curated: CuratedContexts, model: type[AgentRequest], request: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Fill the curated contexts ``model`` declares; return the request and their ids."""
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
    wire = model.model_validate(request).model_copy(update=update).to_wire()
    return wire, curated_ids_in(wire)


def curate(
    agent: str, output: dict[str, Any], context_id: str
) -> tuple[str, CuratedContext] | None:
    """A collector's curated context (field name on CuratedContexts, context), else None."""
    curator = _CURATORS.get(agent)
    result = output.get("collectorResult")
    if curator is None or not isinstance(result, dict):
        return None
    return curator(result, context_id)


_CURATORS: dict[str, Callable[[dict[str, Any], str], tuple[str, CuratedContext]]] = {
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
