"""Every valid team yields strict schemas a constrained decoder cannot get wrong: one closed
variant per route with exactly that route set, every string and list bounded, and a reply
written from the schema validates (property tests over team definitions)."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.output_schema import (
    OutputProfile,
    decoder_schema,
    reply_json,
    variants,
)
from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team_build import (
    LIST_ITEMS,
    STR_CHARS,
    TEXT_CHARS,
    TeamDefinitionError,
    build_team,
)
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.models.team_spec import Role, TeamSpec
from tests.support.team_strategies import valid_teams

CODE_TEAM = Path(__file__).resolve().parents[2] / "docs" / "examples" / "code-team"
MESSAGES = [{"role": "user", "content": "Goal: survey the mill"}]


def _strings_and_lists_are_bounded(node: Any, where: str = "$") -> None:
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "string" and "enum" not in node and "const" not in node:
            assert "maxLength" in node, f"unbounded string at {where}"
        if kind == "array":
            assert "maxItems" in node, f"unbounded list at {where}"
        if kind == "object":
            assert node.get("additionalProperties") is False, f"open object at {where}"
        for key, value in node.items():
            _strings_and_lists_are_bounded(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _strings_and_lists_are_bounded(value, f"{where}[{i}]")


def _check_routing(model: type[Routing], profile: OutputProfile) -> None:
    schema = decoder_schema(model, profile)
    routes = model.route_aliases()
    offered = variants(schema)
    assert len(offered) == len(routes)
    for variant, route in zip(offered, routes, strict=True):
        present = [r for r in variant["properties"] if r in routes]
        assert present == [route], "exactly one route per variant"
        assert variant["additionalProperties"] is False
        assert set(variant["required"]) == set(variant["properties"])
    _strings_and_lists_are_bounded(schema)
    reply = OfflineModel().answer(model.__name__, schema, MESSAGES)
    model.model_validate_json(reply_json(reply, schema))


@settings(max_examples=8, deadline=None)
@given(valid_teams())
def test_every_valid_team_yields_strict_schemas_with_one_route_per_variant(
    spec: TeamSpec,
) -> None:
    team = build_team(spec)
    assert set(team.nodes) == {a.name for a in spec.agents}
    for node in team.nodes.values():
        _check_routing(node.output_model, OutputProfile.STANDARD)
        assert Terminal.INTERRUPT in node.output_model.route_aliases().values()
    _check_routing(team.interrupt_routing, OutputProfile.SMALL)
    for agent in team.route_targets():  # the handler's schema filtered to each route alone
        route = team.route_for(agent)
        assert route is not None
        only = decoder_schema(team.interrupt_routing, OutputProfile.STANDARD, (route,))
        assert [r for r in only["properties"] if r in team.interrupt_routing.route_aliases()] == [
            route
        ]


@settings(max_examples=5, deadline=None)
@given(valid_teams(fan_out=True))
def test_a_fan_out_is_wired_from_the_roles(spec: TeamSpec) -> None:
    team = build_team(spec)
    dispatchers = [a for a in spec.agents if a.role is Role.DISPATCHER]
    assert dispatchers
    for dispatcher in dispatchers:
        child = dispatcher.dispatches or ""
        assert team.dispatched[child] == dispatcher.name
        assert team.node(dispatcher.name).dispatches == child
        assert team.asker(child) == dispatcher.name
        routes = team.node(child).output_model.route_aliases()
        assert routes == {"result": dispatcher.name, "interruptRequest": Terminal.INTERRUPT}
        assert team.route_for(child) is None  # a person's answer resumes its dispatcher


def test_declared_bounds_hold_in_the_models() -> None:
    spec = TeamSpec.model_validate(
        {
            "name": "bounds",
            "agents": [
                {
                    "name": "LEAD",
                    "role": "orchestrator",
                    "routes": {"END": "done"},
                    "result": {
                        "title": {"type": "str"},
                        "body": {"type": "text"},
                        "tags": {"type": "list[str]"},
                        "level": {"type": "enum(LOW|HIGH)"},
                    },
                }
            ],
        }
    )
    result = build_team(spec).node("LEAD").output_model.model_fields["result"].annotation
    assert result is not None
    ok = {"title": "t", "body": "b", "tags": ["a"], "level": "LOW"}
    result.model_validate(ok)
    for too_much in (
        {"title": "x" * (STR_CHARS + 1)},
        {"body": "x" * (TEXT_CHARS + 1)},
        {"tags": ["a"] * (LIST_ITEMS + 1)},
        {"level": "MEDIUM"},
    ):
        with pytest.raises(ValueError):
            result.model_validate({**ok, **too_much})


def test_a_team_no_run_can_follow_is_refused_with_every_problem() -> None:
    spec = TeamSpec.model_validate(
        {
            "name": "broken",
            "agents": [
                {"name": "LEAD", "role": "orchestrator", "routes": {"NOWHERE": "go"}},
                {"name": "LEAD", "role": "agent", "routes": {"END": "done"}},
            ],
        }
    )
    with pytest.raises(TeamDefinitionError) as refused:
        build_team(spec)
    text = str(refused.value)
    assert "NOWHERE" in text and "more than once" in text


def test_the_entry_request_validates_against_its_model() -> None:
    spec = TeamSpec.model_validate(
        {
            "name": "entry",
            "agents": [{"name": "LEAD", "role": "orchestrator", "routes": {"END": "done"}}],
        }
    )
    team = build_team(spec)
    request = team.node(team.entry).request_model.model_validate(team.entry_request)
    assert json.loads(request.model_dump_json(by_alias=True))["guidance"]


def test_code_writing_reviewing_and_merging_are_looked_up_by_tools_and_role() -> None:
    team = build_team(load_team_file(CODE_TEAM))
    assert team.write_tools == {"CODER"}
    assert team.read_tools == {"LEAD", "CODER", "REVIEWER"}  # write implies read
    assert team.with_role(Role.REVIEWER) == {"REVIEWER"}
    assert team.with_role(Role.MERGER) == {"MERGER"}
    # the fields the workflow fills from git: in the models, never in what the model writes
    filled = {
        "REVIEWER": ("request", "ticketChanges"),
        "MERGER": ("request", "mergeReport"),
        "CODER": ("result", "codeCommit"),
    }
    for agent, (where, field) in filled.items():
        node = team.node(agent)
        routing = node.output_model
        if where == "request":
            model: Any = node.request_model
            handler = team.interrupt_routing.model_json_schema()  # every agent's request
            assert node.request_model.__name__ in json.dumps(handler)
            assert field not in json.dumps(handler)
            assert field not in json.dumps(team.node("COLLECTOR").output_model.model_json_schema())
        else:
            model = typing.get_args(routing.model_fields["result"].annotation)[0]
            assert field not in json.dumps(routing.model_json_schema())
        assert field in {f.alias for f in model.model_fields.values()}
        assert field not in json.dumps(model.model_json_schema())
    merger_result = team.node("MERGER").output_model.model_fields["result"].annotation
    assert "code_change" in merger_result.model_fields
