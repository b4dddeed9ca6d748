"""Result decorators: after the LLM answers, stamp ids and links and compute what must not be
left to the model (deduplicated references, dependency graphs, execution orders, metrics)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.contexts import curated_ids_in
from agent_interrupts.models.results import (
    AgentResult,
    Consolidation,
    DecisionType,
    Delegation,
    InputReference,
    Metric,
)
from agent_interrupts.models.routing import Routing
from agent_interrupts.teams.software.agents import COLLECTED_AGENTS
from agent_interrupts.teams.software.contexts import CURATED_BY
from agent_interrupts.teams.software.results import (
    ConsolidatedReference,
    CrossLink,
    DiagramEdge,
    DiscoveryAgentResult,
    DiscoveryCollectorResult,
    MergerResult,
    PlannedTicket,
    PlanningAgentResult,
    PlanningCollectorResult,
    ReviewResult,
    TicketAgentResult,
)


def decorate(output: WireModel, call: AgentCall) -> None:
    """Apply every decorator that fits the output, in place."""
    results = [output] if isinstance(output, AgentResult) else []
    results += [v for v in vars(output).values() if isinstance(v, AgentResult)]
    decision = _decision(output)
    for result in results:
        result.result_id = call.result_id
        result.upstream_context_ids = list(call.upstream_context_ids)
        _decorate_one(result, call, decision)


def _decorate_one(result: AgentResult, call: AgentCall, decision: DecisionType | None) -> None:
    request = call.request
    discovery_id = _source_id(request, "discoveryContext")
    planning_id = _source_id(request, "planningContext")
    curated_ids = curated_ids_in(request)
    if isinstance(result, Delegation):
        result.goal = call.goal
    if isinstance(result, Consolidation):
        inputs = request.get("agentResults") or []
        collected = COLLECTED_AGENTS.get(call.agent_type)
        result.input_references = [
            InputReference(result_id=r["resultId"], agent_type=collected)
            for r in inputs
            if collected is not None and r.get("resultId")
        ] + [
            InputReference(result_id=c["sourceResultId"], agent_type=agent)
            for key, agent in CURATED_BY.items()
            if isinstance(c := request.get(key), dict)
        ]
        result.decision_type = decision
        result.aggregated_metrics = [
            Metric(name="inputs", value=float(len(result.input_references)))
        ]
    if isinstance(result, DiscoveryCollectorResult):
        reports = [
            DiscoveryAgentResult.model_validate(r) for r in request.get("agentResults") or []
        ]
        result.file_references = consolidate_references(reports)
        result.cross_links = _unique_links([link for r in reports for link in r.cross_links])
        relevance = [r.relevance for r in result.file_references]
        invalid = [i for r in reports if r.reference_check for i in r.reference_check.invalid]
        result.aggregated_metrics += [
            Metric(name="invalidReferences", value=float(len(invalid))),
            Metric(name="fileReferences", value=float(len(relevance))),
            Metric(name="meanRelevance", value=round(sum(relevance) / len(relevance), 3))
            if relevance
            else Metric(name="meanRelevance", value=0.0),
        ]
    if isinstance(result, PlanningAgentResult | PlanningCollectorResult):
        for ticket in result.tickets:
            ticket.discovery_links = [i for i in (discovery_id, *curated_ids[:1]) if i]
    if isinstance(result, PlanningCollectorResult):
        graph, order, unresolved = execution_order(result.tickets)
        result.dependency_graph, result.execution_order = graph, order
        result.unresolved_dependencies = unresolved
        result.discovery_reference = discovery_id
        result.aggregated_metrics += [Metric(name="tickets", value=float(len(result.tickets)))]
    if isinstance(result, TicketAgentResult):
        result.discovery_reference, result.planning_reference = discovery_id, planning_id
    if isinstance(result, ReviewResult):
        result.reviewed_context_ids = curated_ids
    if isinstance(result, MergerResult):
        result.merged_context_ids = curated_ids


def consolidate_references(reports: list[DiscoveryAgentResult]) -> list[ConsolidatedReference]:
    """Deduplicate the valid references by (path, lines); relevance aggregates as
    1 - prod(1 - r) over the reports."""
    merged: dict[tuple[str, int, int], ConsolidatedReference] = {}
    for report in reports:
        for ref in (r for r in report.file_references if r.valid):
            key = (ref.path, ref.start_line, ref.end_line)
            seen = merged.get(key)
            score = min(max(ref.relevance, 0.0), 1.0)
            if seen is None:
                merged[key] = ConsolidatedReference(
                    path=ref.path,
                    start_line=ref.start_line,
                    end_line=ref.end_line,
                    relevance=score,
                    sources=[report.result_id],
                )
            else:
                seen.relevance = round(1 - (1 - seen.relevance) * (1 - score), 4)
                if report.result_id not in seen.sources:
                    seen.sources.append(report.result_id)
    return sorted(merged.values(), key=lambda r: (-r.relevance, r.path, r.start_line))


def execution_order(
    tickets: list[PlannedTicket],
) -> tuple[list[DiagramEdge], list[str], list[str]]:
    """Dependency edges, a topological order (ties by ticket id), and what could not be placed:
    dependencies on unknown tickets, and tickets caught in a cycle."""
    ids = {t.ticket_id for t in tickets}
    edges = [
        DiagramEdge(source=dep, target=t.ticket_id, label="blocks")
        for t in tickets
        for dep in t.dependencies
        if dep in ids and dep != t.ticket_id
    ]
    unresolved = sorted(
        f"{t.ticket_id} -> {dep}" for t in tickets for dep in t.dependencies if dep not in ids
    )
    waiting: dict[str, int] = {t.ticket_id: 0 for t in tickets}
    after: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        waiting[edge.target] += 1
        after[edge.source].append(edge.target)
    ready = sorted(i for i, n in waiting.items() if n == 0)
    order: list[str] = []
    while ready:
        current = ready.pop(0)
        order.append(current)
        for nxt in after[current]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
                ready.sort()
    unresolved += sorted(f"{i} (dependency cycle)" for i in ids if i not in order)
    return edges, order, unresolved


def _decision(output: WireModel) -> DecisionType | None:
    if not isinstance(output, Routing):
        return None
    route, target, _ = output.chosen_route()
    if target is Terminal.END:
        return DecisionType.STOP
    if target is Terminal.INTERRUPT:
        return DecisionType.INTERRUPT
    if route == "contextManagerRequest":
        return DecisionType.CONTEXT
    first = next(iter(type(output).route_aliases()))
    return DecisionType.ADVANCE if route == first else DecisionType.ROUTE_BACK


def _source_id(request: dict[str, Any], key: str) -> str | None:
    context = request.get(key)
    return str(context["sourceResultId"]) if isinstance(context, dict) else None


def _unique_links(links: list[CrossLink]) -> list[CrossLink]:
    seen: dict[tuple[str, str, str], CrossLink] = {}
    for link in links:
        seen.setdefault((link.source, link.target, link.relation), link)
    return list(seen.values())
