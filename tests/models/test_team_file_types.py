"""Record types in a team file: ``[types.NAME]`` tables read into the team, and each mistake in
them one line naming the file and the type."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_interrupts.models.errors import TeamFileError
from agent_interrupts.models.team_files import load_team_file
from tests.support.record_team import TEAM_FILE, write_record_team


def test_a_team_file_declares_record_types(tmp_path: Path) -> None:
    spec = load_team_file(write_record_team(tmp_path))
    assert list(spec.types) == ["Place", "Edge", "Diagram"]
    assert spec.types["Diagram"]["edges"].min_items == 1
    checked = spec.types["Place"]["checked"]
    assert checked.filled and checked.default is True
    assert spec.agent("SURVEYOR").question["where"].type == "Place"


def _problems(tmp_path: Path, text: str) -> list[str]:
    file = write_record_team(tmp_path)
    file.write_text(text, encoding="utf-8")
    with pytest.raises(TeamFileError) as refused:
        load_team_file(file)
    return [p.removeprefix(f"{file}: ") for p in refused.value.problems]


def test_a_field_key_the_format_lacks_and_a_type_that_is_a_value(tmp_path: Path) -> None:
    text = TEAM_FILE.replace('line = "int"', 'line = { type = "int", color = "red" }')
    assert _problems(tmp_path, text) == [
        "type Place: field line: unknown key 'color' (a field has: type, description, "
        "min_items, max_chars, optional, filled, default)"
    ]
    lone = 'name = "x"\ntypes = { Place = "str" }\n[agents.A]\nrole = "orchestrator"\n'
    assert _problems(tmp_path, lone) == [
        "type Place: `types.Place` is a value, not a [types.Place] table"
    ]


def test_record_mistakes_are_one_line_each_naming_the_type(tmp_path: Path) -> None:
    text = (
        TEAM_FILE.replace('edges = { type = "list[Edge]", min_items = 1 }', 'edges = "list[Edges]"')
        .replace("[types.Edge]", "[types.edge]")
        .replace('label = "str"', 'label = "str"\nBack = "Diagram"')
    )
    assert _problems(tmp_path, text) == [
        "type name 'edge' is not CamelCase (a capital letter, then letters and digits, at most "
        "40 characters)",
        "type edge: record field name 'Back' is not snake_case (lower case letters, digits and "
        "underscores, starting with a letter, at most 40 characters)",
    ]


def test_a_record_that_holds_itself_names_the_file_and_the_chain(tmp_path: Path) -> None:
    text = TEAM_FILE.replace('label = "str"', 'label = "str"\nback = "Diagram"')
    assert _problems(tmp_path, text) == [
        "type Edge: holds itself (Edge -> Diagram -> Edge); a record cannot contain itself, not "
        "even through a list or another record"
    ]


def test_the_manuals_records_load(tmp_path: Path) -> None:
    """The records of docs/teams.md, in a team of one agent, load as written there."""
    page = (Path(__file__).parents[2] / "docs" / "teams.md").read_text(encoding="utf-8")
    records = page.split("### Records", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    head = 'name = "scouts"\n[agents.SCOUT]\nrole = "orchestrator"\n[agents.SCOUT.routes]\n'
    file = tmp_path / "team.toml"
    file.write_text(head + 'END = "Done."\n' + records, encoding="utf-8")
    (tmp_path / "scout.jinja").write_text('{% extends "workflow/_agent_base.jinja" %}')
    spec = load_team_file(file)
    assert list(spec.types) == ["FileReference", "DiagramEdge", "Diagram"]
    assert set(spec.agent("SCOUT").result) == {"file_references", "diagrams"}
