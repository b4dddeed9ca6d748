""" "We are here" (research R8): the graph with one unified interrupt node, the marker on the
current node, and the current node's routing options read from its Routing model."""

from __future__ import annotations

import pytest

from agent_interrupts.activities.contributors import default_registry
from agent_interrupts.activities.contributors.we_are_here import HERE, render_graph
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS, AgentType
from tests.support.prompts import make_call

RENDERER = PromptRenderer()


def _section(agent: AgentType) -> str:
    system = RENDERER.agent_messages(NODES[agent], make_call(agent), team=SOFTWARE_TEAM).system
    start = system.index("## Where you are in the workflow\n")
    end = system.find("\n## ", start + 1)
    return system[start : end if end != -1 else None]


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_the_marker_is_on_the_current_node_and_only_there(agent: AgentType) -> None:
    assert "we-are-here" in [
        c.name for c in default_registry().for_agent(agent, team=SOFTWARE_TEAM)
    ]
    section = _section(agent)
    marked = [line for line in section.splitlines() if HERE in line]
    assert len(marked) == 1
    assert marked[0].startswith(f"{HERE} {agent.value} ")


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_routing_options_are_the_real_route_fields_with_targets(agent: AgentType) -> None:
    model = NODES[agent].output_model
    section = _section(agent)
    options = [line for line in section.splitlines() if line.startswith("- `")]
    routes = model.route_aliases()
    assert len(options) == len(routes)
    for line, (alias, target) in zip(options, routes.items(), strict=True):
        assert line.startswith(f"- `{alias}` -> {target.value}: ")
    assert f"Your routing options ({model.__name__};" in section
    # the node's graph line lists exactly the targets of its routes
    line = next(x for x in section.splitlines() if x.startswith(f"{HERE} {agent.value}"))
    assert set(line.split(" -> ", 1)[1].split(" | ")) == {t.value for t in routes.values()}


def test_the_graph_has_every_node_and_one_unified_interrupt_node() -> None:
    graph = render_graph(None, team=SOFTWARE_TEAM)
    assert HERE not in graph
    nodes = [line.strip().split(" ", 1)[0] for line in graph.splitlines()]
    assert nodes == [a.value for a in NODES] + ["INTERRUPT"]
    assert graph.count("INTERRUPT (unified handler)") == 1
    assert "InterruptRequest" not in graph, "no per-agent interrupt handlers"
    for agent, _node in NODES.items():
        line = next(x for x in graph.splitlines() if x.strip().startswith(agent.value + " "))
        assert line.endswith("| INTERRUPT"), "every agent can reach the one handler"
        if agent in DISPATCHED_AGENTS:
            dispatcher = DISPATCHED_AGENTS[agent].value
            assert f"(dispatched by {dispatcher}, " in line
            assert line.endswith(f"-> {dispatcher} | INTERRUPT"), "a result or a question"


def test_the_interrupt_node_can_carry_the_marker() -> None:
    graph = render_graph(Terminal.INTERRUPT, team=SOFTWARE_TEAM)
    (marked,) = [line for line in graph.splitlines() if HERE in line]
    assert marked.startswith(f"{HERE} INTERRUPT (unified handler) -> back to the agent that asked")
