"""The software team, built from its team file (``teams/software/team.toml``) by the loader and
builder every team goes through; its node table and its outputs by name."""

from __future__ import annotations

from agent_interrupts.models.team import Node, Team
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import load_software_team

SOFTWARE_TEAM: Team = build_team(load_software_team())
"""The built-in team: its version is the code's (a run of it pins no team; its recorded histories
replay on every later version)."""

NODES: dict[str, Node] = dict(SOFTWARE_TEAM.nodes)
NODES_BY_OUTPUT: dict[str, Node] = {n.output_model.__name__: n for n in NODES.values()}
"""Nodes by output class name: the ``name`` of the json_schema response format."""
