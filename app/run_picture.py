"""A picture of a run: every node of the graph with where it stands, and the graph itself.

Pure functions of what ``agents status`` reads (the run's blackboard, its ``status`` query and
how it closed): ``node_views`` says per node whether it is done, running, waiting on a question,
failed, re-routed (a question's answer or a supervisor's event sent the run to another agent) or
not reached; ``picture`` lays that out as a ``rich`` table in the node table's order, each
dispatched agent under its dispatch node, and ``svg`` draws the same rows for the inbox.
``mermaid`` draws the graph itself from the node table and the Routing models (docs/agents.md
shows it; a test keeps the two the same).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from html import escape

from rich.table import Table
from rich.text import Text

from agent_interrupts.models.agent_types import DISPATCHED_AGENTS, AgentType, Terminal
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.interrupts import InterruptRouting
from agent_interrupts.models.state import EntryKind, HistoryEntry, OrchestratorStatus


class NodeState(StrEnum):
    DONE = "done"
    RUNNING = "running"
    WAITING = "waiting"
    """On a question: for a person, a reviewing model or a supervisor's event."""
    FAILED = "failed"
    REROUTED = "re-routed"
    """Its question's answer (or a supervisor's event) sent the run on to another agent."""
    NOT_REACHED = "not reached"


STYLES = {
    NodeState.DONE: ("✔", "green"),
    NodeState.RUNNING: ("▶", "bold cyan"),
    NodeState.WAITING: ("?", "bold yellow"),
    NodeState.FAILED: ("✘", "bold red"),
    NodeState.REROUTED: ("↪", "magenta"),
    NodeState.NOT_REACHED: ("·", "dim"),
}
"""Each state's mark and colour."""
SVG_COLOURS = {
    NodeState.DONE: "#2f7a4d",
    NodeState.RUNNING: "#1f6feb",
    NodeState.WAITING: "#b58100",
    NodeState.FAILED: "#c62828",
    NodeState.REROUTED: "#8e44ad",
    NodeState.NOT_REACHED: "#9aa3af",
}
"""Each state's colour in the inbox's picture."""
ROW_PX = 22


@dataclass
class NodeView:
    """Where one node of the graph stands in a run."""

    agent: str
    state: NodeState = NodeState.NOT_REACHED
    runs: int = 0
    """Outputs it gave (a dispatched agent type: all its agents' together)."""
    questions: int = 0
    rerouted_to: list[str] = field(default_factory=list)
    """Where its answered questions sent the run instead of back to it, oldest first."""
    waiting_on: str | None = None
    """The interrupt (its workflow id) the node waits on."""

    def detail(self) -> str:
        parts = []
        if self.runs:
            parts.append(f"{self.runs} output{'s' if self.runs != 1 else ''}")
        if self.questions:
            parts.append(f"{self.questions} question{'s' if self.questions != 1 else ''}")
        if self.rerouted_to:
            parts.append("re-routed to " + ", ".join(str(a) for a in self.rerouted_to))
        if self.waiting_on:
            parts.append(f"waits on {self.waiting_on}")
        return "; ".join(parts)


@dataclass(frozen=True)
class RunEnd:
    """How a closed run ended: its state (``COMPLETED``, ``FAILED`` ...) and one line (the
    result's summary, or the failure)."""

    state: str
    line: str


def resolution_target(route: str | None) -> str | None:
    """The agent an answered question's routing (an InterruptRouting route) leads to."""
    target = InterruptRouting.route_aliases().get(route or "")
    return target if isinstance(target, AgentType) else None


def node_views(
    entries: list[HistoryEntry], status: OrchestratorStatus | None, closed: str | None = None
) -> dict[str, NodeView]:
    """Every node's state, in the node table's order. ``entries``: the run chain's blackboard
    (all of it, oldest first); ``status``: its ``status`` query (the running node and the
    waiting question), if it answered; ``closed``: how the run ended (``COMPLETED``,
    ``FAILED`` ...), None while it runs."""
    views = {agent: NodeView(agent) for agent in NODES}
    for entry in entries:
        view = views[entry.agent_type]
        if entry.kind is EntryKind.REQUEST:
            view.state = NodeState.RUNNING
        elif entry.kind is EntryKind.OUTPUT:
            view.runs += 1
            view.state = NodeState.DONE
        elif entry.kind is EntryKind.INTERRUPT:
            view.questions += 1
            view.state = NodeState.WAITING
        elif entry.kind is EntryKind.RESOLUTION:
            target = resolution_target(entry.route)
            if target is not None and target is not entry.agent_type:
                view.rerouted_to.append(target)
                view.state = NodeState.REROUTED
            else:
                view.state = NodeState.RUNNING  # it runs again with the answer
    if status is not None and closed is None:
        if (pending := status.pending_interrupt) is not None:
            views[pending.origin_agent_type].state = NodeState.WAITING
            views[pending.origin_agent_type].waiting_on = pending.workflow_id
        if status.current_node is not None:
            views[status.current_node.agent_type].state = NodeState.RUNNING
    if closed is not None:
        unfinished = (NodeState.RUNNING, NodeState.WAITING)
        for view in views.values():
            if view.state in unfinished:
                view.state = NodeState.DONE if closed == "COMPLETED" else NodeState.FAILED
    return views


def picture(views: dict[str, NodeView]) -> Table:
    """One row per node, in the node table's order: phase, agent (a dispatched agent indented
    under its dispatch node), its state and what it did."""
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for column in ("phase", "agent", "state", ""):
        table.add_column(column, no_wrap=column != "")
    phase = None
    for agent, node in NODES.items():
        view = views[agent]
        mark, style = STYLES[view.state]
        shown_phase = node.phase if node.phase != phase else ""
        phase = node.phase
        name = f"  └ N x {agent}" if agent in DISPATCHED_AGENTS else str(agent)
        table.add_row(
            shown_phase,
            Text(name, style="dim" if view.state is NodeState.NOT_REACHED else ""),
            Text(f"{mark} {view.state.value}", style=style),
            Text(view.detail(), style="dim"),
        )
    return table


def svg(views: dict[str, NodeView]) -> str:
    """The same rows as ``picture``, as an SVG image: a coloured mark per node and its state."""
    rows = []
    phase = None
    for i, (agent, node) in enumerate(NODES.items()):
        view = views[agent]
        mark, _ = STYLES[view.state]
        colour = SVG_COLOURS[view.state]
        y = (i + 1) * ROW_PX + 6
        shown_phase = node.phase if node.phase != phase else ""
        phase = node.phase
        name = f"└ N x {agent}" if agent in DISPATCHED_AGENTS else str(agent)
        indent = 118 if agent in DISPATCHED_AGENTS else 104
        rows.append(
            f'<text x="4" y="{y}" class="phase">{escape(str(shown_phase))}</text>'
            f'<circle cx="96" cy="{y - 5}" r="6" fill="{colour}"/>'
            f'<text x="{indent}" y="{y}" fill="{colour}">{escape(name)}</text>'
            f'<text x="330" y="{y}" fill="{colour}">{escape(f"{mark} {view.state.value}")}</text>'
            f'<text x="430" y="{y}" class="detail">{escape(view.detail())}</text>'
        )
    height = (len(NODES) + 1) * ROW_PX
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="{height}" '
        f'viewBox="0 0 900 {height}" font-family="sans-serif" font-size="13">'
        "<style>.phase{fill:#5b6475;font-size:11px}.detail{fill:#5b6475}</style>"
        f'<text x="4" y="15" font-weight="bold">phase</text>'
        f'<text x="104" y="15" font-weight="bold">agent</text>'
        f'<text x="330" y="15" font-weight="bold">state</text>' + "".join(rows) + "</svg>"
    )


def mermaid() -> str:
    """The graph as a mermaid flowchart, read from the node table and the Routing models: each
    agent and where its routes lead; a dispatch node fans out to N agents whose results come
    back to it. Every agent may also ask a question (the one INTERRUPT node, whose answer goes
    back to the agent that asked, or on to another agent) and ask the context manager, which
    hands back: those edges are drawn once, not from every node."""
    lines = ["flowchart TD"]
    for agent in NODES:
        lines.append(f'    {agent}["{agent}"]')
    lines.append('    END(["END: the final result"])')
    for agent, node in NODES.items():
        if agent is AgentType.CONTEXT_MANAGER:
            continue
        if node.dispatches is not None:
            lines.append(f"    {agent} -->|N in parallel| {node.dispatches}")
        seen: set[str] = set()
        for target in node.output_model.route_fields.values():
            if target in (Terminal.INTERRUPT, AgentType.CONTEXT_MANAGER) or target in seen:
                continue
            seen.add(target)
            if agent in DISPATCHED_AGENTS:
                lines.append(f"    {agent} -.->|result| {target}")
            else:
                lines.append(f"    {agent} --> {target}")
    lines.append('    ANY(["any agent"]) -.->|a question| INTERRUPT{{"INTERRUPT"}}')
    lines.append("    INTERRUPT -.->|the answer: back, or on to another agent| ANY")
    lines.append("    ANY -.->|asks for context| CONTEXT_MANAGER")
    lines.append("    CONTEXT_MANAGER -.->|RETURN| ANY")
    return "\n".join(lines)
