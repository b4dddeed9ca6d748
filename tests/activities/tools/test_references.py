"""References that are checked, not trusted (FR-031, FR-064)."""

from __future__ import annotations

from pathlib import Path

from agent_interrupts.activities.result_decorators import consolidate_references
from agent_interrupts.activities.tools.references import check_references
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.workspace import Workspace, checkout, pin
from agent_interrupts.models.results import CommitInfo, FileReference, VerificationStatus
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.contexts import curate_discovery
from agent_interrupts.teams.software.questions import DiscoveryCollectorInterruptRequest
from agent_interrupts.teams.software.results import (
    Diagram,
    DiscoveryAgentResult,
    DiscoveryCollectorResult,
    QueryFinding,
    TicketAgentResult,
)
from agent_interrupts.teams.software.routings import DiscoveryCollectorRouting
from tests.support.workspace import make_repo


def _ws(tmp_path: Path) -> Workspace:
    settings = ToolSettings(state_dir=tmp_path / "state")
    pinned = pin(WorkspaceSpec(source=str(make_repo(tmp_path))), settings.workspace_cache)
    return Workspace(checkout(pinned, settings.workspace_cache), pinned, settings)


def _ref(path: str, start: int, end: int) -> FileReference:
    return FileReference(path=path, start_line=start, end_line=end, relevance=0.8, note="n")


def _report(references: list[FileReference]) -> DiscoveryAgentResult:
    return DiscoveryAgentResult(
        result_id="r1",
        subdomain="s",
        summary="s",
        findings=[],
        cross_links=[],
        tags=[],
        generated_queries=[],
        diagrams=[],
        file_references=references,
    )


def test_invalid_references_are_marked_counted_and_never_consolidated(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    report = _report(
        [
            _ref("shop/gateway.py", 10, 12),  # valid
            _ref("shop/gateway.py", 10, 99),  # past the end (15 lines)
            _ref("shop/invented.py", 1, 2),  # no such file
            _ref("../etc/passwd", 1, 1),  # outside the workspace
        ]
    )
    check_references(report, ws)
    assert [r.valid for r in report.file_references] == [True, False, False, False]
    check = report.reference_check
    assert check is not None and check.checked == 4 and check.commit == ws.pinned.commit
    assert [i.reason for i in check.invalid] == [
        "lines 10-99 are past the end of shop/gateway.py (15 lines)",
        f"no file 'shop/invented.py' at commit {ws.pinned.commit[:12]}",
        f"no file '../etc/passwd' at commit {ws.pinned.commit[:12]}",
    ]
    (kept,) = consolidate_references([report])
    assert (kept.path, kept.start_line, kept.end_line) == ("shop/gateway.py", 10, 12)


def test_collector_paths_and_ticket_files_are_checked_and_kept_out_of_curation(
    tmp_path: Path,
) -> None:
    ws = _ws(tmp_path)
    collector = DiscoveryCollectorResult(
        result_id="c1",
        summary="s",
        recommendations=[],
        merge_strategy="m",
        conflict_resolutions=[],
        decision_rationale="r",
        architecture_diagram=Diagram(title="t", nodes=[], edges=[]),
        query_findings=[
            QueryFinding(query="q", finding="f", file_paths=["shop/config.py", "src/made_up.py"])
        ],
    )
    check_references(collector, ws)
    assert [i.path for i in collector.reference_check.invalid] == ["src/made_up.py"]  # type: ignore[union-attr]
    curated = curate_discovery(collector, "ctx-1")
    assert curated.curation.query_findings[0].file_paths == ["shop/config.py"]
    ticket = TicketAgentResult(
        ticket_id="T-1",
        implementation_summary="s",
        files_modified=["shop/gateway.py", "x.py"],
        test_results=[],
        commit=CommitInfo(message="m", files=["shop/gateway.py"]),
        verification_status=VerificationStatus.VERIFIED,
    )
    check_references(ticket, ws)
    assert ticket.reference_check is not None and ticket.reference_check.checked == 2
    assert [i.path for i in ticket.reference_check.invalid] == ["x.py"]


def test_code_references_in_a_question_are_marked(tmp_path: Path) -> None:
    """Code references in questions are checked like results' references."""
    ws = _ws(tmp_path)
    question = DiscoveryCollectorInterruptRequest(
        type="HUMAN_REVIEW",
        reason="which boundary?",
        choices=[],
        confirmation_items=[],
        context_for_decision="",
        code_references=[_ref("shop/gateway.py", 1, 2), _ref("src/made_up.py", 1, 2)],
        subdomain_boundaries=[],
        recommendations=[],
        merge_decisions=[],
    )
    routing = DiscoveryCollectorRouting.model_construct(interrupt_request=question)
    check_references(routing, ws)
    assert [r.valid for r in question.code_references] == [True, False]


def test_a_reference_too_long_for_the_file_system_is_marked_not_raised(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    report = _report([_ref("src/" + "y" * 8000 + "/middleware.py", 1, 2)])
    check_references(report, ws)
    assert [r.valid for r in report.file_references] == [False]
