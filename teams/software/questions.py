"""The software team's typed questions (US19-22, FR-081, FR-103..108): one interrupt request per
agent, with its agent-specific fields and the records only they use, and the sealed unions the
interrupt workflow decodes them by (``AnyInterruptRequest``, ``DispatchedAgentInterruptRequest``).

Loading it fills in ``AgentQuestion``'s union (``models/interrupts.py``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupts import (
    TEAM_TAG,
    AgentQuestion,
    DispatchInterruptRequest,
    InterruptRequestBase,
    TeamInterruptRequest,
)
from agent_interrupts.models.results import FileReference, VerificationStatus
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.results import AssessmentStatus, Recommendation


def _origin(agent: str) -> Any:
    return Field(default=agent, description="Set by the system, never by the model.")


# --- typed items of the agent-specific fields (US24-US41) -------------------------------------


class PhaseDecision(StrEnum):
    ADVANCE_PHASE = "ADVANCE_PHASE"
    ROUTE_BACK = "ROUTE_BACK"
    STOP = "STOP"


class Severity(StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


class CollectorSummary(WireModel):
    phase: str = Field(description="The phase the collector closed (DISCOVERY, PLANNING ...).")
    result_id: str = Field(description="The collector result's context id.")
    summary: str = Field(description="What it concluded, in one sentence.")


class ProposedSubdomain(WireModel):
    name: str = Field(description="The subdomain: a module, a layer or a concern.")
    focus: str = Field(description="What its discovery agent should find out.")
    rationale: str = Field(description="Why it is a subdomain of its own.")


class BoundaryDecision(WireModel):
    path: str = Field(description="The file or directory the boundary runs through.")
    boundary: str = Field(description="Where the subdomain starts or ends here, and why.")


class SubdomainBoundary(WireModel):
    subdomain: str = Field(description="The subdomain.")
    paths: list[str] = Field(description="The files and directories inside it.")
    rationale: str = Field(description="Why the boundary is drawn here and what it leaves out.")


class ProposedTicket(WireModel):
    ticket_id: str = Field(description="A unique id such as T-001.")
    title: str = Field(description="What the ticket delivers, in a few words.")
    description: str = Field(description="The change, and how to tell it is done.")
    dependencies: list[str] = Field(description="ticketIds this ticket needs done first.")
    discovery_links: list[str] = Field(
        description="Context ids or file paths of the discovery findings it builds on."
    )


class ArchitectureDecision(WireModel):
    decision: str = Field(description="The decision, e.g. one token bucket per client in Redis.")
    alternatives: list[str] = Field(description="The alternatives you weighed.")
    implications: str = Field(description="What it changes for the implementation and tickets.")


class DependencyConflict(WireModel):
    ticket_id: str = Field(description="The ticket whose dependencies conflict.")
    depends_on: list[str] = Field(description="The ticketIds involved.")
    problem: str = Field(description="The conflict: a cycle, a missing ticket, a shared change.")


class ScopedTicket(WireModel):
    ticket_id: str = Field(description="The planned ticket.")
    priority: int = Field(description="1 is implemented first.")
    in_scope: bool = Field(description="Whether it is part of this implementation round.")


class FileChange(WireModel):
    path: str = Field(description="The file.")
    change: str = Field(description="What changes in it and why.")


class PlannedTest(WireModel):
    test: str = Field(description="The test or test suite.")
    covers: str = Field(description="The behaviour or risk it covers.")


class ImplementationApproach(WireModel):
    approach: str = Field(description="The approach in one sentence.")
    trade_offs: str = Field(description="What it costs and what it buys.")


class TicketCompletion(WireModel):
    ticket_id: str = Field(description="The ticket.")
    status: VerificationStatus = Field(description="VERIFIED, PARTIAL or FAILED.")
    note: str = Field(description="What is done and what is missing.")


class AssessmentFinding(WireModel):
    finding: str = Field(description="What the review found.")
    severity: Severity = Field(description="LOW, MEDIUM or HIGH.")


class ConflictFile(WireModel):
    path: str = Field(description="The conflicting file.")
    diff_summary: str = Field(description="What each side changed, in one or two sentences.")


class ContextFinding(WireModel):
    finding: str = Field(description="The piece of context.")
    source: str = Field(description="Where it came from: a context id or a file path.")
    relevance: float = Field(description="0 (unrelated) to 1 (exactly what was asked for).")


# --- one typed interrupt request per agent (FR-081, FR-103..108) -----------------------------


class OrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.ORCHESTRATOR]] = _origin(AgentType.ORCHESTRATOR)
    phase: str = Field(description="The phase the run is in (DISCOVERY, PLANNING, TICKETS ...).")
    proposed_next_phase: str = Field(description="The phase you would go to next, and why.")
    goal: str = Field(
        description="The goal as you read it: your interpretation in one or two sentences, "
        "with what you take to be in and out of scope."
    )
    workflow_context: str = Field(
        description="What the run has done so far that bears on the decision: phases done, "
        "routes back, earlier answers, with their context ids."
    )


class OrchestratorCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.ORCHESTRATOR_COLLECTOR]] = _origin(
        AgentType.ORCHESTRATOR_COLLECTOR
    )
    phase_decision: PhaseDecision = Field(
        description="The decision you lean to; offer it and its alternatives as choices, each "
        "saying what it means for the rest of the run."
    )
    collector_results: list[CollectorSummary] = Field(
        description="One item per phase collector result that informs the decision."
    )
    advancement_rationale: str = Field(
        description="Why you lean to that decision, and what would change your mind."
    )


class DiscoveryOrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_ORCHESTRATOR]] = _origin(
        AgentType.DISCOVERY_ORCHESTRATOR
    )
    subdomain_partitioning: list[ProposedSubdomain] = Field(
        description="The subdomains you propose, one discovery agent each, with the rationale."
    )
    scope: str = Field(
        description="The coverage you propose, broad (every module, shallow) or deep (a few "
        "modules, thorough), and why."
    )
    dispatch_plan: str = Field(
        description="How many discovery agents on what, and what that costs in time and tokens."
    )


class DiscoveryAgentInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_AGENT]] = _origin(AgentType.DISCOVERY_AGENT)
    code_findings: list[FileReference] = Field(
        description="The code your question is about: path, lines, relevance 0-1, and a note."
    )
    boundary_decisions: list[BoundaryDecision] = Field(
        description="The subdomain boundaries you propose, by file or directory."
    )
    pattern_observations: list[str] = Field(
        description="Patterns you saw whose meaning you are unsure of."
    )


class DiscoveryCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_COLLECTOR]] = _origin(
        AgentType.DISCOVERY_COLLECTOR
    )
    code_references: list[FileReference] = Field(
        description="The consolidated code references the decision rests on: path, lines, "
        "relevance 0-1, note."
    )
    subdomain_boundaries: list[SubdomainBoundary] = Field(
        description="The subdomain boundaries you propose after consolidation."
    )
    recommendations: list[Recommendation] = Field(
        description="Your recommendations, each one also a confirmation item to approve or reject."
    )
    merge_decisions: list[str] = Field(
        description="How you merged overlapping reports: what you deduplicated or dropped."
    )


class PlanningOrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_ORCHESTRATOR]] = _origin(
        AgentType.PLANNING_ORCHESTRATOR
    )
    ticket_decomposition: list[str] = Field(
        description="The planning areas (or ticket groups) you propose, one per item."
    )
    granularity_rationale: str = Field(description="Why the work is cut at this granularity.")
    discovery_context: str = Field(
        description="The discovery findings you are weighing, with their context ids."
    )
    planning_scope: str = Field(
        description="The scope you propose, minimal or comprehensive, and what it leaves out."
    )


class PlanningAgentInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_AGENT]] = _origin(AgentType.PLANNING_AGENT)
    proposed_tickets: list[ProposedTicket] = Field(
        description="The tickets you would plan: ids, descriptions, dependencies, and the "
        "discovery findings each builds on."
    )
    architecture_decisions: list[ArchitectureDecision] = Field(
        description="The architecture decisions your tickets depend on, with the alternatives."
    )
    discovery_references: list[str] = Field(
        description="Context ids and file paths of the discovery findings your plan relies on."
    )


class PlanningCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_COLLECTOR]] = _origin(
        AgentType.PLANNING_COLLECTOR
    )
    consolidated_tickets: list[ProposedTicket] = Field(
        description="The consolidated ticket list as you would hand it on."
    )
    dependency_conflicts: list[DependencyConflict] = Field(
        description="Dependency conflicts between tickets; offer resolutions as choices."
    )
    merge_decisions: list[str] = Field(
        description="Tickets you merged or deduplicated, and why; each one also a confirmation."
    )


class TicketOrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_ORCHESTRATOR]] = _origin(
        AgentType.TICKET_ORCHESTRATOR
    )
    implementation_scope: list[ScopedTicket] = Field(
        description="The planned tickets with their priority and whether this round does them."
    )
    planning_context: str = Field(
        description="The planning decisions you are relying on, with their context ids."
    )
    execution_strategy: str = Field(description="Sequential or parallel implementation, and why.")


class TicketAgentInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_AGENT]] = _origin(AgentType.TICKET_AGENT)
    files_to_modify: list[FileChange] = Field(
        description="The files you would change, each with what changes."
    )
    test_strategies: list[PlannedTest] = Field(
        description="The tests you would add or run; each one also a confirmation item."
    )
    implementation_approaches: list[ImplementationApproach] = Field(
        description="The approaches you weigh, with their trade-offs; offer them as choices."
    )


class TicketCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_COLLECTOR]] = _origin(
        AgentType.TICKET_COLLECTOR
    )
    completion_status: list[TicketCompletion] = Field(
        description="Every ticket with its verification status."
    )
    follow_ups: list[str] = Field(
        description="Follow-up work you found; each one also a confirmation item."
    )
    verification_results: str = Field(
        description="What the verification showed, and where it is inconclusive."
    )


class ReviewInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.REVIEW_AGENT]] = _origin(AgentType.REVIEW_AGENT)
    review_criteria: list[str] = Field(
        description="The criteria you review against, as you read them."
    )
    assessment_findings: list[AssessmentFinding] = Field(
        description="What you found, each with a severity."
    )
    approval_recommendation: AssessmentStatus = Field(
        description="APPROVED or CHANGES_REQUESTED: what you would decide; conditions for "
        "approval go in confirmation items."
    )


class MergerInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.MERGER_AGENT]] = _origin(AgentType.MERGER_AGENT)
    conflict_files: list[ConflictFile] = Field(
        description="The conflicting files, each with a diff summary."
    )
    resolution_strategies: list[str] = Field(
        description="The resolutions you weigh (ours, theirs, manual, per file); offer them "
        "as choices."
    )
    merge_approach: str = Field(description="How you would merge, and the impact on functionality.")


class ContextManagerInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.CONTEXT_MANAGER]] = _origin(AgentType.CONTEXT_MANAGER)
    gathering_scope: str = Field(description="What you were asked to find and how far you looked.")
    context_findings: list[ContextFinding] = Field(
        description="What you found, each with its source and relevance 0-1."
    )
    source_references: list[str] = Field(description="The context ids and file paths you read.")


def _origin_tag(value: Any) -> str:
    origin = value.get("origin") if isinstance(value, dict) else getattr(value, "origin", None)
    known = isinstance(origin, str) and origin in AgentType.__members__
    return str(origin) if known else TEAM_TAG


DispatchedAgentInterruptRequest = Annotated[
    Annotated[DiscoveryAgentInterruptRequest, Tag(AgentType.DISCOVERY_AGENT.value)]
    | Annotated[PlanningAgentInterruptRequest, Tag(AgentType.PLANNING_AGENT.value)]
    | Annotated[TicketAgentInterruptRequest, Tag(AgentType.TICKET_AGENT.value)]
    | Annotated[TeamInterruptRequest, Tag(TEAM_TAG)],
    Discriminator(_origin_tag),
]
"""The questions of dispatched agents; their dispatch node raises them (handler US4)."""


for _model in (AgentQuestion, TeamInterruptRequest, DispatchInterruptRequest):
    _model.model_rebuild(
        _types_namespace={"DispatchedAgentInterruptRequest": DispatchedAgentInterruptRequest}
    )


class DiscoveryAgentDispatchInterruptRequest(DispatchInterruptRequest):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_DISPATCH]] = _origin(
        AgentType.DISCOVERY_DISPATCH
    )


class PlanningAgentDispatchInterruptRequest(DispatchInterruptRequest):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_DISPATCH]] = _origin(
        AgentType.PLANNING_DISPATCH
    )


class TicketAgentDispatchInterruptRequest(DispatchInterruptRequest):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_DISPATCH]] = _origin(AgentType.TICKET_DISPATCH)


AnyInterruptRequest = Annotated[
    Annotated[OrchestratorInterruptRequest, Tag("ORCHESTRATOR")]
    | Annotated[OrchestratorCollectorInterruptRequest, Tag("ORCHESTRATOR_COLLECTOR")]
    | Annotated[DiscoveryOrchestratorInterruptRequest, Tag("DISCOVERY_ORCHESTRATOR")]
    | Annotated[DiscoveryAgentInterruptRequest, Tag("DISCOVERY_AGENT")]
    | Annotated[DiscoveryCollectorInterruptRequest, Tag("DISCOVERY_COLLECTOR")]
    | Annotated[DiscoveryAgentDispatchInterruptRequest, Tag("DISCOVERY_DISPATCH")]
    | Annotated[PlanningOrchestratorInterruptRequest, Tag("PLANNING_ORCHESTRATOR")]
    | Annotated[PlanningAgentInterruptRequest, Tag("PLANNING_AGENT")]
    | Annotated[PlanningCollectorInterruptRequest, Tag("PLANNING_COLLECTOR")]
    | Annotated[PlanningAgentDispatchInterruptRequest, Tag("PLANNING_DISPATCH")]
    | Annotated[TicketOrchestratorInterruptRequest, Tag("TICKET_ORCHESTRATOR")]
    | Annotated[TicketAgentInterruptRequest, Tag("TICKET_AGENT")]
    | Annotated[TicketCollectorInterruptRequest, Tag("TICKET_COLLECTOR")]
    | Annotated[TicketAgentDispatchInterruptRequest, Tag("TICKET_DISPATCH")]
    | Annotated[ReviewInterruptRequest, Tag("REVIEW_AGENT")]
    | Annotated[MergerInterruptRequest, Tag("MERGER_AGENT")]
    | Annotated[ContextManagerInterruptRequest, Tag("CONTEXT_MANAGER")]
    | Annotated[TeamInterruptRequest, Tag(TEAM_TAG)],
    Discriminator(_origin_tag),
]
"""The sealed InterruptRequest interface: one subtype per agent, told apart by ``origin``."""
