"""A picture of a run: every node of the graph with where it stands, and the graph itself.

Pure functions of what ``agents status`` reads (the run's blackboard, its ``status`` query and
how it closed): ``node_views`` says per node whether it is done, running, waiting on a question,
failed, re-routed (a question's answer or a supervisor's event sent the run to another agent) or
not reached; ``picture`` lays that out as a ``rich`` table in the node table's order, each
dispatched agent under its dispatch node, and ``svg`` draws the same rows for the inbox.
``mermaid`` draws the graph itself from the node table and the Routing models (docs/agents.md
shows it; a test keeps the two the same). A run's forks (``docs/forks.md``) are drawn as branches
off the node whose question each answered another way (``fork_branches``), and a fork's parent
as the branch it came from.

Every function takes the run's team (``team_of(status.team)``): a declared team's run is drawn
with its own agents, phases, dispatchers and routes; the software team's is the default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from html import escape

from rich.table import Table
from rich.text import Text

from agent_interrupts.models.agent_types import Terminal, is_agent
from agent_interrupts.models.forks import ForkLink, ListedFork
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.state import EntryKind, HistoryEntry, OrchestratorStatus
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import team_of
from agent_interrupts.models.team_spec import Role


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
FORK_MARK = "⑂"
"""The mark of a branch: a fork of the run, or the parent it was forked from."""
ASKED = "interruptRequest"
"""The route of an agent's output that is a question."""
_ACTIVE = [
    NodeState.WAITING,
    NodeState.RUNNING,
    NodeState.FAILED,
    NodeState.REROUTED,
    NodeState.DONE,
    NodeState.NOT_REACHED,
]
"""Which of a dispatched agent type's agents says where the type stands: the first state any
of them is in."""


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


@dataclass(frozen=True)
class ForkBranch:
    """A branch of the run's picture: one of its forks, or (``parent``) the run it is a fork
    of; ``agent`` is the node whose question the fork answered another way."""

    workflow_id: str
    agent: str
    point: str
    """The question (or step) it branches off at."""
    state: str
    """Its execution status (RUNNING, COMPLETED, FAILED ...); ``parent`` for the run's parent."""
    by: str | None = None
    parent: bool = False

    def line(self) -> str:
        """What the run's page says of the branch."""
        by = f", forked by {self.by}" if self.by else ""
        if self.parent:
            return f"this run is a fork of {self.workflow_id} at {self.point}{by}"
        return f"fork {self.workflow_id} branches off at {self.point}{by}: {self.state}"

    def detail(self) -> str:
        """What the picture's row says beside the branch's id."""
        by = f", forked by {self.by}" if self.by else ""
        return f"{'this run forked' if self.parent else 'branches off'} at {self.point}{by}"


def fork_branches(forks: Sequence[ListedFork], link: ForkLink | None = None) -> list[ForkBranch]:
    """The branches to draw: the run's parent first (``link``: the run's own fork link), then
    its forks, oldest first (a fork whose link cannot be read is drawn without its point)."""
    drawn = []
    if link is not None:
        drawn.append(
            ForkBranch(
                link.parent.workflow_id,
                str(link.point.agent_type or ""),
                link.point.label(),
                "parent",
                link.forked_by,
                parent=True,
            )
        )
    listed = sorted(
        forks, key=lambda f: (f.link.forked_at.isoformat() if f.link else "", f.workflow_id)
    )
    for fork in listed:
        point = fork.link.point if fork.link else None
        drawn.append(
            ForkBranch(
                fork.workflow_id,
                str(point.agent_type or "") if point else "",
                point.label() if point else "?",
                fork.status,
                fork.link.forked_by if fork.link else None,
            )
        )
    return drawn


def resolution_target(route: str | None, team: Team) -> str | None:
    """The agent an answered question's routing (a route of ``team``'s handler routing) leads
    to."""
    target = team.interrupt_routing.route_aliases().get(route or "")
    return str(target) if target is not None and is_agent(target) else None


def rows(team: Team) -> list[str]:
    """The team's agents in the order the picture shows them: the node table's, each
    dispatched agent right under its dispatch node."""
    shown: list[str] = []
    for agent, node in team.nodes.items():
        if agent in team.dispatched:
            continue
        shown.append(agent)
        if node.dispatches is not None and node.dispatches in team.nodes:
            shown.append(node.dispatches)
    shown += [a for a in team.nodes if a not in shown]  # a dispatched agent nobody dispatches
    return shown


def node_views(
    entries: list[HistoryEntry],
    status: OrchestratorStatus | None,
    closed: str | None = None,
    team: Team | None = None,
) -> dict[str, NodeView]:
    """Every node's state, in the picture's order. ``entries``: the run chain's blackboard
    (all of it, oldest first); ``status``: its ``status`` query (the running node and the
    waiting question), if it answered; ``closed``: how the run ended (``COMPLETED``,
    ``FAILED`` ...), None while it runs; ``team``: the run's team (default: the one ``status``
    names, else the software team). An agent the team does not have gets a row at the end."""
    if team is None:
        team = team_of(status.team) if status is not None else SOFTWARE_TEAM
    views = {agent: NodeView(agent) for agent in rows(team)}

    def view_of(agent: str) -> NodeView:
        return views.setdefault(str(agent), NodeView(str(agent)))

    dispatched: dict[str, dict[str, NodeState]] = {}
    """A dispatched agent type's agents of its newest dispatch: node id -> where it stands."""
    for entry in entries:
        view = view_of(entry.agent_type)
        if entry.kind is EntryKind.REQUEST:
            view.state = NodeState.RUNNING
        elif entry.kind is EntryKind.OUTPUT:
            view.runs += 1
            # an output that is a question: the agent waits for its answer (a dispatched
            # agent's question waits in its dispatch node's combined question)
            view.state = NodeState.WAITING if entry.route == ASKED else NodeState.DONE
        elif entry.kind is EntryKind.INTERRUPT:
            view.questions += 1
            view.state = NodeState.WAITING
        elif entry.kind is EntryKind.RESOLUTION:
            target = resolution_target(entry.route, team)
            if target is not None and target != entry.agent_type:
                view.rerouted_to.append(target)
                view.state = NodeState.REROUTED
            else:
                view.state = NodeState.RUNNING  # it runs again with the answer
        if "/" in entry.node_id and entry.kind is not EntryKind.CONTEXT:
            agents = dispatched.setdefault(view.agent, {})
            dispatch = entry.node_id.partition("/")[0]
            if any(not n.startswith(dispatch + "/") for n in agents):
                agents.clear()  # a newer dispatch: its agents alone say where the type stands
            agents[entry.node_id] = view.state
    for agent, agents in dispatched.items():  # the most active of its agents
        views[agent].state = min(agents.values(), key=_ACTIVE.index)
    if status is not None and closed is None:
        if (pending := status.pending_interrupt) is not None:
            view_of(pending.origin_agent_type).state = NodeState.WAITING
            view_of(pending.origin_agent_type).waiting_on = pending.workflow_id
        current = status.current_node
        waiting = pending.origin_agent_type if pending is not None else None
        if current is not None and current.agent_type != waiting:  # a dispatch node waits
            view_of(current.agent_type).state = NodeState.RUNNING
    if closed is not None:
        unfinished = (NodeState.RUNNING, NodeState.WAITING)
        for view in views.values():
            if view.state in unfinished:
                view.state = NodeState.DONE if closed == "COMPLETED" else NodeState.FAILED
    return views


def _phase(team: Team, agent: str) -> str:
    node = team.nodes.get(agent)
    return node.phase if node is not None else "?"


def picture(views: dict[str, NodeView], team: Team, branches: Sequence[ForkBranch] = ()) -> Table:
    """One row per node of ``team``, in ``node_views``' order: phase, agent (a dispatched agent
    indented under its dispatch node), its state and what it did; then a row per branch (a
    fork, the parent), under the node it branches off."""
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for column in ("phase", "agent", "state", ""):
        table.add_column(column, no_wrap=column != "")
    phase = None
    for item in _placed(views, branches):
        if isinstance(item, ForkBranch):
            table.add_row("", *_branch_cells(item))
            continue
        agent, view = item, views[item]
        mark, style = STYLES[view.state]
        this_phase = _phase(team, agent)
        shown_phase = this_phase if this_phase != phase else ""
        phase = this_phase
        name = f"  └ N x {agent}" if agent in team.dispatched else str(agent)
        table.add_row(
            shown_phase,
            Text(name, style="dim" if view.state is NodeState.NOT_REACHED else ""),
            Text(f"{mark} {view.state.value}", style=style),
            Text(view.detail(), style="dim"),
        )
    return table


def _branch_cells(branch: ForkBranch) -> tuple[Text, Text, Text]:
    name = f"  {FORK_MARK} {'parent' if branch.parent else 'fork'} {branch.workflow_id}"
    return (
        Text(name, style="magenta"),
        Text(branch.state.lower(), style="magenta"),
        Text(branch.detail(), style="dim"),
    )


def svg(views: dict[str, NodeView], team: Team, branches: Sequence[ForkBranch] = ()) -> str:
    """The same rows as ``picture``, as an SVG image: a coloured mark per node and its state;
    a branch (a fork, the parent) is a row under its node, joined to it by a curve."""
    drawn = []
    phase = None
    placed = _placed(views, branches)
    node_rows = {item: row for row, item in enumerate(placed) if isinstance(item, str)}
    for row, item in enumerate(placed):
        if isinstance(item, ForkBranch):
            drawn.append(_branch_svg(item, row, node_rows.get(item.agent)))
            continue
        agent, view = item, views[item]
        mark, _ = STYLES[view.state]
        colour = SVG_COLOURS[view.state]
        y = (row + 1) * ROW_PX + 6
        this_phase = _phase(team, agent)
        shown_phase = this_phase if this_phase != phase else ""
        phase = this_phase
        dispatched = agent in team.dispatched
        name = f"└ N x {agent}" if dispatched else str(agent)
        indent = 118 if dispatched else 104
        drawn.append(
            f'<text x="4" y="{y}" class="phase">{escape(str(shown_phase))}</text>'
            f'<circle cx="96" cy="{y - 5}" r="6" fill="{colour}"/>'
            f'<text x="{indent}" y="{y}" fill="{colour}">{escape(name)}</text>'
            f'<text x="330" y="{y}" fill="{colour}">{escape(f"{mark} {view.state.value}")}</text>'
            f'<text x="430" y="{y}" class="detail">{escape(view.detail())}</text>'
        )
    height = (len(placed) + 1) * ROW_PX
    widest = max((118 + BRANCH_CHAR_PX * len(_label(b)) for b in branches), default=0)
    width = max(900, widest)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">'
        "<style>.phase{fill:#5b6475;font-size:11px}.detail{fill:#5b6475}</style>"
        f'<text x="4" y="15" font-weight="bold">phase</text>'
        f'<text x="104" y="15" font-weight="bold">agent</text>'
        f'<text x="330" y="15" font-weight="bold">state</text>' + "".join(drawn) + "</svg>"
    )


BRANCH_COLOUR = "#8e44ad"
BRANCH_CHAR_PX = 8
"""A character's width, at most, in a branch's row: the picture widens to hold the longest."""


def _placed(views: dict[str, NodeView], branches: Sequence[ForkBranch]) -> list[str | ForkBranch]:
    """The picture's rows: each node, each branch under the node it branches off (a branch
    off a node the picture lacks: at the end)."""
    placed: list[str | ForkBranch] = []
    for agent in views:
        placed.append(agent)
        placed += [b for b in branches if b.agent == agent]
    return placed + [b for b in branches if b.agent not in views]


def _branch_svg(branch: ForkBranch, row: int, node_row: int | None) -> str:
    """A branch's row; a curve joins it to its node's mark when the node is drawn."""
    y = (row + 1) * ROW_PX + 6
    curve = ""
    if node_row is not None:
        top = (node_row + 1) * ROW_PX + 1
        curve = (
            f'<path d="M90 {top} C 70 {top}, 70 {y - 5}, 110 {y - 5}" fill="none" '
            f'stroke="{BRANCH_COLOUR}" stroke-width="1.5" class="branch"/>'
        )
    return curve + f'<text x="118" y="{y}" fill="{BRANCH_COLOUR}">{escape(_label(branch))}</text>'


def _label(branch: ForkBranch) -> str:
    """A branch's row in the SVG: its id, its state, where it branches off."""
    kind = "parent" if branch.parent else "fork"
    return f"{FORK_MARK} {kind} {branch.workflow_id} · {branch.state.lower()} · {branch.detail()}"


def mermaid(team: Team) -> str:
    """The graph as a mermaid flowchart, read from the team's node table and Routing models:
    each agent and where its routes lead; a dispatch node fans out to N agents whose results
    come back to it. Every agent may also ask a question (the one INTERRUPT node, whose answer
    goes back to the agent that asked, or on to another agent) and ask the team's context manager
    (an agent of that role: the software team's), which hands back: those edges are drawn once,
    not from every node."""
    lines = ["flowchart TD"]
    for agent in team.nodes:
        lines.append(f'    {agent}["{agent}"]')
    lines.append('    END(["END: the final result"])')
    detours = team.with_role(Role.CONTEXT_MANAGER) & set(team.nodes)
    for agent, node in team.nodes.items():
        if agent in detours:
            continue
        if node.dispatches is not None:
            lines.append(f"    {agent} -->|N in parallel| {node.dispatches}")
        seen: set[str] = set()
        for target in node.output_model.route_fields.values():
            if target is Terminal.INTERRUPT or target in detours or target in seen:
                continue
            seen.add(target)
            if agent in team.dispatched:
                lines.append(f"    {agent} -.->|result| {target}")
            else:
                lines.append(f"    {agent} --> {target}")
    lines.append('    ANY(["any agent"]) -.->|a question| INTERRUPT{{"INTERRUPT"}}')
    lines.append("    INTERRUPT -.->|the answer: back, or on to another agent| ANY")
    for agent in sorted(detours):
        lines.append(f"    ANY -.->|asks for context| {agent}")
        lines.append(f"    {agent} -.->|RETURN| ANY")
    return "\n".join(lines)
