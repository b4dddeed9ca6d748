"""Context curation (agents US3): fill requests with the curated contexts they take, and derive
a curated context from each collector's result. Pure functions over the workflow's state."""

from __future__ import annotations

from typing import Any

from agent_interrupts.models.contexts import (
    TEAM_CONTEXTS_FIELD,
    CuratedContext,
    curate_team,
    curated_ids_in,
)
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.models.team import Team
from agent_interrupts.teams.software.contexts import (
    CONTEXT_FIELDS,
    SOFTWARE_CURATORS,
    CuratedContexts,
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
    carried = curated.carried()
    if TEAM_CONTEXTS_FIELD in model.model_fields and carried:
        update[TEAM_CONTEXTS_FIELD] = carried
    if not update:
        return request, []
    wire = model.model_validate(request).model_copy(update=update).to_wire()
    return wire, curated_ids_in(wire)


def curate(
    team: Team, agent: str, output: dict[str, Any], context_id: str
) -> CuratedContext | None:
    """A collector's curated context, else None: the software team's collectors' typed
    curation of their ``collectorResult``, or the fields ``team`` keeps of a declared
    collector's ``result``."""
    software = SOFTWARE_CURATORS.get(agent)
    if software is not None:
        result = output.get("collectorResult")
        return software(result, context_id) if isinstance(result, dict) else None
    fields = team.curated.get(agent)
    result = output.get("result")
    if fields is None or not isinstance(result, dict):
        return None
    return curate_team(agent, result, fields, context_id)
