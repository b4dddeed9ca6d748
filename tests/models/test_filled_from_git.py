"""A declared field with ``filled = true`` is filled by something, or refused at load: a
code-writing agent's result fields named in ``FILLED_FROM_GIT`` are filled from git and its
sandboxed test run (``tests/scenarios/test_code_team.py`` runs it); any other is one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_interrupts.models.errors import TeamFileError
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.models.team_spec import FILLED_FROM_GIT, NOTHING_FILLS

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "code-team"


def _team(tmp_path: Path, **added: str) -> Path:
    """The example team with lines added under its tables (``CODER_result`` -> under
    ``[agents.CODER.result]``)."""
    folder = tmp_path / "code-team"
    shutil.copytree(EXAMPLE, folder)
    file = folder / "team.toml"
    text = file.read_text()
    for table, line in added.items():
        header = "[" + ("agents." + table.replace("_", ".") if table != "final" else table) + "]\n"
        assert header in text, header
        text = text.replace(header, header + line + "\n")
    file.write_text(text)
    return file


def test_a_coders_git_fields_load_and_every_one_is_described() -> None:
    assert set(FILLED_FROM_GIT) == {
        "files_changed",
        "commit_sha",
        "branch",
        "diff_stat",
        "tests_passed",
        "verification",
    }
    assert all(types and what for types, what in FILLED_FROM_GIT.values())


def test_the_coders_fields_load(tmp_path: Path) -> None:
    file = _team(
        tmp_path,
        CODER_result='files_changed = { type = "list[str]", filled = true }\n'
        'tests_passed = { type = "bool", filled = true }',
    )
    coder = load_team_file(file).agent("CODER")
    assert coder.result["files_changed"].filled and coder.result["tests_passed"].filled


@pytest.mark.parametrize(
    ("table", "line", "problem"),
    [
        (
            "COLLECTOR_result",
            'shipped = { type = "bool", filled = true }',
            f"agent COLLECTOR: result field shipped: {NOTHING_FILLS}",
        ),
        (
            "CODER_result",
            'reviewed = { type = "bool", filled = true, default = true }',
            f"agent CODER: result field reviewed: {NOTHING_FILLS}",
        ),
        (
            "CODER_request",
            'files_changed = { type = "list[str]", filled = true }',
            f"agent CODER: request field files_changed: {NOTHING_FILLS}",
        ),
        (
            "CODER_result",
            'tests_passed = { type = "str", filled = true }',
            "agent CODER: result field tests_passed: the workflow fills it as bool, not str; "
            "declare it so",
        ),
        (
            "final",
            'merged = { type = "bool", filled = true }',
            f"final result field merged: {NOTHING_FILLS}",
        ),
    ],
    ids=["not-a-coder", "no-such-fact", "a-request", "wrong-type", "final"],
)
def test_a_filled_field_nothing_fills_is_refused_in_one_line(
    tmp_path: Path, table: str, line: str, problem: str
) -> None:
    file = _team(tmp_path, **{table: line})
    with pytest.raises(TeamFileError) as err:
        load_team_file(file)
    assert err.value.problems == [f"{file}: {problem}"]
