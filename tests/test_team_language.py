"""One team language: outside ``teams/software/`` (the software team's file, templates and the
typed models its file names), no product module names a software agent, the generic models of
``models/`` included. A capability is looked up by role or by declared tools in the run's team;
what is left is listed here with why, and may only shrink."""

from __future__ import annotations

import ast
from pathlib import Path

from agent_interrupts.teams.software.agents import AgentType

ROOT = Path(__file__).parents[1]
PRODUCT = ("models", "activities", "app", "workflows", "package", "teams")
TEAM_OWN = "teams/software"
"""The software team's own folder: its typed models name its agents."""
NAMES = {a.value for a in AgentType}

STILL_NAMED: dict[str, str] = {
    "workflows/legacy.py": "reads runs recorded before their agents asked typed questions",
}


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def _names_one(node: ast.AST, docs: set[int]) -> bool:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id == "AgentType" and node.attr in NAMES
    return isinstance(node, ast.Constant) and node.value in NAMES and id(node) not in docs


def naming_modules() -> dict[str, int]:
    """Product modules whose code names a software agent (``AgentType.X``, or the name as a
    string that is not a docstring), with how many times."""
    found: dict[str, int] = {}
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).as_posix().startswith(f"{TEAM_OWN}/"):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docs = _docstrings(tree)
            count = sum(1 for node in ast.walk(tree) if _names_one(node, docs))
            if count:
                found[path.relative_to(ROOT).as_posix()] = count
    return found


def test_no_product_module_names_a_software_agent_but_the_listed_ones() -> None:
    named = naming_modules()
    assert set(named) <= set(STILL_NAMED), {m: n for m, n in named.items() if m not in STILL_NAMED}


def test_the_list_shrinks_when_a_module_stops_naming_them() -> None:
    named = naming_modules()
    assert set(STILL_NAMED) <= set(named), set(STILL_NAMED) - set(named)
