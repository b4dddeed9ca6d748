"""Record types in the team language (``[types.NAME]``): fields of a record or a list of
records, nested a few deep, never recursive; ``min_items``; filled fields the model never
writes; every problem one line; a team without them keeps its content hash."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from pydantic import ValidationError

from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema
from agent_interrupts.models.team_build import build_team, record_models
from agent_interrupts.models.team_spec import (
    MAX_RECORD_DEPTH,
    SHARED_MODEL_NAMES,
    FieldSpec,
    TeamSpec,
    field_type_problem,
    generated_model_names,
    spec_problems,
)

BASE = '{% extends "workflow/_agent_base.jinja" %}'


def _team(types: dict[str, Any], **result: Any) -> TeamSpec:
    return TeamSpec.model_validate(
        {
            "name": "maps",
            "types": types,
            "agents": [
                {
                    "name": "LEAD",
                    "role": "orchestrator",
                    "routes": {"END": "Done."},
                    "result": result or {"edge": {"type": "Edge"}},
                    "question": {"where": {"type": "Edge"}},
                    "template": BASE,
                }
            ],
        }
    )


EDGE = {"source": {"type": "str"}, "target": {"type": "str"}}
DIAGRAM = {
    "title": {"type": "str"},
    "edges": {"type": "list[Edge]", "min_items": 2},
    "checked": {"type": "bool", "filled": True, "default": True},
    "kind": {"type": "enum(FLOW|CALLS)", "filled": True},
    "sources": {"type": "list[str]", "filled": True},
}
MAPS = _team({"Edge": EDGE, "Diagram": DIAGRAM}, diagrams={"type": "list[Diagram]"})


def test_a_record_type_is_a_field_type_of_its_team_only() -> None:
    assert field_type_problem("list[Edge]", {"Edge"}) is None
    assert field_type_problem("Edge", {"Edge"}) is None
    problem = field_type_problem("list[Edge]")
    assert problem is not None and "[types.Edge]" in problem
    other = field_type_problem("list[list[Edge]]", {"Edge"})
    assert other is not None and "a record type or enum of the team" in other


def test_records_build_closed_bounded_models_named_as_declared() -> None:
    assert spec_problems(MAPS) == []
    team = build_team(MAPS)
    for profile in OutputProfile:
        schema = decoder_schema(team.nodes["LEAD"].output_model, profile)
        diagram = schema["$defs"]["Diagram"]
        assert diagram["additionalProperties"] is False
        assert diagram["required"] == list(diagram["properties"]) == ["title", "edges"]
        edges = diagram["properties"]["edges"]
        assert edges["minItems"] == 2 and edges["maxItems"] >= 2  # min_items holds in every profile
        assert schema["$defs"]["Edge"]["properties"]["source"]["maxLength"] <= 500
        assert "checked" not in str(schema) and "sources" not in str(schema)  # filled: not written


def test_a_filled_field_takes_its_default_and_a_short_list_is_refused() -> None:
    diagram = record_models(MAPS)["Diagram"]
    edges = [{"source": "a", "target": "b"}] * 2
    made = diagram.model_validate({"title": "t", "edges": edges})
    assert made.to_wire() == {
        "title": "t",
        "edges": edges,
        "checked": True,
        "kind": None,
        "sources": [],
    }
    with pytest.raises(ValidationError, match="at least 2"):
        diagram.model_validate({"title": "t", "edges": edges[:1]})
    with pytest.raises(ValidationError, match="Extra inputs"):
        diagram.model_validate({"title": "t", "edges": edges, "color": "red"})


def test_a_record_that_holds_itself_is_one_line() -> None:
    looped = _team(
        {
            "Edge": EDGE,
            "Node": {"edges": {"type": "list[Link]"}},
            "Link": {"to": {"type": "Node"}},
        }
    )
    problems = spec_problems(looped)
    assert problems == [
        "type Node: holds itself (Node -> Link -> Node); a record cannot contain itself, not "
        "even through a list or another record"
    ]
    alone = spec_problems(_team({"Edge": {"next": {"type": "list[Edge]"}}}))
    assert alone == [
        "type Edge: holds itself (Edge -> Edge); a record cannot contain itself, not even "
        "through a list or another record"
    ]


def test_records_nest_a_few_deep_at_most() -> None:
    names = [f"R{i}" for i in range(MAX_RECORD_DEPTH + 1)]
    types = {n: {"inner": {"type": nxt}} for n, nxt in itertools.pairwise(names)}
    types[names[-1]] = {"leaf": {"type": "str"}}
    problems = spec_problems(_team({"Edge": EDGE, **types}))
    assert problems == [
        f"type R0: nests records {MAX_RECORD_DEPTH + 1} deep (R0 -> R1 -> R2 -> R3); at most "
        f"{MAX_RECORD_DEPTH}: flatten one level"
    ]
    del types["R0"]
    assert spec_problems(_team({"Edge": EDGE, **types})) == []


@pytest.mark.parametrize(
    ("field", "problem"),
    [
        ({"type": "str", "min_items": 2}, "min_items is for a list; the field's type is str"),
        ({"type": "bool", "default": True}, "default is for a filled field (filled = true)"),
        ({"type": "int", "filled": True, "default": "x"}, "default 'x' is not a value of type int"),
        ({"type": "enum(A|B)", "filled": True, "default": "C"}, "default 'C' is not a value"),
        ({"type": "list[str]", "filled": True, "default": "x"}, "a filled list starts empty"),
        ({"type": "Nowhere"}, "names no record type or enum of the team (declared: Edge, Extra)"),
    ],
)
def test_a_fields_keys_must_fit_its_type(field: dict[str, Any], problem: str) -> None:
    problems = spec_problems(_team({"Edge": EDGE, "Extra": {"x": field}}))
    assert len(problems) == 1 and problems[0].startswith("type Extra: record field x: ")
    assert problem in problems[0]


def test_a_record_may_not_take_a_generated_models_name_nor_be_empty() -> None:
    assert generated_model_names(MAPS) >= SHARED_MODEL_NAMES
    problems = spec_problems(_team({"Edge": EDGE, "MapsLeadResult": {}}))
    assert problems == [
        "type MapsLeadResult: the name is one of the team's generated models'; rename it",
        "type MapsLeadResult: declares no fields; give it at least one",
    ]


def test_the_shared_names_are_every_package_model_a_declared_teams_schemas_hold() -> None:
    team = build_team(MAPS)
    own = generated_model_names(MAPS) - SHARED_MODEL_NAMES | {"Edge", "Diagram"}
    seen: set[str] = set()
    for node in team.nodes.values():
        seen |= set(decoder_schema(node.output_model).get("$defs", {}))
    seen |= set(decoder_schema(team.interrupt_routing).get("$defs", {}))
    assert seen - own <= SHARED_MODEL_NAMES


def test_a_team_without_records_or_new_keys_keeps_its_wire_form_and_hash() -> None:
    plain = TeamSpec.model_validate(
        {"name": "plain", "agents": [{"name": "LEAD", "role": "orchestrator"}]}
    )
    assert "types" not in plain.to_wire()
    assert FieldSpec(type="list[str]").to_wire() == {"type": "list[str]", "description": ""}
    # the hash of this spec before record types existed (commit c254439)
    assert plain.sha256() == PLAIN_SHA256


PLAIN_SHA256 = "b78fd6ecd229ea75f8cb3ec736796b30b75edd98b420f0123740530025e04b08"
