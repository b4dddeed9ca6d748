"""Terminal rendering with ``rich``: progress, questions, results, status (issue 11 item 6)."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Console
from rich.markdown import Markdown
from rich.panel import Panel

from app.sdk import RunRow, WaitingRow
from models.agent_types import AgentType
from models.interrupt_flow import InterruptStatus
from models.interrupts import InterruptRequestBase
from models.results import OrchestratorCollectorResult
from models.state import EntryKind, HistoryEntry, OrchestratorStatus
from workflows.graph import NODES
from workflows.visibility import question_markdown

MIN_LAST_COLUMN = 20
"""Narrowest cut of a list's free-text column (goal, question)."""

console = Console(highlight=False, soft_wrap=True)
errors = Console(stderr=True, highlight=False, soft_wrap=True)


def error(message: str) -> None:
    """One line on stderr: ``error: ...``."""
    errors.print(f"[bold red]error:[/] {message}", markup=True, soft_wrap=True)


def note(message: str) -> None:
    errors.print(f"[dim]{message}[/]", markup=True, soft_wrap=True)


class Progress:
    """Prints each finished agent step once, with a rule when the phase changes."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._phase: str | None = None

    def show(self, history: list[HistoryEntry]) -> None:
        for entry in history:
            if entry.kind is not EntryKind.OUTPUT or entry.context_id in self._seen:
                continue
            self._seen.add(entry.context_id)
            phase = NODES[entry.agent_type].phase
            if phase != self._phase and "/" not in entry.node_id:
                self._phase = phase
                console.rule(f"[bold]{phase}[/]", align="left")
            route = f"→ {entry.route}" if entry.route else "(result)"
            indent = "    " if "/" in entry.node_id else "  "
            console.print(
                f"{indent}[cyan]{entry.node_id}[/] [dim]{entry.agent_type}[/] {route}",
                soft_wrap=True,
            )


def question(interrupt_id: str, origin: AgentType, request: InterruptRequestBase) -> None:
    """The question as rendered markdown in a panel, with its id."""
    console.print()
    console.print(
        Panel(
            Markdown(question_markdown(origin, request)),
            title=f"question {interrupt_id}",
            title_align="left",
            border_style="yellow",
        )
    )


def result(run_id: str, final: OrchestratorCollectorResult) -> None:
    """A short summary of the final result; ``--json`` prints the whole of it."""
    lines = [f"**{final.summary}**", ""]
    lines += [f"- {item}" for item in final.deliverables[:8]]
    if len(final.deliverables) > 8:
        lines.append(f"- … and {len(final.deliverables) - 8} more")
    if final.phases_completed:
        lines += ["", f"Phases completed: {', '.join(final.phases_completed)}"]
    if (code := final.code_change) is not None:
        lines += ["", f"Branch **{code.run_branch}** ({code.head[:12]}): merged "]
        lines[-1] += f"{', '.join(code.merged_tickets) or 'no ticket'}; tests: "
        lines[-1] += f"{code.verification or 'not run'}"
        lines += ["", "```", *code.diff_stat.splitlines()[-12:], "```"]
    console.print()
    console.print(
        Panel(
            Markdown("\n".join(lines)),
            title=f"Final result of {run_id}",
            title_align="left",
            border_style="green",
        )
    )
    if final.code_change is not None:
        checkout = final.code_change.checkout
        console.print(f"Check it out in your clone: {checkout}", soft_wrap=True, markup=False)
    console.print(f"[dim]The whole result: agents follow {run_id} --json[/]")


def status(info: OrchestratorStatus) -> None:
    current = info.current_node
    console.print(
        f"[bold]{info.workflow_id}[/]: phase {info.phase}, step {info.steps_taken}/{info.max_steps}"
    )
    running = f"{current.node_id} ({current.agent_type})" if current else "nothing"
    console.print(f"running: {running}")
    if info.pending_interrupt:
        console.print(f"waiting on interrupt {info.pending_interrupt.workflow_id}")
    Progress().show(info.history)
    for event in info.events[-5:]:
        console.print(f"  {event.kind}: {event.message}", soft_wrap=True, markup=False)


def interrupt_status(info: InterruptStatus) -> None:
    """An interrupt's state, question and newest events."""
    console.print(f"[bold]{info.workflow_id}[/]: {info.state}, {info.origin} asked")
    if info.deadline is not None:
        console.print(f"deadline: {_when(info.deadline)} UTC")
    question(info.workflow_id, info.origin, info.request)
    for event in info.events[-5:]:
        console.print(f"  {event.kind}: {event.message}", soft_wrap=True, markup=False)


def _when(moment: datetime | None) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S}" if moment else "—"


def _ago(moment: datetime | None, now: datetime) -> str:
    if moment is None:
        return "—"
    seconds = int((now - moment).total_seconds())
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h"


def _table(headers: list[str], rows: list[list[str]]) -> None:
    """Aligned columns, every one whole (ids stay copyable) except the last, which is cut to
    the terminal's width."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers[:-1])]
    room = max(console.width - sum(widths) - 2 * len(widths), MIN_LAST_COLUMN)

    def line(cells: list[str]) -> str:
        last = cells[-1] if len(cells[-1]) <= room else cells[-1][: room - 1] + "…"
        return "  ".join([*(c.ljust(w) for c, w in zip(cells, widths, strict=False)), last])

    console.print(line(headers), style="bold", markup=False)
    for row in rows:
        console.print(line(row), markup=False)


def runs(rows: list[RunRow]) -> None:
    if not rows:
        console.print('no runs yet; start one with: agents run "<goal>"')
        return
    cells = [[r.workflow_id, r.phase or "—", r.state, _when(r.started), r.goal] for r in rows]
    _table(["id", "phase", "state", "started (UTC)", "goal"], cells)
    _problems([(r.workflow_id, r.problem) for r in rows])


def waiting(rows: list[WaitingRow], now: datetime) -> None:
    if not rows:
        console.print("no questions are waiting for a person")
        return
    cells = [
        [r.interrupt_id, r.origin, _ago(r.started, now), _when(r.deadline), r.question]
        for r in rows
    ]
    headers = ["interrupt id", "origin", "waiting", "deadline (UTC)", "question"]
    _table(headers, cells)
    for row in rows:
        if row.warning:
            console.print(f"  WARNING {row.interrupt_id}: {row.warning}", markup=False)
    _problems([(r.interrupt_id, r.problem) for r in rows])
    console.print("[dim]Answer one with: agents resolve <interrupt id>[/]")


def _problems(rows: list[tuple[str, str | None]]) -> None:
    """Runs the current workers cannot continue, with where to read what to do."""
    for workflow_id, problem in rows:
        if problem:
            console.print(
                f"  {workflow_id}: {problem}; see: agents status {workflow_id}", markup=False
            )
