"""The software team's results: what each of its agents returns, and the records only they use.
The base results are ``models/results.py``'s."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.results import (
    AgentResult,
    CodeChange,
    CommitInfo,
    Consolidation,
    DispatchedResult,
    FileReference,
    MergeConflict,
    TeamAgentResult,
    TestOutcome,
    VerificationStatus,
)

# --- building blocks -----------------------------------------------------------------------


class CrossLink(WireModel):
    """A relation between two findings (by their text or file path)."""

    source: str
    target: str
    relation: str


class DiagramEdge(WireModel):
    source: str
    target: str
    label: str


class Diagram(WireModel):
    """A diagram as structured data: named nodes and labelled edges."""

    title: str
    nodes: list[str]
    edges: list[DiagramEdge]


# --- discovery ------------------------------------------------------------------------------


MIN_DISCOVERY_TAGS, MIN_GENERATED_QUERIES, MIN_FILE_REFERENCES = 5, 3, 10
"""SC-011: a discovery report has at least 5 tags, 3 generated queries and 10 file references.
The schema a model is held to says so (``minItems``, in every profile); the model validates
without them, so results recorded with fewer still replay, and ``agents stats`` counts them."""


def _at_least(count: int) -> Any:
    """A list field's minimum in the schema a model writes to, never in validation."""
    return Field(json_schema_extra={"minItems": count})


class DiscoveryAgentResult(DispatchedResult):
    """One discovery agent's report on its subdomain (FR-030..036)."""

    subdomain: str
    summary: str
    findings: list[str]
    file_references: list[FileReference] = _at_least(MIN_FILE_REFERENCES)
    cross_links: list[CrossLink]
    tags: list[str] = _at_least(MIN_DISCOVERY_TAGS)
    generated_queries: list[str] = _at_least(MIN_GENERATED_QUERIES)
    diagrams: list[Diagram]


class Recommendation(WireModel):
    priority: int = Field(description="1 is the most urgent")
    action: str
    rationale: str


class QueryFinding(WireModel):
    query: str
    finding: str
    file_paths: list[str]


class ConsolidatedReference(WireModel):
    """A file reference seen by one or more agents, with aggregated relevance."""

    path: str
    start_line: int
    end_line: int
    relevance: float
    sources: list[str] = Field(description="result ids of the reports that cited it")


class DiscoveryCollectorResult(Consolidation):
    """FR-037..045: recommendations, query findings, unified diagram, deduplicated references."""

    summary: str
    recommendations: list[Recommendation]
    query_findings: list[QueryFinding]
    architecture_diagram: Diagram
    file_references: SkipJsonSchema[list[ConsolidatedReference]] = Field(default_factory=list)
    cross_links: SkipJsonSchema[list[CrossLink]] = Field(default_factory=list)


# --- planning -------------------------------------------------------------------------------


class Effort(StrEnum):
    S = "S"
    M = "M"
    L = "L"


class PlannedTicket(WireModel):
    """FR-050..053."""

    ticket_id: str
    title: str
    description: str
    tasks: list[str]
    dependencies: list[str] = Field(description="ticketIds this ticket needs done first")
    acceptance_criteria: list[str]
    effort: Effort
    discovery_links: SkipJsonSchema[list[str]] = Field(default_factory=list)


class PlanningAgentResult(DispatchedResult):
    area: str
    summary: str
    tickets: list[PlannedTicket]


class PlanningCollectorResult(Consolidation):
    """FR-054..058: the dependency graph and execution order are computed, not written."""

    summary: str
    tickets: list[PlannedTicket]
    dependency_graph: SkipJsonSchema[list[DiagramEdge]] = Field(default_factory=list)
    execution_order: SkipJsonSchema[list[str]] = Field(default_factory=list)
    unresolved_dependencies: SkipJsonSchema[list[str]] = Field(default_factory=list)
    discovery_reference: SkipJsonSchema[str | None] = None


# --- tickets --------------------------------------------------------------------------------


class TicketAgentResult(DispatchedResult):
    """FR-063..066."""

    ticket_id: str
    implementation_summary: str
    files_modified: list[str]
    test_results: list[TestOutcome]
    commit: CommitInfo
    verification_status: VerificationStatus
    discovery_reference: SkipJsonSchema[str | None] = None
    planning_reference: SkipJsonSchema[str | None] = None
    diff_stat: SkipJsonSchema[str | None] = None
    """``git diff --stat`` of the ticket's commit (the diff itself is in the commit activity's
    result in history)."""


DispatchedAgentResult = (
    DiscoveryAgentResult | PlanningAgentResult | TicketAgentResult | TeamAgentResult
)
"""What a dispatched agent returns when it finishes (told apart by their fields)."""


class TicketCollectorResult(Consolidation):
    """FR-067..071."""

    summary: str
    completed_tickets: list[str]
    failed_tickets: list[str]
    follow_ups: list[str]


# --- review, merge, context, final ----------------------------------------------------------


class AssessmentStatus(StrEnum):
    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"


class ReviewFinding(WireModel):
    """A review comment on lines of a ticket's diff."""

    path: str = Field(description="A file the diff changes.")
    start_line: int = Field(description="First line, in the file's new version.")
    end_line: int
    note: str
    valid: SkipJsonSchema[bool] = True
    """False when the path or lines are not part of any reviewed diff."""


class ReviewResult(AgentResult):
    """ReviewEvaluation (FR-075..077)."""

    assessment_status: AssessmentStatus
    feedback: str
    suggestions: list[str]
    findings: list[ReviewFinding] = Field(
        default_factory=list,
        description="Comments on lines of the diffs you reviewed (path and new line numbers).",
    )
    reviewed_context_ids: SkipJsonSchema[list[str]] = Field(default_factory=list)


class MergerResult(AgentResult):
    """MergerValidation (FR-078..080)."""

    acceptable: bool
    summary: str
    conflicts: list[MergeConflict]
    merged_context_ids: SkipJsonSchema[list[str]] = Field(default_factory=list)
    code_change: SkipJsonSchema[CodeChange | None] = None
    """The real merge: set from git, replacing what the model claims."""


class ContextManagerResult(AgentResult):
    """Context gathered for the agent that asked for it."""

    findings: list[str]
    summary: str


class OrchestratorCollectorResult(Consolidation):
    """The workflow's final result, with the phase decision and the full context chain."""

    summary: str
    deliverables: list[str]
    phases_completed: list[str]
    code_change: SkipJsonSchema[CodeChange | None] = None
    """The run branch with the merged tickets, when the run changed code."""
