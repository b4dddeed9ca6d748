"""The software team's agents (as in FR-081's table), named once: the ``AgentType`` enum their
typed models are keyed by, and its two tables (dispatched agents, collected agents).

Loading it registers the names with ``models/agent_types.py`` (so ``AgentName`` decodes them to
these members) and fills in the agent fields of the base results (``models/results.py``): the
generic models import no team."""

from __future__ import annotations

from enum import StrEnum

from agent_interrupts.models import results
from agent_interrupts.models.agent_types import register_typed_agents, slug


class AgentType(StrEnum):
    """Every agent of the graph, named as in the spec."""

    ORCHESTRATOR = "ORCHESTRATOR"
    ORCHESTRATOR_COLLECTOR = "ORCHESTRATOR_COLLECTOR"
    DISCOVERY_ORCHESTRATOR = "DISCOVERY_ORCHESTRATOR"
    DISCOVERY_DISPATCH = "DISCOVERY_DISPATCH"
    DISCOVERY_AGENT = "DISCOVERY_AGENT"
    DISCOVERY_COLLECTOR = "DISCOVERY_COLLECTOR"
    PLANNING_ORCHESTRATOR = "PLANNING_ORCHESTRATOR"
    PLANNING_DISPATCH = "PLANNING_DISPATCH"
    PLANNING_AGENT = "PLANNING_AGENT"
    PLANNING_COLLECTOR = "PLANNING_COLLECTOR"
    TICKET_ORCHESTRATOR = "TICKET_ORCHESTRATOR"
    TICKET_DISPATCH = "TICKET_DISPATCH"
    TICKET_AGENT = "TICKET_AGENT"
    TICKET_COLLECTOR = "TICKET_COLLECTOR"
    REVIEW_AGENT = "REVIEW_AGENT"
    MERGER_AGENT = "MERGER_AGENT"
    CONTEXT_MANAGER = "CONTEXT_MANAGER"

    @property
    def slug(self) -> str:
        """Kebab-case name used in node ids and context ids (``discovery-collector``)."""
        return slug(self.value)


DISPATCHED_AGENTS: dict[str, str] = {
    AgentType.DISCOVERY_AGENT: AgentType.DISCOVERY_DISPATCH,
    AgentType.PLANNING_AGENT: AgentType.PLANNING_DISPATCH,
    AgentType.TICKET_AGENT: AgentType.TICKET_DISPATCH,
}
"""Dispatched agents and the dispatch node that raises their questions (handler US4)."""

COLLECTED_AGENTS: dict[str, str] = {
    AgentType.DISCOVERY_COLLECTOR: AgentType.DISCOVERY_AGENT,
    AgentType.PLANNING_COLLECTOR: AgentType.PLANNING_AGENT,
    AgentType.TICKET_COLLECTOR: AgentType.TICKET_AGENT,
}
"""Collectors and the dispatched agents whose results they consolidate."""

register_typed_agents(AgentType)
for _model in (
    results.Assignment,
    results.InputReference,
    results.Delegation,
    results.Consolidation,
):
    _model.model_rebuild(_types_namespace={"AgentType": AgentType})
