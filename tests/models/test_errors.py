"""One error hierarchy: every error class of the project descends from ``AgentWorkflowError``,
the team errors among them, and ``models/errors.py``'s docstring draws the tree as it is."""

from __future__ import annotations

import importlib
import pkgutil
import re

from agent_interrupts.models import errors
from agent_interrupts.models.errors import AgentWorkflowError, TeamError

DRAWN = re.compile(r"^(?P<indent> *)\* (?P<name>\w+)(?P<notes>.*)$", re.MULTILINE)
LAYERS = ("models", "workflows", "activities", "activities.tools", "app", "app.inbox")


def _load_every_module() -> None:
    for layer in LAYERS:
        package = importlib.import_module(f"agent_interrupts.{layer}")
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"agent_interrupts.{layer}.{info.name}")


def _tree() -> dict[str, str]:
    """Each subclass of AgentWorkflowError loaded -> its parent in the hierarchy."""
    parents: dict[str, str] = {}
    stack: list[type[AgentWorkflowError]] = [AgentWorkflowError]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            parents[sub.__name__] = cls.__name__
            stack.append(sub)
    return parents


def _drawn() -> tuple[dict[str, str], set[str]]:
    """The docstring's tree (name -> parent) and the names it marks retryable."""
    parents: dict[str, str] = {}
    retryable: set[str] = set()
    path: list[str] = []
    for m in DRAWN.finditer(errors.__doc__ or ""):
        depth = len(m["indent"]) // 2
        path[depth:] = [m["name"]]
        if depth:
            parents[m["name"]] = path[depth - 1]
        if "retryable" in m["notes"]:
            retryable.add(m["name"])
    return parents, retryable


def test_the_docstring_draws_the_hierarchy_as_it_is() -> None:
    _load_every_module()
    parents, retryable = _drawn()
    assert parents == _tree(), "models/errors.py's drawing differs from the classes"
    every = {c.__name__: c for c in _subclasses(AgentWorkflowError)}
    assert retryable == {n for n, c in every.items() if c.retryable}


def test_team_errors_are_in_the_hierarchy() -> None:
    from agent_interrupts.models.team_build import TeamDefinitionError, TeamNotHere
    from agent_interrupts.models.team_files import TeamFileError

    for cls in (TeamDefinitionError, TeamNotHere, TeamFileError, errors.UnknownTeam):
        assert issubclass(cls, TeamError)
    assert issubclass(TeamDefinitionError, ValueError)  # pydantic validators report it
    assert issubclass(TeamNotHere, LookupError)
    refused = TeamFileError(["a.toml: no agents", "b.toml: no routes"])
    assert refused.problems == ["a.toml: no agents", "b.toml: no routes"]
    assert refused.with_message("redacted").problems == ["redacted"]
    assert refused.to_application_error().type == "TeamFileError"


def _subclasses(cls: type[BaseException]) -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    stack = [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                stack.append(sub)
    return found
