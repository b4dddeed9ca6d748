"""The package's typed models by class name: what a team file's ``classes`` may name (the
software team's requests, routings, questions and final result, beside its file in
``teams/software/``)."""

from __future__ import annotations

from functools import cache
from typing import TypeVar

from pydantic import BaseModel

from agent_interrupts.teams.software import questions, requests, results, routings

MODULES = (requests, routings, questions, results)
M = TypeVar("M", bound=BaseModel)


@cache
def package_models() -> dict[str, type[BaseModel]]:
    """Every pydantic model the software team's model modules define, by class name."""
    return {
        name: value
        for module in MODULES
        for name, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    }


def package_model(name: str, kind: type[M]) -> type[M] | None:
    """The package's model ``name`` when it is a ``kind`` (None otherwise)."""
    found = package_models().get(name)
    return found if found is not None and issubclass(found, kind) else None
