"""The software team's routings: one Routing per agent, route fields first in the order a run
walks forward, and ``InterruptRouting``, the unified handler's routing to any of its agents."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from agent_interrupts.models.agent_types import Route, Terminal
from agent_interrupts.models.results import Delegation, DispatchResult
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.routings import (
    CONTEXT_HELP,
    DISPATCH_INTERRUPT_HELP,
    DISPATCHED_INTERRUPT_HELP,
    INTERRUPT_HELP,
)
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import (
    ContextManagerInterruptRequest,
    DiscoveryAgentDispatchInterruptRequest,
    DiscoveryAgentInterruptRequest,
    DiscoveryCollectorInterruptRequest,
    DiscoveryOrchestratorInterruptRequest,
    MergerInterruptRequest,
    OrchestratorCollectorInterruptRequest,
    OrchestratorInterruptRequest,
    PlanningAgentDispatchInterruptRequest,
    PlanningAgentInterruptRequest,
    PlanningCollectorInterruptRequest,
    PlanningOrchestratorInterruptRequest,
    ReviewInterruptRequest,
    TicketAgentDispatchInterruptRequest,
    TicketAgentInterruptRequest,
    TicketCollectorInterruptRequest,
    TicketOrchestratorInterruptRequest,
)
from agent_interrupts.teams.software.requests import (
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
from agent_interrupts.teams.software.results import (
    ContextManagerResult,
    DiscoveryAgentResult,
    DiscoveryCollectorResult,
    MergerResult,
    OrchestratorCollectorResult,
    PlanningAgentResult,
    PlanningCollectorResult,
    ReviewResult,
    TicketAgentResult,
    TicketCollectorResult,
)


def _route(help_text: str) -> Any:
    return Field(default=None, description=help_text)


class OrchestratorRouting(Routing):
    delegation: Delegation
    discovery_orchestrator_request: Annotated[
        DiscoveryOrchestratorRequest | None, Route(AgentType.DISCOVERY_ORCHESTRATOR)
    ] = _route("Start or redo discovery.")
    planning_orchestrator_request: Annotated[
        PlanningOrchestratorRequest | None, Route(AgentType.PLANNING_ORCHESTRATOR)
    ] = _route("Go to planning.")
    ticket_orchestrator_request: Annotated[
        TicketOrchestratorRequest | None, Route(AgentType.TICKET_ORCHESTRATOR)
    ] = _route("Go to implementation tickets.")
    orchestrator_collector_request: Annotated[
        OrchestratorCollectorRequest | None, Route(AgentType.ORCHESTRATOR_COLLECTOR)
    ] = _route("Consolidate and decide whether the goal is met.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[OrchestratorInterruptRequest | None, Route(Terminal.INTERRUPT)] = (
        _route(INTERRUPT_HELP)
    )


class DiscoveryOrchestratorRouting(Routing):
    delegation: Delegation
    discovery_agent_requests: Annotated[
        DiscoveryAgentRequests | None, Route(AgentType.DISCOVERY_DISPATCH)
    ] = _route("Split discovery into subdomains, one discovery agent each.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[
        DiscoveryOrchestratorInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class DiscoveryDispatchRouting(Routing):
    dispatch_result: DispatchResult
    discovery_collector_request: Annotated[
        DiscoveryCollectorRequest | None, Route(AgentType.DISCOVERY_COLLECTOR)
    ] = _route("Hand the agents' reports to the discovery collector.")
    interrupt_request: Annotated[
        DiscoveryAgentDispatchInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(DISPATCH_INTERRUPT_HELP)


class DiscoveryAgentRouting(Routing):
    """A discovery agent's answer: its report, or its own typed question (handler US4)."""

    result: Annotated[DiscoveryAgentResult | None, Route(AgentType.DISCOVERY_DISPATCH)] = _route(
        "Your report on the subdomain; the dispatch node hands it to the discovery collector."
    )
    interrupt_request: Annotated[
        DiscoveryAgentInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(DISPATCHED_INTERRUPT_HELP)


class DiscoveryCollectorRouting(Routing):
    collector_result: DiscoveryCollectorResult
    planning_orchestrator_request: Annotated[
        PlanningOrchestratorRequest | None, Route(AgentType.PLANNING_ORCHESTRATOR)
    ] = _route("Discovery is complete: go to planning.")
    discovery_orchestrator_request: Annotated[
        DiscoveryOrchestratorRequest | None, Route(AgentType.DISCOVERY_ORCHESTRATOR)
    ] = _route("Discovery has gaps: route back to the discovery orchestrator.")
    orchestrator_collector_request: Annotated[
        OrchestratorCollectorRequest | None, Route(AgentType.ORCHESTRATOR_COLLECTOR)
    ] = _route("Stop early and consolidate.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[
        DiscoveryCollectorInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class PlanningOrchestratorRouting(Routing):
    delegation: Delegation
    planning_agent_requests: Annotated[
        PlanningAgentRequests | None, Route(AgentType.PLANNING_DISPATCH)
    ] = _route("Split planning into areas, one planning agent each.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[
        PlanningOrchestratorInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class PlanningDispatchRouting(Routing):
    dispatch_result: DispatchResult
    planning_collector_request: Annotated[
        PlanningCollectorRequest | None, Route(AgentType.PLANNING_COLLECTOR)
    ] = _route("Hand the agents' plans to the planning collector.")
    interrupt_request: Annotated[
        PlanningAgentDispatchInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(DISPATCH_INTERRUPT_HELP)


class PlanningAgentRouting(Routing):
    """A planning agent's answer: its plan, or its own typed question (handler US4)."""

    result: Annotated[PlanningAgentResult | None, Route(AgentType.PLANNING_DISPATCH)] = _route(
        "Your plan for the area; the dispatch node hands it to the planning collector."
    )
    interrupt_request: Annotated[
        PlanningAgentInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(DISPATCHED_INTERRUPT_HELP)


class PlanningCollectorRouting(Routing):
    collector_result: PlanningCollectorResult
    ticket_orchestrator_request: Annotated[
        TicketOrchestratorRequest | None, Route(AgentType.TICKET_ORCHESTRATOR)
    ] = _route("Planning is complete: go to implementation tickets.")
    planning_orchestrator_request: Annotated[
        PlanningOrchestratorRequest | None, Route(AgentType.PLANNING_ORCHESTRATOR)
    ] = _route("Planning has gaps: route back to the planning orchestrator.")
    discovery_orchestrator_request: Annotated[
        DiscoveryOrchestratorRequest | None, Route(AgentType.DISCOVERY_ORCHESTRATOR)
    ] = _route("Planning needs more discovery.")
    orchestrator_collector_request: Annotated[
        OrchestratorCollectorRequest | None, Route(AgentType.ORCHESTRATOR_COLLECTOR)
    ] = _route("Stop early and consolidate.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[
        PlanningCollectorInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class TicketOrchestratorRouting(Routing):
    delegation: Delegation
    ticket_agent_requests: Annotated[
        TicketAgentRequests | None, Route(AgentType.TICKET_DISPATCH)
    ] = _route("One ticket agent per planned ticket.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[
        TicketOrchestratorInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class TicketDispatchRouting(Routing):
    dispatch_result: DispatchResult
    ticket_collector_request: Annotated[
        TicketCollectorRequest | None, Route(AgentType.TICKET_COLLECTOR)
    ] = _route("Hand the agents' work to the ticket collector.")
    interrupt_request: Annotated[
        TicketAgentDispatchInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(DISPATCH_INTERRUPT_HELP)


class TicketAgentRouting(Routing):
    """A ticket agent's answer: its work on the ticket, or its own typed question (handler US4)."""

    result: Annotated[TicketAgentResult | None, Route(AgentType.TICKET_DISPATCH)] = _route(
        "Your work on the ticket; the dispatch node hands it to the ticket collector."
    )
    interrupt_request: Annotated[TicketAgentInterruptRequest | None, Route(Terminal.INTERRUPT)] = (
        _route(DISPATCHED_INTERRUPT_HELP)
    )


class TicketCollectorRouting(Routing):
    collector_result: TicketCollectorResult
    review_request: Annotated[ReviewRequest | None, Route(AgentType.REVIEW_AGENT)] = _route(
        "Tickets are done: go to review."
    )
    ticket_orchestrator_request: Annotated[
        TicketOrchestratorRequest | None, Route(AgentType.TICKET_ORCHESTRATOR)
    ] = _route("Tickets are incomplete: route back to the ticket orchestrator.")
    orchestrator_collector_request: Annotated[
        OrchestratorCollectorRequest | None, Route(AgentType.ORCHESTRATOR_COLLECTOR)
    ] = _route("Stop early and consolidate.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[
        TicketCollectorInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class ReviewRouting(Routing):
    review_result: ReviewResult
    merger_request: Annotated[MergerRequest | None, Route(AgentType.MERGER_AGENT)] = _route(
        "The work is approved: go to the merger."
    )
    ticket_orchestrator_request: Annotated[
        TicketOrchestratorRequest | None, Route(AgentType.TICKET_ORCHESTRATOR)
    ] = _route("Changes are needed: route back to the ticket orchestrator.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[ReviewInterruptRequest | None, Route(Terminal.INTERRUPT)] = _route(
        INTERRUPT_HELP
    )


class MergerRouting(Routing):
    merger_result: MergerResult
    orchestrator_collector_request: Annotated[
        OrchestratorCollectorRequest | None, Route(AgentType.ORCHESTRATOR_COLLECTOR)
    ] = _route("Merged: consolidate the run.")
    ticket_orchestrator_request: Annotated[
        TicketOrchestratorRequest | None, Route(AgentType.TICKET_ORCHESTRATOR)
    ] = _route("Conflicts need more ticket work.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[MergerInterruptRequest | None, Route(Terminal.INTERRUPT)] = _route(
        INTERRUPT_HELP
    )


class OrchestratorCollectorRouting(Routing):
    final_result: Annotated[OrchestratorCollectorResult | None, Route(Terminal.END)] = _route(
        "STOP: the goal is met; this is the workflow's final result."
    )
    orchestrator_request: Annotated[OrchestratorRequest | None, Route(AgentType.ORCHESTRATOR)] = (
        _route("ADVANCE_PHASE: hand the next phase to the orchestrator.")
    )
    discovery_orchestrator_request: Annotated[
        DiscoveryOrchestratorRequest | None, Route(AgentType.DISCOVERY_ORCHESTRATOR)
    ] = _route("ROUTE_BACK to discovery.")
    planning_orchestrator_request: Annotated[
        PlanningOrchestratorRequest | None, Route(AgentType.PLANNING_ORCHESTRATOR)
    ] = _route("ROUTE_BACK to planning.")
    ticket_orchestrator_request: Annotated[
        TicketOrchestratorRequest | None, Route(AgentType.TICKET_ORCHESTRATOR)
    ] = _route("ROUTE_BACK to tickets.")
    context_manager_request: Annotated[
        ContextManagerRoutingRequest | None, Route(AgentType.CONTEXT_MANAGER)
    ] = _route(CONTEXT_HELP)
    interrupt_request: Annotated[
        OrchestratorCollectorInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class ContextManagerRouting(Routing):
    return_to_previous: Annotated[ContextManagerResult | None, Route(Terminal.RETURN)] = _route(
        "The context gathered; the agent that asked for it runs again with it."
    )
    interrupt_request: Annotated[
        ContextManagerInterruptRequest | None, Route(Terminal.INTERRUPT)
    ] = _route(INTERRUPT_HELP)


class InterruptRouting(Routing):
    """The unified handler's output: 14 route fields, exactly one set (the routing contract)."""

    @classmethod
    def route_targets(cls) -> set[str]:
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
