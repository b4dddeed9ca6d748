"""The team language expresses the software team's shapes: a discovery agent's report declared
in a team file (``[types]`` FileReference, CrossLink, DiagramEdge, Diagram and the result's
fields) gives the model the schema the hand-written ``DiscoveryAgentResult`` gives it, after
the strict-schema pass, in every profile; and one value's wire form round-trips identically
through both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast, get_args

import pytest
from pydantic import BaseModel

from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.results import FileReference
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.results import (
    CrossLink,
    Diagram,
    DiagramEdge,
    DiscoveryAgentResult,
)

TEAM_FILE = """
name = "discovery"
description = "The software team's discovery report, declared in the team language."

[types.FileReference]
path = "text"
start_line = "int"
end_line = "int"
relevance = { type = "float", description = "0 (unrelated) to 1 (central to the goal)" }
note = "text"
valid = { type = "bool", filled = true, default = true }

[types.CrossLink]
source = "text"
target = "text"
relation = "text"

[types.DiagramEdge]
source = "text"
target = "text"
label = "text"

[types.Diagram]
title = "text"
nodes = "list[text]"
edges = "list[DiagramEdge]"

[agents.LEAD]
role = "orchestrator"
[agents.LEAD.routes]
FAN = "Send discovery agents out."

[agents.FAN]
role = "dispatcher"
dispatches = "AGENT"
[agents.FAN.routes]
END = "Every report is in."

[agents.AGENT]
role = "dispatched"
description = "One discovery agent's report on its subdomain (FR-030..036)."
[agents.AGENT.request]
subdomain = "text"
focus_questions = "list[text]"
[agents.AGENT.result]
subdomain = "text"
summary = "text"
findings = "list[text]"
file_references = { type = "list[FileReference]", min_items = 10 }
cross_links = "list[CrossLink]"
tags = { type = "list[text]", min_items = 5 }
generated_queries = { type = "list[text]", min_items = 3 }
diagrams = "list[Diagram]"
"""
DIFFERENCES = {"$defs/CrossLink/description", "$defs/Diagram/description"}
"""All that differs: the hand-written CrossLink and Diagram have docstrings (a record type
declares fields only, no description of its own)."""
RECORDS = ("DiscoveryAgentResult", "FileReference", "CrossLink", "DiagramEdge", "Diagram")


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Team:
    """The declared team, loaded from its team file."""
    folder = tmp_path_factory.mktemp("discovery")
    (folder / "team.toml").write_text(TEAM_FILE)
    for agent in ("lead", "fan", "agent"):
        (folder / f"{agent}.jinja").write_text('{% extends "workflow/_agent_base.jinja" %}')
    return build_team(load_team_file(Path(folder)))


@pytest.fixture(scope="module")
def declared(team: Team) -> type[BaseModel]:
    """The declared AGENT's result model."""
    field = team.nodes["AGENT"].output_model.model_fields["result"]
    result = next(a for a in get_args(field.annotation) if isinstance(a, type))
    assert result.__name__ == "DiscoveryAgentResult"
    return cast(type[BaseModel], result)


def _differences(a: Any, b: Any, path: str = "") -> set[str]:
    """Paths (``$defs/Diagram/description``) where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        found: set[str] = set()
        for key in a.keys() | b.keys():
            at = f"{path}/{key}".lstrip("/")
            found |= _differences(a[key], b[key], at) if key in a and key in b else {at}
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return set().union(
            *(_differences(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True)))
        )
    return set() if a == b else {path}


@pytest.mark.parametrize("profile", list(OutputProfile))
def test_the_declared_report_gives_the_model_the_hand_written_schema(
    declared: type[BaseModel], profile: OutputProfile
) -> None:
    hand = decoder_schema(DiscoveryAgentResult, profile)
    ours = decoder_schema(declared, profile)
    assert _differences(hand, ours) == DIFFERENCES
    assert hand["$defs"]["Diagram"]["description"] and "description" not in ours["$defs"]["Diagram"]


@pytest.mark.parametrize("profile", list(OutputProfile))
def test_in_the_agents_routing_the_report_and_its_records_are_the_hand_written_ones(
    team: Team, profile: OutputProfile
) -> None:
    """As the model sees them: the ``$defs`` of the dispatched agent's routing schema."""
    hand = decoder_schema(SOFTWARE_TEAM.nodes[AgentType.DISCOVERY_AGENT].output_model, profile)
    ours = decoder_schema(team.nodes["AGENT"].output_model, profile)
    hand_defs = {name: hand["$defs"][name] for name in RECORDS}
    our_defs = {name: ours["$defs"][name] for name in RECORDS}
    assert _differences(hand_defs, our_defs) == {"CrossLink/description", "Diagram/description"}


def _report() -> DiscoveryAgentResult:
    return DiscoveryAgentResult(
        result_id="r-1",
        upstream_context_ids=["ctx-1"],
        subdomain="rate limits",
        summary="Limits live in the gateway middleware.",
        findings=["one limiter per route"],
        file_references=[
            FileReference(
                path="src/gw/limits.py", start_line=3, end_line=9, relevance=0.9, note="limiter"
            ),
            FileReference(
                path="src/gw/gone.py",
                start_line=1,
                end_line=2,
                relevance=0.1,
                note="x",
                valid=False,
            ),
            *(
                FileReference(
                    path=f"src/gw/part{n}.py", start_line=n, end_line=n + 1, relevance=0.5, note="p"
                )
                for n in range(8)
            ),
        ],
        cross_links=[CrossLink(source="limits.py", target="config.py", relation="reads")],
        tags=["gateway", "limits", "middleware", "config", "routes"],
        generated_queries=["where are limits read?", "who sets them?", "what resets them?"],
        diagrams=[
            Diagram(
                title="requests",
                nodes=["client", "gateway"],
                edges=[DiagramEdge(source="client", target="gateway", label="calls")],
            )
        ],
    )


def test_a_value_round_trips_identically_through_both(declared: type[BaseModel]) -> None:
    wire = _report().to_wire()
    ours = declared.model_validate_json(json.dumps(wire)).to_wire()
    assert ours == {**wire, "teamAgent": "AGENT"}  # a declared result names its agent
    del ours["teamAgent"]
    assert DiscoveryAgentResult.model_validate_json(json.dumps(ours)).to_wire() == wire


@pytest.mark.parametrize("profile", list(OutputProfile))
def test_a_models_reply_reads_the_same_through_both(
    declared: type[BaseModel], profile: OutputProfile
) -> None:
    """What the model writes (no filled field: ``valid`` takes its default, true, in both)."""
    schema = decoder_schema(DiscoveryAgentResult, profile)
    reply = OfflineModel().answer("DiscoveryAgentResult", schema, [])
    hand = DiscoveryAgentResult.model_validate_json(reply).to_wire()
    ours = declared.model_validate_json(reply).to_wire()
    assert "valid" not in reply and hand["fileReferences"][0]["valid"] is True
    assert ours == {**hand, "teamAgent": "AGENT"}
