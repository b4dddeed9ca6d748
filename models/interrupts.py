"""Typed interrupt requests (spec 003 US19-22), resolutions, and InterruptRouting (spec 000)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from models.agent_call import CallRecord
from models.agent_types import AgentType, Route
from models.base import WireModel
from models.limits import MAX_ITEMS, Answer, Id, Text
from models.requests import (
    ContextManagerRoutingRequest,
    DiscoveryAgentRequests,
    DiscoveryCollectorRequest,
    DiscoveryOrchestratorRequest,
    MergerRequest,
    OrchestratorCollectorRequest,
    OrchestratorRequest,
    PlanningAgentRequests,
    PlanningCollectorRequest,
    PlanningOrchestratorRequest,
    ReviewRequest,
    TicketAgentRequests,
    TicketCollectorRequest,
    TicketOrchestratorRequest,
)
from models.routing import Routing

DEFAULT_INTERRUPT_TIMEOUT_SECONDS = 24 * 60 * 60


class TimeoutOutcome(StrEnum):
    """What happens when nobody answers before the deadline."""

    ESCALATE_TO_AGENT_REVIEW = "ESCALATE_TO_AGENT_REVIEW"
    """A reviewing LLM call answers instead (the default)."""
    USE_RECOMMENDED = "USE_RECOMMENDED"
    """Take every recommended option and every confirmation default."""
    FAIL = "FAIL"
    """The interrupt, and so the run, fails."""


class InterruptType(StrEnum):
    """What kind of answer the interrupt waits for."""

    HUMAN_REVIEW = "HUMAN_REVIEW"
    AGENT_REVIEW = "AGENT_REVIEW"
    PAUSE = "PAUSE"


class OptionKey(StrEnum):
    """Multiple-choice keys; CUSTOM is the write-in ("Or provide your own approach")."""

    A = "A"
    B = "B"
    C = "C"
    CUSTOM = "CUSTOM"


CUSTOM_OPTION_TEXT = "Or provide your own approach"


class ChoiceOption(WireModel):
    key: OptionKey
    description: str


class StructuredChoice(WireModel):
    """One decision point offered as A/B/C plus a CUSTOM write-in (spec 003 US21)."""

    choice_id: str
    question: str
    context: str
    options: list[ChoiceOption]
    recommended: OptionKey | None

    @model_validator(mode="after")
    def _always_offer_custom(self) -> Self:
        keys = [o.key for o in self.options]
        repeated = sorted({k.value for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(
                f"choice {self.choice_id[:60]!r} offers option {', '.join(repeated)} more than "
                "once; give each option its own key (A, B, C)"
            )
        if OptionKey.CUSTOM not in keys:
            self.options.append(ChoiceOption(key=OptionKey.CUSTOM, description=CUSTOM_OPTION_TEXT))
        return self

    def offered(self) -> set[OptionKey]:
        return {o.key for o in self.options}


class ConfirmationItem(WireModel):
    """A yes/no decision on one implementation detail (spec 003 US22)."""

    confirmation_id: str
    statement: str
    context: str
    default_value: bool
    impact_if_no: str


class InterruptRequestBase(WireModel):
    """Fields every typed interrupt request carries."""

    type: InterruptType
    reason: str
    choices: list[StructuredChoice]
    confirmation_items: list[ConfirmationItem]
    context_for_decision: str


def _origin(agent: AgentType) -> Any:
    return Field(default=agent, description="Set by the system, never by the model.")


class OrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.ORCHESTRATOR]] = _origin(AgentType.ORCHESTRATOR)
    phase: str
    goal: str
    workflow_context: str


class OrchestratorCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.ORCHESTRATOR_COLLECTOR]] = _origin(
        AgentType.ORCHESTRATOR_COLLECTOR
    )
    phase_decision: str
    collector_results: str


class DiscoveryOrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_ORCHESTRATOR]] = _origin(
        AgentType.DISCOVERY_ORCHESTRATOR
    )
    subdomain_partitioning: str
    scope: str


class DiscoveryAgentInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_AGENT]] = _origin(AgentType.DISCOVERY_AGENT)
    code_findings: str
    boundary_decisions: str


class DiscoveryCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_COLLECTOR]] = _origin(
        AgentType.DISCOVERY_COLLECTOR
    )
    consolidation_decisions: str
    recommendations: str


class DiscoveryAgentDispatchInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.DISCOVERY_DISPATCH]] = _origin(
        AgentType.DISCOVERY_DISPATCH
    )
    dispatch_decisions: str


class PlanningOrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_ORCHESTRATOR]] = _origin(
        AgentType.PLANNING_ORCHESTRATOR
    )
    ticket_decomposition: str
    discovery_context: str


class PlanningAgentInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_AGENT]] = _origin(AgentType.PLANNING_AGENT)
    ticket_design: str
    architecture_decisions: str


class PlanningCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_COLLECTOR]] = _origin(
        AgentType.PLANNING_COLLECTOR
    )
    ticket_consolidation: str
    dependency_resolution: str


class PlanningAgentDispatchInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.PLANNING_DISPATCH]] = _origin(
        AgentType.PLANNING_DISPATCH
    )
    dispatch_decisions: str


class TicketOrchestratorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_ORCHESTRATOR]] = _origin(
        AgentType.TICKET_ORCHESTRATOR
    )
    implementation_scope: str
    planning_context: str


class TicketAgentInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_AGENT]] = _origin(AgentType.TICKET_AGENT)
    implementation_approach: str
    file_changes: str


class TicketCollectorInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_COLLECTOR]] = _origin(
        AgentType.TICKET_COLLECTOR
    )
    completion_status: str
    follow_ups: str


class TicketAgentDispatchInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.TICKET_DISPATCH]] = _origin(AgentType.TICKET_DISPATCH)
    dispatch_decisions: str


class ReviewInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.REVIEW_AGENT]] = _origin(AgentType.REVIEW_AGENT)
    review_criteria: str
    assessment: str


class MergerInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.MERGER_AGENT]] = _origin(AgentType.MERGER_AGENT)
    conflict_resolution: str
    merge_strategy: str


class ContextManagerInterruptRequest(InterruptRequestBase):
    origin: SkipJsonSchema[Literal[AgentType.CONTEXT_MANAGER]] = _origin(AgentType.CONTEXT_MANAGER)
    context_gathering_scope: str


AnyInterruptRequest = Annotated[
    OrchestratorInterruptRequest
    | OrchestratorCollectorInterruptRequest
    | DiscoveryOrchestratorInterruptRequest
    | DiscoveryAgentInterruptRequest
    | DiscoveryCollectorInterruptRequest
    | DiscoveryAgentDispatchInterruptRequest
    | PlanningOrchestratorInterruptRequest
    | PlanningAgentInterruptRequest
    | PlanningCollectorInterruptRequest
    | PlanningAgentDispatchInterruptRequest
    | TicketOrchestratorInterruptRequest
    | TicketAgentInterruptRequest
    | TicketCollectorInterruptRequest
    | TicketAgentDispatchInterruptRequest
    | ReviewInterruptRequest
    | MergerInterruptRequest
    | ContextManagerInterruptRequest,
    Field(discriminator="origin"),
]
"""The sealed InterruptRequest interface: one subtype per agent, told apart by ``origin``."""


class ResolvedBy(StrEnum):
    HUMAN = "HUMAN"
    AGENT_REVIEW = "AGENT_REVIEW"
    TIMEOUT_ESCALATION = "TIMEOUT_ESCALATION"


class InterruptResolution(WireModel):
    """A human's (or reviewer's) answer: choiceId -> option, write-ins, yes/no confirmations.

    Sizes are limited at the door (``models/limits.py``): ids, answers, free text, entries.
    """

    selected_choices: dict[Id, OptionKey] = Field(default_factory=dict, max_length=MAX_ITEMS)
    custom_inputs: dict[Id, Answer] = Field(default_factory=dict, max_length=MAX_ITEMS)
    confirmations: dict[Id, bool] = Field(default_factory=dict, max_length=MAX_ITEMS)
    free_text: Text | None = None
    resolved_by: ResolvedBy = ResolvedBy.HUMAN
    call: CallRecord | None = None
    """The reviewing LLM call that gave this answer (AGENT_REVIEW, TIMEOUT_ESCALATION); set by
    the reviewer activity. A person's answer has none (the export ignores one it carries)."""


class InterruptRouting(Routing):
    """The unified handler's output: 14 route fields, exactly one set (spec 000)."""

    @classmethod
    def route_for(cls, agent: AgentType) -> str | None:
        """The field that leads to ``agent`` (spec 000's mapping table), if there is one."""
        for alias, target in cls.route_aliases().items():
            if target is agent:
                return alias
        return None

    @classmethod
    def route_targets(cls) -> set[AgentType]:
        return {t for t in cls.route_aliases().values() if isinstance(t, AgentType)}

    orchestrator_request: Annotated[OrchestratorRequest | None, Route(AgentType.ORCHESTRATOR)] = (
        None
    )
    discovery_orchestrator_request: Annotated[
        DiscoveryOrchestratorRequest | None, Route(AgentType.DISCOVERY_ORCHESTRATOR)
    ] = None
    planning_orchestrator_request: Annotated[
        PlanningOrchestratorRequest | None, Route(AgentType.PLANNING_ORCHESTRATOR)
    ] = None
    ticket_orchestrator_request: Annotated[
        TicketOrchestratorRequest | None, Route(AgentType.TICKET_ORCHESTRATOR)
    ] = None
    review_request: Annotated[ReviewRequest | None, Route(AgentType.REVIEW_AGENT)] = None
    merger_request: Annotated[MergerRequest | None, Route(AgentType.MERGER_AGENT)] = None
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = None
    orchestrator_collector_request: Annotated[
        OrchestratorCollectorRequest | None, Route(AgentType.ORCHESTRATOR_COLLECTOR)
    ] = None
    discovery_collector_request: Annotated[
        DiscoveryCollectorRequest | None, Route(AgentType.DISCOVERY_COLLECTOR)
    ] = None
    planning_collector_request: Annotated[
        PlanningCollectorRequest | None, Route(AgentType.PLANNING_COLLECTOR)
    ] = None
    ticket_collector_request: Annotated[
        TicketCollectorRequest | None, Route(AgentType.TICKET_COLLECTOR)
    ] = None
    discovery_agent_requests: Annotated[
        DiscoveryAgentRequests | None, Route(AgentType.DISCOVERY_DISPATCH)
    ] = None
    planning_agent_requests: Annotated[
        PlanningAgentRequests | None, Route(AgentType.PLANNING_DISPATCH)
    ] = None
    ticket_agent_requests: Annotated[
        TicketAgentRequests | None, Route(AgentType.TICKET_DISPATCH)
    ] = None
