"""A small team whose fields are records (``[types]``): a list of diagrams as a result (each
holding a list of edges, at least one), a place as a question field and a request field, a
filled field the model never writes."""

from __future__ import annotations

from pathlib import Path

from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.models.team_spec import TeamSpec

TEAM_FILE = """
name = "field-maps"
description = "Maps a site: diagrams of what talks to what, and the places that matter."

[final]
summary = "str"
diagrams = { type = "list[Diagram]", description = "The site's diagrams." }

[types.Place]
path = { type = "str", description = "A file or a room." }
line = "int"
checked = { type = "bool", filled = true, default = true }

[types.Edge]
source = "str"
target = "str"
label = "str"

[types.Diagram]
title = "str"
nodes = "list[str]"
edges = { type = "list[Edge]", min_items = 1 }

[agents.SURVEYOR]
role = "orchestrator"
phase = "SURVEY"
[agents.SURVEYOR.routes]
MAPPER = "The diagrams are drawn: have them checked."
[agents.SURVEYOR.result]
diagrams = { type = "list[Diagram]", min_items = 3, description = "At least three views." }
place = "Place"
[agents.SURVEYOR.question]
where = { type = "Place", description = "The place it is unsure about." }
candidates = "list[Place]"

[agents.MAPPER]
phase = "MAP"
[agents.MAPPER.routes]
END = "The map is right."
SURVEYOR = "A diagram is wrong: say which."
[agents.MAPPER.request]
focus = "Place"
[agents.MAPPER.result]
edges = "list[Edge]"
"""
TEMPLATE = '{% extends "workflow/_agent_base.jinja" %}'


def write_record_team(folder: Path) -> Path:
    """The team file and its templates in ``folder``; returns the file."""
    (folder / "team.toml").write_text(TEAM_FILE, encoding="utf-8")
    for agent in ("surveyor", "mapper"):
        (folder / f"{agent}.jinja").write_text(TEMPLATE, encoding="utf-8")
    return folder / "team.toml"


def record_team(folder: Path) -> TeamSpec:
    """The team, loaded from its file as a worker loads it."""
    return load_team_file(write_record_team(folder))
