"""One request type per node (spec 000's mapping table) plus the dispatched agents' requests.

Fields wrapped in ``SkipJsonSchema`` are filled by the workflow, not by the model that routes.
"""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from models.base import WireModel
from models.results import DiscoveryAgentResult, PlanningAgentResult, TicketAgentResult


class AgentRequest(WireModel):
    """Base of every request. ``guidance`` carries instructions and any decisions a person made."""

    goal: SkipJsonSchema[str] = ""
    guidance: str = Field(
        description="What the next agent must do, including every decision a person made."
    )


class OrchestratorRequest(AgentRequest):
    phase: str


class DiscoveryOrchestratorRequest(AgentRequest):
    scope: str


class DiscoveryAgentRequest(AgentRequest):
    subdomain: str
    focus_questions: list[str]


class DiscoveryAgentRequests(AgentRequest):
    requests: list[DiscoveryAgentRequest] = Field(
        description="One request per discovery agent to run in parallel (1 to 4)."
    )


class DiscoveryCollectorRequest(AgentRequest):
    agent_results: SkipJsonSchema[list[DiscoveryAgentResult]] = Field(default_factory=list)


class PlanningOrchestratorRequest(AgentRequest):
    planning_focus: str


class PlanningAgentRequest(AgentRequest):
    area: str


class PlanningAgentRequests(AgentRequest):
    requests: list[PlanningAgentRequest] = Field(
        description="One request per planning agent to run in parallel (1 to 4)."
    )


class PlanningCollectorRequest(AgentRequest):
    agent_results: SkipJsonSchema[list[PlanningAgentResult]] = Field(default_factory=list)


class TicketOrchestratorRequest(AgentRequest):
    implementation_scope: str


class TicketAgentRequest(AgentRequest):
    ticket_id: str
    title: str


class TicketAgentRequests(AgentRequest):
    requests: list[TicketAgentRequest] = Field(
        description="One request per ticket agent to run in parallel (1 to 4)."
    )


class TicketCollectorRequest(AgentRequest):
    agent_results: SkipJsonSchema[list[TicketAgentResult]] = Field(default_factory=list)


class ReviewRequest(AgentRequest):
    review_focus: str


class MergerRequest(AgentRequest):
    merge_strategy: str


class OrchestratorCollectorRequest(AgentRequest):
    phase: str


class ContextManagerRoutingRequest(AgentRequest):
    what_to_find: str
