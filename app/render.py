"""Terminal rendering with ``rich``: progress, questions, results, status."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.text import Text

from agent_interrupts.app.run_picture import ForkBranch, RunEnd, node_views, picture
from agent_interrupts.app.sdk import RunRow, WaitingRow, continues_at, decisions
from agent_interrupts.models.interrupt_flow import InterruptStatus
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import clip
from agent_interrupts.models.state import EntryKind, GraphEvent, HistoryEntry, OrchestratorStatus
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import RunResult, TeamFinalResult, result_summary, team_of
from agent_interrupts.workflows.visibility import question_markdown

MIN_LAST_COLUMN = 20
"""Narrowest cut of a list's free-text column (the goal of ``agents list``)."""
QUESTION_INDENT = 4
"""Indent of the free text under its row: a waiting question's wrapped text in ``agents list
--waiting``, a goal in ``agents list`` when the row leaves it too little room."""
CONTINUATION_INDENT = 2
"""Indent of a row's columns that do not fit on its first line (each column stays whole)."""
GAP = "  "
"""Between two columns."""

console = Console(highlight=False)
"""Standard output: text wraps at word boundaries to the terminal's width (``COLUMNS``)."""
errors = Console(stderr=True, highlight=False, soft_wrap=True)
"""Standard error: an error is one line, whatever its length (scripts read it)."""


def error(message: str) -> None:
    """One line on stderr: ``error: ...``."""
    errors.print(f"[bold red]error:[/] {escape(message)}", markup=True, soft_wrap=True)


def note(message: str) -> None:
    errors.print(f"[dim]{escape(message)}[/]", markup=True, soft_wrap=True)


def phase_of(team: Team, agent: str) -> str:
    """The phase ``team``'s ``agent`` works in ("?" for an agent the team does not have)."""
    node = team.nodes.get(agent)
    return node.phase if node is not None else "?"


class Progress:
    """Prints each finished agent step once, with a rule when the phase changes (a dispatched
    agent's step under its own node's phase, as ``agents status`` draws it). ``team``: the
    run's team (its agents' phases); a follower sets it from the run's status."""

    def __init__(self, team: Team) -> None:
        self._seen: set[str] = set()
        self._phase: str | None = None
        self.team = team

    def show(self, history: list[HistoryEntry]) -> None:
        for entry in history:
            if entry.kind is not EntryKind.OUTPUT or entry.context_id in self._seen:
                continue
            self._seen.add(entry.context_id)
            phase = phase_of(self.team, entry.agent_type)
            if phase != self._phase:
                self._phase = phase
                console.rule(f"[bold]{phase}[/]", align="left")
            route = f"→ {entry.route}" if entry.route else "(result)"
            indent = "    " if "/" in entry.node_id else "  "
            console.print(f"{indent}[cyan]{entry.node_id}[/] [dim]{entry.agent_type}[/] {route}")


def question(interrupt_id: str, origin: str, request: InterruptRequestBase) -> None:
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


def result(run_id: str, final: RunResult) -> None:
    """A short summary of the final result; ``--json`` prints the whole of it."""
    if isinstance(final, TeamFinalResult):
        _team_result(run_id, final)
        return
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
    _final_panel(lines, f"Final result of {run_id}")
    if final.code_change is not None:
        checkout = final.code_change.checkout
        console.print(f"Check it out in your clone: {checkout}", soft_wrap=True, markup=False)
    console.print(f"[dim]The whole result: agents follow {run_id} --json[/]")


STEPS_SHOWN = 12
"""Agent steps ``agents status`` lists (the newest); ``--json`` has every entry."""


def status(
    info: OrchestratorStatus,
    blackboard: list[HistoryEntry] | None = None,
    end: RunEnd | None = None,
    branches: Sequence[ForkBranch] = (),
) -> None:
    """A run: its phase and step, the picture of its graph (where each node stands, its forks
    and its parent as ``branches``), its newest steps under their phases, how it ended, its
    newest events. ``blackboard``: the run chain's every entry (default: the newest ones the
    query holds)."""
    entries = info.history if blackboard is None else blackboard
    current = info.current_node
    team = team_of(info.team)
    console.print(
        f"[bold]{info.workflow_id}[/]: phase {info.phase}, step {info.steps_taken}/{info.max_steps}"
    )
    if not team.builtin:
        console.print(f"team: {team.name} (sha256 {team.sha256[:12]})", markup=False)
    if end is None:
        running = f"{current.node_id} ({current.agent_type})" if current else "nothing"
        console.print(f"running: {running}")
        if info.pending_interrupt:
            console.print(f"waiting on interrupt {info.pending_interrupt.workflow_id}")
    console.print()
    views = node_views(entries, info, end.state if end else None, team)
    console.print(picture(views, team, branches))
    console.print()
    _steps(entries, info.workflow_id, team)
    if end is not None:
        style = "bold green" if end.state == "COMPLETED" else "bold red"
        console.print(Text.assemble((end.state, style), f": {end.line}"))
    _events(info.events[-5:])


def _steps(entries: list[HistoryEntry], workflow_id: str, team: Team) -> None:
    """The newest agent steps, each under its phase's rule (a dispatched agent's too)."""
    steps = [e for e in entries if e.kind is EntryKind.OUTPUT]
    shown = steps[-STEPS_SHOWN:]
    if len(shown) < len(steps):
        console.print(
            f"[dim]the newest {len(shown)} of {len(steps)} steps (every entry: agents status "
            f"{workflow_id} --json)[/]"
        )
    phase = None
    for entry in shown:
        if phase_of(team, entry.agent_type) != phase:
            phase = phase_of(team, entry.agent_type)
            console.rule(f"[bold]{phase}[/]", align="left")
        route = f"→ {entry.route}" if entry.route else "(result)"
        indent = "    " if "/" in entry.node_id else "  "
        console.print(f"{indent}[cyan]{entry.node_id}[/] [dim]{entry.agent_type}[/] {route}")


def event(event: GraphEvent) -> None:
    """One event of a followed run, as it happens: ``event INFO: ...``."""
    style = {"WARNING": "yellow", "ERROR": "bold red"}.get(event.kind, "")
    line = Text(f"  event {event.kind}: ", style=style or "dim")
    line.append(event.message)
    console.print(line)


def _events(events: list[GraphEvent]) -> None:
    for event in events:
        console.print(Padding(Text(f"{event.kind}: {event.message}"), (0, 0, 0, 2), expand=False))


def interrupt_status(info: InterruptStatus) -> None:
    """An interrupt's state, question, answer (once it has one) and newest events."""
    console.print(f"[bold]{info.workflow_id}[/]: {info.state}, {info.origin} asked")
    if info.deadline is not None:
        console.print(f"deadline: {_when(info.deadline)} UTC")
    if info.answerers is not None:
        console.print(f"may answer: {info.answerers.describe()}", markup=False)
    question(info.workflow_id, info.origin, info.request)
    if info.resolution is not None:
        console.print("[bold]answer:[/]")
        for line in decisions(info.request, info.resolution):
            console.print(Padding(Text(line), (0, 0, 0, 2), expand=False))
        if (continues := continues_at(info)) != info.origin:
            console.print(f"the run continues at {continues} (re-routed)", markup=False)
    _events(info.events[-5:])


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


def _bands(widths: list[int], width: int) -> list[list[int]]:
    """The fixed columns (by index) in bands that each fit in ``width``: the first band starts
    at column 0, each next one under it at ``CONTINUATION_INDENT``. A column is never split: one
    wider than a whole band has a band of its own."""
    bands: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        if bands[-1] and used + len(GAP) + w > width:
            bands.append([])
            used = CONTINUATION_INDENT
        used += (len(GAP) if bands[-1] else 0) + w
        bands[-1].append(i)
    return bands


def _band_lines(cells: list[str], widths: list[int], bands: list[list[int]]) -> list[str]:
    """A row's fixed cells as the lines of its bands, each cell padded to its column's width."""
    return [
        " " * (CONTINUATION_INDENT if n else 0) + GAP.join(cells[i].ljust(widths[i]) for i in band)
        for n, band in enumerate(bands)
    ]


def _one_line(text: str, room: int) -> str:
    """``text`` on one line, cut to ``room`` cells with an ellipsis."""
    flat = Text(" ".join(text.split()))
    flat.truncate(max(room, 1), overflow="ellipsis")
    return flat.plain


def _table(headers: list[str], rows: list[list[str]]) -> None:
    """Aligned columns, all but the last whole (ids and timestamps stay copyable), in bands
    under one another when they do not fit on one line. The last (free text) is cut to the room
    after them, or, when that is under ``MIN_LAST_COLUMN``, to a line of its own under the row."""
    width = console.width
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers[:-1])]
    bands = _bands(widths, width)
    room = width - len(_band_lines(headers, widths, bands)[-1]) - len(GAP)
    inline = room >= MIN_LAST_COLUMN

    def lines(cells: list[str]) -> list[str]:
        fixed = _band_lines(cells, widths, bands)
        if inline:
            return [*fixed[:-1], fixed[-1] + GAP + _one_line(cells[-1], room)]
        return [*fixed, " " * QUESTION_INDENT + _one_line(cells[-1], width - QUESTION_INDENT)]

    header = lines(headers)
    _print(header if inline else header[:-1], style="bold")  # the free text's line is unnamed
    for row in rows:
        _print(lines(row))


def _print(lines: list[str], style: str | None = None) -> None:
    """Lines of a table, as they are: rich never folds them (they were laid out to fit)."""
    for line in lines:
        console.print(line.rstrip(), style=style, markup=False, soft_wrap=True)


def runs(rows: list[RunRow]) -> None:
    if not rows:
        console.print('no runs yet; start one with: agents run "<goal>"')
        return
    cells = [[r.workflow_id, r.phase or "—", r.state, _when(r.started), r.goal] for r in rows]
    _table(["id", "phase", "state", "started (UTC)", "goal"], cells)
    _problems([(r.workflow_id, r.problem) for r in rows])


def waiting(rows: list[WaitingRow], now: datetime, *, wide: bool = False) -> None:
    """The waiting questions, each question whole: wrapped under its row, or with ``wide`` on
    the row's one line (as long as it is, for ``grep``)."""
    if not rows:
        console.print("no questions are waiting for a person")
        return
    cells = [[r.interrupt_id, r.origin, _ago(r.started, now), _when(r.deadline)] for r in rows]
    headers = ["interrupt id", "origin", "waiting", "deadline (UTC)"]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    bands = [list(range(len(widths)))] if wide else _bands(widths, console.width)

    def lines(cells: list[str], last: str) -> list[str]:
        fixed = _band_lines(cells, widths, bands)
        return [*fixed[:-1], GAP.join([fixed[-1], last])] if wide else fixed

    _print(lines(headers, "question"), style="bold")
    for row, row_cells in zip(rows, cells, strict=True):
        _print(lines(row_cells, row.question))
        if not wide:
            console.print(Padding(Text(row.question), (0, 0, 0, QUESTION_INDENT), expand=False))
    for row in rows:
        if row.may_answer:
            console.print(f"  {row.interrupt_id} may be answered by {row.may_answer}", markup=False)
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


def _team_result(run_id: str, final: TeamFinalResult) -> None:
    """A declared team's final result: its summary, then each other field in a line."""
    lines = [f"**{result_summary(final)}**", ""]
    for name, value in final.result.items():
        if name in ("summary", "schemaVersion", "resultId", "upstreamContextIds", "referenceCheck"):
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        lines.append(f"- {name}: {clip(shown, 300)}")
    _final_panel(lines, f"Final result of {run_id} (team {final.team})")
    console.print(f"[dim]The whole result: agents follow {run_id} --json[/]")


def _final_panel(lines: list[str], title: str) -> None:
    console.print()
    console.print(
        Panel(Markdown("\n".join(lines)), title=title, title_align="left", border_style="green")
    )
