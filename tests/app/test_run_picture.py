"""The picture of a run: each node's state from the blackboard, the status and how it ended;
and the graph's mermaid picture, which docs/agents.md shows as generated."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from agent_interrupts.app.run_picture import (
    SVG_COLOURS,
    NodeState,
    NodeView,
    mermaid,
    node_views,
    picture,
    svg,
)
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.state import (
    EntryKind,
    HistoryEntry,
    NodeRef,
    OrchestratorStatus,
    PendingInterrupt,
)
from agent_interrupts.teams.software.agents import AgentType

ROOT = Path(__file__).resolve().parents[2]
AT = datetime(2026, 1, 1, tzinfo=UTC)
A = AgentType


def entry(kind: EntryKind, agent: AgentType, route: str | None = None) -> HistoryEntry:
    return HistoryEntry(
        node_id=agent.slug, agent_type=agent, kind=kind, context_id="c", route=route, at=AT
    )


def ran(*agents: AgentType) -> list[HistoryEntry]:
    """Each agent asked and answered once."""
    return [e for a in agents for e in (entry(EntryKind.REQUEST, a), entry(EntryKind.OUTPUT, a))]


def status(
    current: AgentType | None = None, waiting: AgentType | None = None
) -> OrchestratorStatus:
    return OrchestratorStatus(
        workflow_id="run-1",
        phase="REVIEW",
        current_node=NodeRef(node_id=current.slug, agent_type=current) if current else None,
        pending_interrupt=PendingInterrupt(
            workflow_id="run-1-interrupt-1", origin_agent_type=waiting, request={}
        )
        if waiting
        else None,
        steps_taken=3,
        max_steps=60,
        history=[],
        events=[],
        events_recorded=0,
        stored_events={},
    )


def states(views: dict[AgentType, NodeView]) -> dict[AgentType, NodeState]:
    return {agent: view.state for agent, view in views.items()}


def test_every_node_is_pictured_and_unreached_ones_say_so() -> None:
    views = node_views([], status())
    assert list(views) == list(NODES)
    assert set(states(views).values()) == {NodeState.NOT_REACHED}


def test_done_running_and_not_reached_while_the_run_goes_on() -> None:
    entries = [
        *ran(A.ORCHESTRATOR, A.DISCOVERY_ORCHESTRATOR),
        entry(EntryKind.REQUEST, A.DISCOVERY_DISPATCH),
    ]
    got = states(node_views(entries, status(current=A.DISCOVERY_DISPATCH)))
    assert got[A.ORCHESTRATOR] is NodeState.DONE
    assert got[A.DISCOVERY_DISPATCH] is NodeState.RUNNING
    assert got[A.DISCOVERY_COLLECTOR] is NodeState.NOT_REACHED


def test_a_question_waits_and_its_node_names_the_interrupt() -> None:
    entries = [
        *ran(A.REVIEW_AGENT),
        entry(EntryKind.REQUEST, A.REVIEW_AGENT),
        entry(EntryKind.OUTPUT, A.REVIEW_AGENT, "interruptRequest"),
        entry(EntryKind.INTERRUPT, A.REVIEW_AGENT),
    ]
    view = node_views(entries, status(waiting=A.REVIEW_AGENT))[A.REVIEW_AGENT]
    assert view.state is NodeState.WAITING
    assert view.detail() == "2 outputs; 1 question; waits on run-1-interrupt-1"


def test_the_inbox_picture_draws_every_node_in_its_states_colour() -> None:
    entries = [*ran(A.REVIEW_AGENT), entry(EntryKind.INTERRUPT, A.REVIEW_AGENT)]
    image = svg(node_views(entries, status(waiting=A.REVIEW_AGENT)), team=SOFTWARE_TEAM)
    assert image.startswith("<svg ") and image.endswith("</svg>")
    assert all(f">{a.value}</text>" in image or f"x {a.value}</text>" in image for a in A)
    waiting = SVG_COLOURS[NodeState.WAITING]
    assert f'fill="{waiting}">REVIEW_AGENT</text>' in image
    assert f'fill="{SVG_COLOURS[NodeState.NOT_REACHED]}">MERGER_AGENT</text>' in image


def test_an_answer_that_sends_the_run_elsewhere_is_a_re_route() -> None:
    entries = [
        *ran(A.REVIEW_AGENT),
        entry(EntryKind.INTERRUPT, A.REVIEW_AGENT),
        entry(EntryKind.RESOLUTION, A.REVIEW_AGENT, "ticketOrchestratorRequest"),
        entry(EntryKind.REQUEST, A.TICKET_ORCHESTRATOR),
    ]
    views = node_views(entries, status(current=A.TICKET_ORCHESTRATOR))
    assert views[A.REVIEW_AGENT].state is NodeState.REROUTED
    assert views[A.REVIEW_AGENT].rerouted_to == [A.TICKET_ORCHESTRATOR]
    assert views[A.TICKET_ORCHESTRATOR].state is NodeState.RUNNING

    back = [*entries[:2], entry(EntryKind.RESOLUTION, A.REVIEW_AGENT, "reviewRequest")]
    assert node_views(back, status())[A.REVIEW_AGENT].state is NodeState.RUNNING


def test_a_closed_run_fails_where_it_stood_or_completes() -> None:
    entries = [*ran(A.ORCHESTRATOR), entry(EntryKind.INTERRUPT, A.REVIEW_AGENT)]
    failed = states(node_views(entries, status(waiting=A.REVIEW_AGENT), closed="FAILED"))
    assert failed[A.REVIEW_AGENT] is NodeState.FAILED
    assert failed[A.ORCHESTRATOR] is NodeState.DONE
    done = states(node_views(ran(A.ORCHESTRATOR_COLLECTOR), None, closed="COMPLETED"))
    assert done[A.ORCHESTRATOR_COLLECTOR] is NodeState.DONE


def test_the_picture_lists_dispatched_agents_under_their_dispatch_node() -> None:
    console = Console(width=120, record=True)
    console.print(
        picture(node_views(ran(A.TICKET_DISPATCH, A.TICKET_AGENT), status()), team=SOFTWARE_TEAM)
    )
    lines = console.export_text().splitlines()
    names = [n for line in lines for n in re.findall(r"[A-Z_]{6,}", line) if n in A.__members__]
    assert names.index("TICKET_AGENT") == names.index("TICKET_DISPATCH") + 1
    assert any("└ N x TICKET_AGENT" in line and "✔ done" in line for line in lines)


def test_the_docs_show_the_graph_as_generated() -> None:
    page = (ROOT / "docs" / "agents.md").read_text()
    drawn = re.search(r"```mermaid\n(.*?)```", page, re.S)
    assert drawn is not None, "docs/agents.md has no mermaid picture of the graph"
    assert drawn.group(1).strip() == mermaid(team=SOFTWARE_TEAM), (
        "docs/agents.md's graph differs from app.run_picture.mermaid(): paste its output"
    )


def test_the_mermaid_graph_has_every_agent_and_route() -> None:
    text = mermaid(team=SOFTWARE_TEAM)
    for agent, node in NODES.items():
        assert f'{agent.value}["{agent.value}"]' in text
        if node.dispatches is not None:
            assert f"{agent.value} -->|N in parallel| {node.dispatches.value}" in text
    assert "ORCHESTRATOR_COLLECTOR --> END" in text
    assert "TICKET_COLLECTOR --> REVIEW_AGENT" in text


def test_dispatched_agents_that_asked_wait_until_their_answer() -> None:
    """As a dispatch node's run records it: each agent's output is its question, gathered into
    the dispatch node's combined question; the agents wait with it, and run again once
    answered; a newer dispatch alone says where the type stands."""
    dispatch, agent = A.TICKET_DISPATCH, A.TICKET_AGENT

    def fanned(kind: EntryKind, key: str, route: str | None = None, at: str = "d1") -> HistoryEntry:
        return HistoryEntry(
            node_id=f"{at}/{key}", agent_type=agent, kind=kind, context_id="c", route=route, at=AT
        )

    asked = [
        entry(EntryKind.REQUEST, dispatch),
        *(fanned(EntryKind.REQUEST, k) for k in ("a1", "a2", "a3")),
        fanned(EntryKind.OUTPUT, "a1", "interruptRequest"),
        fanned(EntryKind.OUTPUT, "a2", "ticketCollectorRequest"),
        fanned(EntryKind.OUTPUT, "a3", "interruptRequest"),
        entry(EntryKind.OUTPUT, dispatch, "interruptRequest"),
        entry(EntryKind.INTERRUPT, dispatch),
    ]
    views = node_views(asked, status(current=dispatch, waiting=dispatch))
    assert views[agent].state is NodeState.WAITING, "not done: two of them wait for an answer"
    assert views[dispatch].state is NodeState.WAITING
    answered = [
        *asked,
        fanned(EntryKind.REQUEST, "a1"),
        fanned(EntryKind.OUTPUT, "a1", "ticketCollectorRequest"),
        fanned(EntryKind.REQUEST, "a3"),
    ]
    assert node_views(answered, status(current=dispatch))[agent].state is NodeState.RUNNING
    answered.append(fanned(EntryKind.OUTPUT, "a3", "ticketCollectorRequest"))
    assert node_views(answered, status(current=dispatch))[agent].state is NodeState.DONE
    again = [*asked, fanned(EntryKind.REQUEST, "a1", at="d2")]
    got = node_views(again, status(current=dispatch))[agent]
    assert got.state is NodeState.RUNNING, "the newer dispatch's agents say where it stands"


def test_forks_are_drawn_as_branches_off_the_node_that_asked() -> None:
    from agent_interrupts.app.run_picture import fork_branches
    from agent_interrupts.models.forks import (
        ForkLink,
        ForkParent,
        ForkPoint,
        ForkPointKind,
        ListedFork,
    )
    from agent_interrupts.models.interrupts import InterruptResolution

    def link(parent: str, question: str, at: datetime) -> ForkLink:
        return ForkLink(
            parent=ForkParent(workflow_id=parent, run_id="r"),
            point=ForkPoint(
                kind=ForkPointKind.QUESTION,
                question_id=question,
                agent_type=A.PLANNING_COLLECTOR,
            ),
            answer=InterruptResolution(free_text="the other way"),
            forked_by="grace <b>",
            forked_at=at,
        )

    later = datetime(2026, 1, 2, tzinfo=UTC)
    forks = [
        ListedFork(workflow_id="run-1-fork-b", status="RUNNING", link=link("run-1", "q1", later)),
        ListedFork(workflow_id="run-1-fork-a", status="COMPLETED", link=link("run-1", "q1", AT)),
        ListedFork(workflow_id="run-1-fork-c", status="FAILED", link=None),
    ]
    branches = fork_branches(forks, link("run-0", "run-0-interrupt-2", AT))
    assert [b.workflow_id for b in branches] == [
        "run-0",
        "run-1-fork-c",
        "run-1-fork-a",
        "run-1-fork-b",
    ], "the parent, then the forks oldest first (one whose link is unread first)"
    assert branches[0].parent and branches[0].line() == (
        "this run is a fork of run-0 at run-0-interrupt-2, forked by grace <b>"
    )
    assert (
        branches[2].line() == "fork run-1-fork-a branches off at q1, forked by grace <b>: COMPLETED"
    )

    views = node_views(ran(A.ORCHESTRATOR, A.PLANNING_COLLECTOR), None, "COMPLETED")
    console = Console(width=200, record=True)
    console.print(picture(views, SOFTWARE_TEAM, branches))
    rows = console.export_text().splitlines()
    at = next(i for i, r in enumerate(rows) if "PLANNING_COLLECTOR" in r.split()[:2])
    assert "⑂ parent run-0" in rows[at + 1] and "⑂ fork run-1-fork-a" in rows[at + 2], (
        "each branch under the node whose question it answered another way"
    )
    assert any("⑂ fork run-1-fork-c" in r for r in rows[-1:]), "a branch off no node: at the end"

    drawn = svg(views, SOFTWARE_TEAM, branches)
    assert drawn.count('class="branch"') == 3, "a curve joins each branch to its node"
    assert "forked by grace &lt;b&gt;" in drawn and "grace <b>" not in drawn
    assert svg(views, SOFTWARE_TEAM) == svg(views, SOFTWARE_TEAM, ()), "no branch: as before"
