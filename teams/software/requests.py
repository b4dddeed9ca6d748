"""The software team's requests: one request type per node (the routing contract's mapping table)
plus the dispatched agents' requests.

Fields wrapped in ``SkipJsonSchema`` are filled by the workflow, not by the model that routes.
"""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.code import MergeOutcome, TicketChange
from agent_interrupts.models.limits import MAX_FAN_OUT
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.teams.software.contexts import (
    DiscoveryCollectorContext,
    PlanningCollectorContext,
    TicketCollectorContext,
)
from agent_interrupts.teams.software.results import (
    DiscoveryAgentResult,
    PlannedTicket,
    PlanningAgentResult,
    TicketAgentResult,
)


class WithDiscovery(WireModel):
    """Takes the curated discovery context (filled by the workflow)."""

    discovery_context: SkipJsonSchema[DiscoveryCollectorContext | None] = None


class WithPlanning(WireModel):
    """Takes the curated planning context (filled by the workflow)."""

    planning_context: SkipJsonSchema[PlanningCollectorContext | None] = None


class WithTickets(WireModel):
    """Takes the curated ticket context (filled by the workflow)."""

    ticket_context: SkipJsonSchema[TicketCollectorContext | None] = None


class OrchestratorRequest(AgentRequest):
    phase: str


class DiscoveryOrchestratorRequest(AgentRequest):
    scope: str


class DiscoveryAgentRequest(AgentRequest):
    subdomain: str
    focus_questions: list[str]


class DiscoveryAgentRequests(AgentRequest):
    requests: list[DiscoveryAgentRequest] = Field(
        description=f"One request per discovery agent to run in parallel (1 to {MAX_FAN_OUT}).",
        json_schema_extra={"maxItems": MAX_FAN_OUT},
    )


class DiscoveryCollectorRequest(AgentRequest):
    agent_results: SkipJsonSchema[list[DiscoveryAgentResult]] = Field(default_factory=list)


class PlanningOrchestratorRequest(AgentRequest, WithDiscovery):
    planning_focus: str


class PlanningAgentRequest(AgentRequest, WithDiscovery):
    area: str


class PlanningAgentRequests(AgentRequest, WithDiscovery):
    requests: list[PlanningAgentRequest] = Field(
        description=f"One request per planning agent to run in parallel (1 to {MAX_FAN_OUT}).",
        json_schema_extra={"maxItems": MAX_FAN_OUT},
    )


class PlanningCollectorRequest(AgentRequest, WithDiscovery):
    agent_results: SkipJsonSchema[list[PlanningAgentResult]] = Field(default_factory=list)


class TicketOrchestratorRequest(AgentRequest, WithDiscovery, WithPlanning):
    implementation_scope: str


class TicketAgentRequest(AgentRequest, WithDiscovery, WithPlanning):
    ticket_id: str
    title: str
    ticket: SkipJsonSchema[PlannedTicket | None] = None
    """The planned ticket with this id, filled by the workflow from the planning context."""


class TicketAgentRequests(AgentRequest, WithDiscovery, WithPlanning):
    requests: list[TicketAgentRequest] = Field(
        description=f"One request per ticket agent to run in parallel (1 to {MAX_FAN_OUT}).",
        json_schema_extra={"maxItems": MAX_FAN_OUT},
    )


class TicketCollectorRequest(AgentRequest, WithDiscovery, WithPlanning):
    agent_results: SkipJsonSchema[list[TicketAgentResult]] = Field(default_factory=list)


class ReviewRequest(AgentRequest, WithDiscovery, WithPlanning, WithTickets):
    review_focus: str
    ticket_changes: SkipJsonSchema[list[TicketChange]] = Field(default_factory=list)
    """Each ticket's real diff (capped, with its stat) and test status (filled by the workflow)."""


class MergerRequest(AgentRequest, WithDiscovery, WithPlanning, WithTickets):
    merge_strategy: str
    merge_report: SkipJsonSchema[MergeOutcome | None] = None
    """The real merge of the ticket branches into the run branch (filled by the workflow)."""


class OrchestratorCollectorRequest(AgentRequest, WithDiscovery, WithPlanning, WithTickets):
    phase: str


class ContextManagerRoutingRequest(AgentRequest):
    what_to_find: str
