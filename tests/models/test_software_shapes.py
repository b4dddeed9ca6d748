"""The team language expresses the software team's shapes: a discovery agent's report declared
in a team file (``[types]`` FileReference, CrossLink, DiagramEdge, Diagram, their
``[descriptions]`` and the result's fields) gives the model the schema the hand-written
``DiscoveryAgentResult`` gives it, after the strict-schema pass, in every profile; one value's
wire form round-trips identically through both; and the software team's own file declares every
agent's request, result and question beside its ``classes``, each building exactly the class's
schema in every profile."""

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
from agent_interrupts.models.team_build import DeclaredShape, build_team, declared_shapes
from agent_interrupts.models.team_files import load_software_team, load_team_file
from agent_interrupts.models.team_spec import Role
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

[descriptions]
CrossLink = "A relation between two findings (by their text or file path)."
Diagram = "A diagram as structured data: named nodes and labelled edges."

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
    assert _differences(hand, ours) == set()
    assert ours["$defs"]["Diagram"]["description"] == hand["$defs"]["Diagram"]["description"]


@pytest.mark.parametrize("profile", list(OutputProfile))
def test_in_the_agents_routing_the_report_and_its_records_are_the_hand_written_ones(
    team: Team, profile: OutputProfile
) -> None:
    """As the model sees them: the ``$defs`` of the dispatched agent's routing schema."""
    hand = decoder_schema(SOFTWARE_TEAM.nodes[AgentType.DISCOVERY_AGENT].output_model, profile)
    ours = decoder_schema(team.nodes["AGENT"].output_model, profile)
    hand_defs = {name: hand["$defs"][name] for name in RECORDS}
    our_defs = {name: ours["$defs"][name] for name in RECORDS}
    assert _differences(hand_defs, our_defs) == set()


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


SOFTWARE = load_software_team()
SHAPES = declared_shapes(SOFTWARE)


def _own_fields(request: type[BaseModel]) -> list[str]:
    """The fields a request's schema shows beside every request's ``guidance``."""
    return [name for name in decoder_schema(request)["properties"] if name != "guidance"]


def test_every_software_agent_declares_what_it_asks_and_returns() -> None:
    """Each agent's request (when its class has fields of its own), result and question, and the
    team's final result; a dispatcher's are the language's own (``requests``,
    ``dispatchResult``) and the last collector's result is the final one."""
    tables = {(s.agent, s.table) for s in SHAPES}
    assert ("", "final") in tables
    for agent in SOFTWARE.agents:
        node = SOFTWARE_TEAM.nodes[agent.name]
        if agent.role is Role.DISPATCHER:
            assert not (agent.request or agent.result or agent.question)
            continue
        assert (agent.name, "question") in tables
        if agent.name != AgentType.ORCHESTRATOR_COLLECTOR:
            assert (agent.name, "result") in tables
        if _own_fields(node.request_model):
            assert (agent.name, "request") in tables
    assert len(SHAPES) == 39  # 14 questions, 13 results, 11 requests, the final


@pytest.mark.parametrize("profile", list(OutputProfile))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s.agent or 'team'}-{s.table}")
def test_each_declared_table_builds_exactly_its_classs_schema(
    shape: DeclaredShape, profile: OutputProfile
) -> None:
    assert shape.declared is not shape.named
    ours = decoder_schema(shape.declared, profile)
    hand = decoder_schema(shape.named, profile)
    assert _differences(hand, ours) == set()
    assert _orders(ours) == _orders(hand)  # fields in the same order (the order a model writes)


def _orders(node: Any, path: str = "") -> dict[str, list[str]]:
    """The order of every object's ``properties`` and of the ``$defs``, by path."""
    found: dict[str, list[str]] = {}
    if isinstance(node, dict):
        for key in ("properties", "$defs"):
            if isinstance(node.get(key), dict):
                found[f"{path}/{key}"] = list(node[key])
        for key, value in node.items():
            found |= _orders(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found |= _orders(value, f"{path}[{i}]")
    return found


def test_the_built_software_team_still_uses_the_classes() -> None:
    """What the run uses is the named classes: the declared fields change no payload."""
    for shape in SHAPES:
        if shape.table == "request":
            assert SOFTWARE_TEAM.nodes[shape.agent].request_model is shape.named
        elif shape.table == "question":
            assert SOFTWARE_TEAM.questions[shape.agent] is shape.named
    assert SOFTWARE_TEAM.final_result.__name__ == "OrchestratorCollectorResult"
    assert SOFTWARE_TEAM.curated == {}  # its collectors curate through their classes' contexts
