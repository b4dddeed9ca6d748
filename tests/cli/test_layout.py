"""The Layout (docs/layout.md) names every module where it lives, and nothing that is not there."""

from __future__ import annotations

import re

from tests.cli.support import ROOT

FOLDERS = (
    "models",
    "workflows",
    "activities",
    "activities/tools",
    "activities/contributors",
    "app",
    "app/inbox",
    "app/cli",
    "package",
    "teams/software",
)


def _named() -> dict[str, set[str]]:
    """Modules the Layout block names, by the folder whose paragraph names them."""
    text = (ROOT / "docs" / "layout.md").read_text()
    block = text[text.index("# Layout") :].split("```")[1]
    named: dict[str, set[str]] = {}
    folder = ""
    for line in filter(None, block.splitlines()):
        if not line.startswith(" "):
            folder = line.split()[0].rstrip("/")
        named.setdefault(folder, set()).update(re.findall(r"\b(\w+\.py)\b", line))
    return named


def test_the_layout_names_every_module_where_it_lives() -> None:
    named = _named()
    for folder in FOLDERS:
        there = {p.name for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py"}
        said = named.get(folder, set())
        assert there - said == set(), f"{folder}/ modules the Layout does not name"
        assert said - there == set(), f"the Layout names modules {folder}/ does not hold"
    assert set(named) - {*FOLDERS, "prompts", "teams", "tests", "bench", "docs"} == set()
