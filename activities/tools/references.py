"""Checked, not trusted: every file reference of an output against the pinned workspace.

A reference is valid when its path names a file of the commit and its lines lie inside that file.
Invalid ones stay in the output for the record: a ``FileReference`` gets ``valid: false``, and every
result lists what failed in its ``referenceCheck``; consolidation and curation skip them. The code
references in an agent's question (``codeFindings``, ``codeReferences`` ...) are marked the same
way, so the person who answers sees which of them the workspace does not hold.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agent_interrupts.activities.tools.workspace import ToolError, Workspace
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.results import (
    AgentResult,
    FileReference,
    InvalidReference,
    ReferenceCheck,
)
from agent_interrupts.teams.software.results import (
    DiscoveryAgentResult,
    DiscoveryCollectorResult,
    TicketAgentResult,
)


def check_references(output: WireModel, ws: Workspace) -> None:
    """Mark and count the file references of every result in ``output``, in place."""
    lines: dict[str, int | None] = {}
    for result in _results(output):
        checked = 0
        invalid: list[InvalidReference] = []
        for ref in result.file_references if isinstance(result, DiscoveryAgentResult) else []:
            checked += 1
            reason = _problem(ws, lines, ref.path, ref)
            ref.valid = reason is None
            if reason is not None:
                invalid.append(
                    InvalidReference(
                        path=ref.path,
                        start_line=ref.start_line,
                        end_line=ref.end_line,
                        reason=reason,
                    )
                )
        for path in _paths(result):
            checked += 1
            reason = _problem(ws, lines, path, None)
            if reason is not None:
                invalid.append(InvalidReference(path=path, reason=reason))
        if checked:
            result.reference_check = ReferenceCheck(
                commit=ws.pinned.commit, checked=checked, invalid=invalid
            )
    for ref in _question_references(output):
        ref.valid = _problem(ws, lines, ref.path, ref) is None


def _question_references(output: WireModel) -> Iterator[FileReference]:
    """The file references of the typed question an output asks, if it asks one."""
    question = getattr(output, "interrupt_request", None)
    if not isinstance(question, InterruptRequestBase):
        return
    for value in vars(question).values():
        if isinstance(value, list):
            yield from (v for v in value if isinstance(v, FileReference))


def _results(output: WireModel) -> Iterator[AgentResult]:
    if isinstance(output, AgentResult):
        yield output
    yield from (v for v in vars(output).values() if isinstance(v, AgentResult))


def _paths(result: AgentResult) -> list[str]:
    """Bare paths a result names: query findings' files, a ticket's changed files."""
    if isinstance(result, DiscoveryCollectorResult):
        return [p for finding in result.query_findings for p in finding.file_paths]
    if isinstance(result, TicketAgentResult):
        return list(dict.fromkeys([*result.files_modified, *result.commit.files]))
    return []


def _problem(
    ws: Workspace, lines: dict[str, int | None], path: str, ref: FileReference | None
) -> str | None:
    """Why the reference is invalid, or None. ``lines`` caches each path's line count."""
    if path not in lines:
        lines[path] = _line_count(ws, path)
    count = lines[path]
    if count is None:
        return f"no file {path!r} at commit {ws.pinned.commit[:12]}"
    if ref is None:
        return None
    if not 1 <= ref.start_line <= ref.end_line:
        return f"lines {ref.start_line}-{ref.end_line} are not a range"
    if ref.end_line > count:
        return f"lines {ref.start_line}-{ref.end_line} are past the end of {path} ({count} lines)"
    return None


def _line_count(ws: Workspace, path: str) -> int | None:
    try:
        target: Path = ws.resolve(path)
    except ToolError:
        return None
    try:
        if not target.is_file():
            return None
        with target.open("rb") as f:
            data = f.read()
    except OSError:  # unreadable: not a reference to check
        return None
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
