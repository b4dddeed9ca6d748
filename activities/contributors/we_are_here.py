""" "We are here": the workflow graph with the current node marked (research R8).

Every node line and every routing option is read from the node table and the Routing models, so
the picture follows the schema. All agents route their questions to ONE interrupt node.
"""

from __future__ import annotations

import functools

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.activities.routing_info import INTERRUPT_LABEL, route_options
from agent_interrupts.models.agent_types import RouteTarget, Terminal
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_spec import Role

HERE = ">>> YOU ARE HERE <<<"
_INDENT = "    "


def render_graph(current: RouteTarget | None = None, *, team: Team) -> str:
    """The graph as text, one line per node; ``current`` gets the marker (the interrupt node
    gets it too, while a question is being handled)."""
    return _graph(current, team)


@functools.lru_cache(maxsize=256)
def _graph(current: RouteTarget | None, team: Team) -> str:
    lines = []
    dispatched = team.dispatched
    for node in team.nodes.values():
        agent = node.agent_type
        targets: list[str] = []
        for option in route_options(node.output_model):
            name = str(option.target)
            if name not in targets:
                targets.append(name)
        if agent in dispatched:
            text = (
                f"{agent} (dispatched by {dispatched[agent]}, several in "
                f"parallel, which raises their questions together) -> {' | '.join(targets)}"
            )
            lines.append(_line(text, agent == current, depth=2))
        else:
            runs = f" (runs {node.dispatches} agents)" if node.dispatches else ""
            text = f"{agent}{runs} -> {' | '.join(targets)}"
            lines.append(_line(text, agent == current))
    lines.append(
        _line(
            f"{INTERRUPT_LABEL} -> back to the agent that asked (its one return route; every "
            "other route is filtered out), or to a supervisor event's rerouteToAgentType",
            current is Terminal.INTERRUPT,
        )
    )
    return "\n".join(lines)


def _line(text: str, here: bool, depth: int = 1) -> str:
    return f"{HERE} {text}" if here else f"{_INDENT * depth}{text}"


def where_we_are(agent: str, team: Team) -> str:
    """The whole section for ``agent``: the marked graph, then its own routing options."""
    return _where(agent, team)


@functools.lru_cache(maxsize=256)
def _where(agent: str, team: Team) -> str:
    node = team.node(agent)
    returns = (
        "; RETURN goes back to the agent that asked the context manager"
        if team.with_role(Role.CONTEXT_MANAGER)
        else ""
    )
    parts = [
        "The workflow graph; each line is a node and where its routes lead. Every agent that "
        f"routes can send a question to the one INTERRUPT node; END returns the final "
        f"result{returns}.",
        "```",
        render_graph(agent, team=team),
        "```",
    ]
    parts.append(
        f"Your routing options ({node.output_model.__name__}; set exactly one, leave the "
        "others null):"
    )
    parts += [
        f"- `{o.alias}` -> {o.target}: {o.description}" for o in route_options(node.output_model)
    ]
    return "\n".join(parts)


class WeAreHereContributor(PromptContributor):
    """Shows every agent where it stands in the graph and where it may go from here."""

    name = "we-are-here"
    title = "Where you are in the workflow"
    order = 20
    applies_to = None

    def contribute(self, ctx: PromptContext) -> str:
        return where_we_are(ctx.agent_type, ctx.team)
