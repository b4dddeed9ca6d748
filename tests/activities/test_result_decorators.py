"""Computed parts of standard outputs (FR-039/040, FR-057)."""

from __future__ import annotations

from agent_interrupts.activities.result_decorators import consolidate_references, execution_order
from agent_interrupts.models.results import FileReference
from agent_interrupts.teams.software.results import DiscoveryAgentResult, Effort, PlannedTicket


def _report(result_id: str, *refs: tuple[str, float]) -> DiscoveryAgentResult:
    return DiscoveryAgentResult(
        result_id=result_id,
        subdomain="s",
        summary="s",
        findings=[],
        file_references=[
            FileReference(path=p, start_line=1, end_line=9, relevance=r, note="") for p, r in refs
        ],
        cross_links=[],
        tags=[],
        generated_queries=[],
        diagrams=[],
    )


def test_duplicate_references_merge_with_aggregated_relevance_and_sources() -> None:
    merged = consolidate_references(
        [_report("r1", ("a.py", 0.5), ("b.py", 0.9)), _report("r2", ("a.py", 0.5))]
    )
    assert [(m.path, m.relevance, m.sources) for m in merged] == [
        ("b.py", 0.9, ["r1"]),
        ("a.py", 0.75, ["r1", "r2"]),
    ], "most relevant first; 1 - (1 - 0.5) * (1 - 0.5) = 0.75"


def _ticket(tid: str, *deps: str) -> PlannedTicket:
    return PlannedTicket(
        ticket_id=tid,
        title=tid,
        description="",
        tasks=[],
        dependencies=list(deps),
        acceptance_criteria=[],
        effort=Effort.S,
    )


def test_execution_order_respects_dependencies_and_reports_what_it_cannot_place() -> None:
    edges, order, unresolved = execution_order(
        [
            _ticket("T-3", "T-1", "T-2"),
            _ticket("T-2", "T-1"),
            _ticket("T-1"),
            _ticket("T-4", "T-9"),
            _ticket("T-5", "T-6"),
            _ticket("T-6", "T-5"),
        ]
    )
    assert order == ["T-1", "T-2", "T-3", "T-4"], "ties broken by ticket id"
    assert {(e.source, e.target) for e in edges} >= {("T-1", "T-2"), ("T-2", "T-3")}
    assert unresolved == ["T-4 -> T-9", "T-5 (dependency cycle)", "T-6 (dependency cycle)"]
