"""Agent results: versioned, with an id and the upstream context ids they used (spec 003)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from models.base import WireModel

SCHEMA_VERSION = "1.0"


class AgentResult(WireModel):
    """Base of every result. The id fields are stamped by the system, never written by the model."""

    schema_version: SkipJsonSchema[str] = SCHEMA_VERSION
    result_id: SkipJsonSchema[str] = ""
    upstream_context_ids: SkipJsonSchema[list[str]] = Field(default_factory=list)


class FileReference(WireModel):
    path: str
    lines: str
    relevance: str


class DiscoveryAgentResult(AgentResult):
    """One discovery agent's report on its subdomain."""

    subdomain: str
    summary: str
    findings: list[str]
    file_references: list[FileReference]
    needs_input: str | None = Field(
        description="A question only a person can answer, or null. The dispatch node raises it."
    )


class DiscoveryCollectorResult(AgentResult):
    summary: str
    recommendations: list[str]
    file_references: list[FileReference]


class PlannedTicket(WireModel):
    ticket_id: str
    title: str
    description: str
    dependencies: list[str]
    acceptance_criteria: list[str]


class PlanningAgentResult(AgentResult):
    area: str
    summary: str
    tickets: list[PlannedTicket]
    needs_input: str | None = Field(
        description="A question only a person can answer, or null. The dispatch node raises it."
    )


class PlanningCollectorResult(AgentResult):
    summary: str
    tickets: list[PlannedTicket]
    execution_order: list[str]


class TicketStatus(StrEnum):
    DONE = "DONE"
    PARTIAL = "PARTIAL"
    BLOCKED = "BLOCKED"


class TicketAgentResult(AgentResult):
    ticket_id: str
    summary: str
    files_changed: list[str]
    status: TicketStatus
    needs_input: str | None = Field(
        description="A question only a person can answer, or null. The dispatch node raises it."
    )


class TicketCollectorResult(AgentResult):
    summary: str
    completed_tickets: list[str]
    follow_ups: list[str]


class DispatchResult(AgentResult):
    """A dispatch node's account of the agents it ran."""

    summary: str


class ReviewResult(AgentResult):
    assessment: str
    approved: bool
    issues: list[str]


class MergerResult(AgentResult):
    summary: str
    conflicts: list[str]


class ContextManagerResult(AgentResult):
    """Context gathered for the agent that asked for it."""

    findings: list[str]
    summary: str


class OrchestratorCollectorResult(AgentResult):
    """The workflow's final result."""

    summary: str
    deliverables: list[str]
    phases_completed: list[str]
