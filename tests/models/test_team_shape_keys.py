"""What the team language gained to say the software team's shapes, available to every team:
named enums with their values' meanings (``[enums]``), descriptions of records, enums, an
agent's request, result and question and the final result, ``optional`` values, ``max_chars``,
and first-request fields given in ``[first_request]``. Each misuse is one line; a team that uses
none of them keeps its wire form and content hash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema
from agent_interrupts.activities.routing_info import interrupt_info
from agent_interrupts.models.errors import TeamDefinitionError, TeamFileError
from agent_interrupts.models.team_build import build_team, record_models
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.models.team_spec import MAX_FIELD_CHARS, TeamSpec, spec_problems

BASE = '{% extends "workflow/_agent_base.jinja" %}'


def _team(**keys: Any) -> TeamSpec:
    """A team of one orchestrator (``LEAD``), its result and question from ``keys``."""
    lead = {
        "name": "LEAD",
        "role": "orchestrator",
        "routes": {"END": "Done."},
        "result": keys.pop("result", {"level": {"type": "Level"}}),
        "question": keys.pop("question", {}),
        "descriptions": keys.pop("agent_descriptions", {}),
        "template": BASE,
    }
    wire = {"name": "shapes", "agents": [lead], **keys}
    wire.setdefault("enums", {"Level": {"LOW": "", "HIGH": ""}})
    return TeamSpec.model_validate(wire)


def _result_schema(spec: TeamSpec, profile: OutputProfile = OutputProfile.STANDARD) -> Any:
    output = build_team(spec).nodes["LEAD"].output_model
    schema = decoder_schema(output, profile)
    return schema, schema["$defs"]["ShapesLeadResult"]


def test_a_named_enum_is_named_in_the_schema_with_its_values_meanings() -> None:
    spec = _team(
        enums={"Level": {"LOW": "cosmetic", "HIGH": "blocks the release", "NONE": ""}},
        descriptions={"Level": "How bad it is."},
        result={"level": {"type": "Level"}},
    )
    schema, result = _result_schema(spec)
    assert result["properties"]["level"] == {"$ref": "#/$defs/Level"}
    assert schema["$defs"]["Level"] == {
        "description": "How bad it is. LOW: cosmetic; HIGH: blocks the release",
        "enum": ["LOW", "HIGH", "NONE"],
        "title": "Level",
        "type": "string",
    }
    plain = _result_schema(_team())[0]["$defs"]["Level"]
    assert "description" not in plain  # no meanings, no description: the hand-written form


def test_descriptions_of_records_and_of_an_agents_tables() -> None:
    spec = _team(
        types={"Edge": {"source": {"type": "text"}}},
        descriptions={"Edge": "One edge."},
        result={"edge": {"type": "Edge"}},
        question={"edge": {"type": "Edge"}},
        agent_descriptions={"result": "What it found.", "question": "What it asks."},
        final_description="What the run achieved.",
    )
    team = build_team(spec)
    schema, result = _result_schema(spec)
    assert result["description"] == "What it found."
    assert schema["$defs"]["Edge"]["description"] == "One edge."
    assert team.questions["LEAD"].__doc__ == "What it asks."
    assert team.final_result.__doc__ == "What the run achieved."
    none = _team(agent_descriptions={"result": ""})
    assert "description" not in _result_schema(none)[1]  # an empty one gives none


def test_an_optional_value_may_be_null_and_a_filled_one_starts_null() -> None:
    spec = _team(
        types={"Commit": {"sha": {"type": "str", "optional": True, "filled": True}}},
        result={
            "commit": {"type": "Commit", "optional": True},
            "level": {"type": "Level", "optional": True},
        },
    )
    _, result = _result_schema(spec)
    assert result["properties"]["level"]["anyOf"] == [{"$ref": "#/$defs/Level"}, {"type": "null"}]
    assert result["required"] == ["commit", "level"]  # strict: written, as null for none
    commit = record_models(spec)["Commit"]
    assert commit.model_validate({}).to_wire() == {"sha": None}


def test_the_prompt_words_an_optional_question_field_as_its_type_or_null() -> None:
    spec = _team(question={"level": {"type": "Level", "optional": True, "description": "How bad."}})
    info = interrupt_info(build_team(spec).nodes["LEAD"].output_model)
    assert info is not None
    assert [(f.name, f.kind, f.description) for f in info.own_fields] == [
        ("level", "one of LOW, HIGH, or null", "How bad.")
    ]


def test_max_chars_bounds_a_text_up_to_the_longest_a_run_takes() -> None:
    spec = _team(result={"goal": {"type": "text", "max_chars": MAX_FIELD_CHARS}})
    for profile, bound in ((OutputProfile.STANDARD, MAX_FIELD_CHARS), (OutputProfile.SMALL, 160)):
        _, result = _result_schema(spec, profile)
        assert result["properties"]["goal"]["maxLength"] == bound  # "goal": the profile's own


@pytest.mark.parametrize(
    ("keys", "problem"),
    [
        (
            {"result": {"tags": {"type": "list[str]", "optional": True}}},
            "agent LEAD: result field tags: optional is for a single value (an empty list says "
            "none); remove optional",
        ),
        (
            {"result": {"n": {"type": "int", "max_chars": 10}}},
            "agent LEAD: result field n: max_chars is for str or text (or a list of them); the "
            "field's type is int",
        ),
        (
            {
                "types": {"Mark": {"level": {"type": "Level", "filled": True, "default": "MID"}}},
                "result": {"mark": {"type": "Mark"}},
            },
            "type Mark: record field level: default 'MID' is not a value of enum Level (LOW, HIGH)",
        ),
        (
            {"types": {"Level": {"x": {"type": "str"}}}},
            "enum Level: the name is a record type's too ([types.Level]); rename one",
        ),
        ({"enums": {"Level": {}}}, "enum Level: declares no values; give it at least one"),
        (
            {"enums": {"Level": {"A": ""}, "OptionKey": {"A": ""}}},
            "enum OptionKey: the name is one of the team's generated models'; rename it",
        ),
        (
            {"descriptions": {"Edge": "x"}},
            "descriptions names Edge, which is no record type or enum of the team; declare "
            "[types.Edge] or [enums.Edge], or remove its description",
        ),
    ],
)
def test_each_misuse_is_one_line(keys: dict[str, Any], problem: str) -> None:
    assert spec_problems(_team(**keys)) == [problem]


def test_a_filled_enum_takes_its_default() -> None:
    spec = _team(
        types={
            "Mark": {
                "note": {"type": "str"},
                "level": {"type": "Level", "filled": True, "default": "HIGH"},
            }
        },
        result={"mark": {"type": "Mark"}},
    )
    assert spec_problems(spec) == []
    schema, _ = _result_schema(spec)
    assert list(schema["$defs"]["Mark"]["properties"]) == ["note"]
    assert record_models(spec)["Mark"].model_validate({"note": "n"}).to_wire() == {
        "note": "n",
        "level": "HIGH",
    }


def _file(tmp_path: Path, text: str) -> Path:
    (tmp_path / "lead.jinja").write_text(BASE)
    file = tmp_path / "team.toml"
    file.write_text(text)
    return file


HEAD = (
    'name = "shapes"\n[agents.LEAD]\nrole = "orchestrator"\n[agents.LEAD.routes]\nEND = "Done."\n'
)


def test_a_team_file_names_enums_as_a_list_or_with_meanings(tmp_path: Path) -> None:
    text = (
        HEAD
        + '[agents.LEAD.result]\nlevel = "Level"\nsize = "Size"\n'
        + '[enums]\nSize = ["S", "M", "L"]\n'
        + '[enums.Level]\nLOW = "cosmetic"\nHIGH = ""\n'
        + '[descriptions]\nSize = "How big."\n'
    )
    spec = load_team_file(_file(tmp_path, text))
    assert spec.enums == {
        "Size": {"S": "", "M": "", "L": ""},
        "Level": {"LOW": "cosmetic", "HIGH": ""},
    }
    assert spec.descriptions == {"Size": "How big."}


@pytest.mark.parametrize(
    ("enums", "problem"),
    [
        (
            '[enums]\nSize = ["S", "S"]\n',
            "enum Size: a value is listed more than once; list each once",
        ),
        (
            "[enums]\nSize = 3\n",
            'enum Size: give its values (["A", "B"]) or a table of values and their meanings '
            '([enums.Size] A = "what A means")',
        ),
        (
            '[enums]\nSize = ["small"]\n',
            "enum Size: value 'small' is not upper case letters, digits and underscores starting "
            "with a letter (at most 40 characters)",
        ),
        (
            '[enums]\nsize = ["S"]\n',
            "enum name 'size' is not CamelCase (a capital letter, then "
            "letters and digits, at most 40 characters)",
        ),
    ],
)
def test_enum_mistakes_in_a_file_are_one_line(tmp_path: Path, enums: str, problem: str) -> None:
    file = _file(tmp_path, HEAD + enums)
    with pytest.raises(TeamFileError) as refused:
        load_team_file(file)
    assert [p.removeprefix(f"{file}: ") for p in refused.value.problems] == [problem]


def test_the_first_agents_request_fields_take_their_values_from_first_request() -> None:
    def team(first: dict[str, str], kind: str = "text") -> TeamSpec:
        return TeamSpec.model_validate(
            {
                "name": "shapes",
                "first_request": first,
                "agents": [
                    {
                        "name": "LEAD",
                        "role": "orchestrator",
                        "routes": {"END": "Done."},
                        "request": {"phase": {"type": kind}},
                        "template": BASE,
                    }
                ],
            }
        )

    assert spec_problems(team({"phase": "DISCOVERY"})) == []
    assert build_team(team({"phase": "DISCOVERY"})).entry_request["phase"] == "DISCOVERY"
    assert spec_problems(team({})) == [
        "agent LEAD: the first agent's request field(s) phase have no value (a run starts it "
        "with the goal); give each one in [first_request] or move it to another agent's request"
    ]
    with pytest.raises(TeamDefinitionError, match=r"^\[first_request\]: phase is not a value"):
        build_team(team({"phase": "many"}, kind="int"))


def test_a_team_without_the_new_keys_keeps_its_wire_form() -> None:
    plain = TeamSpec.model_validate(
        {"name": "plain", "agents": [{"name": "LEAD", "role": "orchestrator"}]}
    )
    wire = plain.to_wire()
    assert not {"enums", "descriptions", "finalDescription"} & set(wire)
    assert "descriptions" not in wire["agents"][0]
    assert set(wire["final"]["summary"]) == {"type", "description"}
