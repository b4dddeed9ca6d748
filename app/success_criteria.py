"""The success criteria a team's own declarations imply (SC-011, SC-013, SC-014), for any team.

Each follows from the team's result models and roles, never from its agents' names:

- SC-011: a dispatched agent's report holds at least the items its result declares for a list
  (the schema's ``minItems``: a team file's ``min_items``).
- SC-013: an item a result plans (a record in one of its lists that carries links: a list of
  context ids named ``...Links``) links to the context of a collector of an earlier phase.
- SC-014: a code-writing agent's result (``tools = ["write"]``) names, in its reference fields
  (named ``...Reference``), the context of every collector of an earlier phase.

Phases are ordered as the team's agents first name them. ``criteria_of`` is pure; ``app/stats.py``
counts the recorded runs against it.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo

from agent_interrupts.models.ids import parse_context_id
from agent_interrupts.models.results import AgentResult
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_spec import Role

LINKS_SUFFIX = "Links"
"""A record's field that lists the context ids it was made from (JSON name)."""
REFERENCE_SUFFIX = "Reference"
"""A result's field that names one context id it was made from (JSON name)."""


@dataclass(frozen=True)
class Minimum:
    """SC-011: a dispatched agent's list field and the items it declares at least."""

    agent: str
    field: str
    least: int
    name: str
    meaning: str


@dataclass(frozen=True)
class Planned:
    """SC-013: the records of an agent's result list that carry links to earlier contexts."""

    agent: str
    field: str
    links: str
    upstream: frozenset[str]
    name: str
    meaning: str


@dataclass(frozen=True)
class Chained:
    """SC-014: a code-writing agent whose result names every earlier collector's context."""

    agent: str
    upstream: frozenset[str]
    name: str
    meaning: str


@dataclass(frozen=True)
class TeamCriteria:
    minimums: tuple[Minimum, ...]
    planned: tuple[Planned, ...]
    chained: tuple[Chained, ...]

    def lines(self) -> list[tuple[str, str]]:
        """Each criterion's line name and meaning, SC-011's first (one per name)."""
        found: list[Minimum | Planned | Chained] = [*self.minimums, *self.planned, *self.chained]
        return list(dict.fromkeys((c.name, c.meaning) for c in found))


@lru_cache(maxsize=32)
def criteria_of(team: Team) -> TeamCriteria:
    """What SC-011, SC-013 and SC-014 ask of ``team``'s results (built once per team)."""
    phases = list(dict.fromkeys(n.phase for n in team.nodes.values()))
    collectors = team.with_role(Role.COLLECTOR)
    minimums: list[Minimum] = []
    planned: list[Planned] = []
    chained: list[Chained] = []
    for agent, node in team.nodes.items():
        at = phases.index(node.phase)
        earlier = [c for c in collectors if phases.index(team.nodes[c].phase) < at]
        upstream = frozenset(earlier)
        before = list(dict.fromkeys(words(team.nodes[c].phase) for c in sorted(earlier)))
        phase = words(node.phase)
        for result in _results(node.output_model):
            schema = result.model_json_schema()
            properties: Mapping[str, Any] = schema.get("properties", {})
            if team.role(agent) is Role.DISPATCHED:
                for key, prop in properties.items():
                    if prop.get("type") == "array" and int(prop.get("minItems", 0)) > 0:
                        least = int(prop["minItems"])
                        minimums.append(
                            Minimum(
                                agent,
                                key,
                                least,
                                f"{phase} reports with >= {least} {words(key)} (SC-011)",
                                f"{phase} agents' reports that hold at least the {least} "
                                f"{words(key)} their team declares",
                            )
                        )
            if not upstream:
                continue
            for key, links in _linked_lists(result):
                if links:
                    planned.append(
                        Planned(
                            agent,
                            key,
                            links[0],
                            upstream,
                            f"{phase} {words(key)} with a {' or '.join(before)} link (SC-013)",
                            f"{words(key)} that name the curated {' or '.join(before)} context "
                            "they were planned from",
                        )
                    )
        if agent in team.write_tools and upstream:
            chained.append(
                Chained(
                    agent,
                    upstream,
                    f"{singular(phase)} results with the full upstream chain (SC-014)",
                    f"{singular(phase)} results that name the "
                    f"{' and the '.join(before)} context behind them",
                )
            )
    return TeamCriteria(tuple(minimums), tuple(planned), tuple(chained))


def results_in(output: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The results an agent's recorded output holds: a dispatched agent's (``result``), a
    collector's or another agent's payload (a dict that is no request and no question)."""
    for key, value in output.items():
        if isinstance(value, dict) and not key.endswith("Request") and key != "interruptRequest":
            yield value


def made_by(context_id: object, agents: frozenset[str]) -> str | None:
    """The agent of ``agents`` whose output ``context_id`` names (None: none of them)."""
    if not isinstance(context_id, str):
        return None
    try:
        agent = parse_context_id(context_id)[1]
    except ValueError:
        return None
    return agent if agent in agents else None


def references(result: Mapping[str, Any], agents: frozenset[str]) -> set[str]:
    """The ``agents`` whose contexts ``result``'s reference fields name."""
    return {
        found
        for key, value in result.items()
        if key.endswith(REFERENCE_SUFFIX) and (found := made_by(value, agents)) is not None
    }


def words(name: str) -> str:
    """``generatedQueries`` -> ``generated queries``; ``DISCOVERY`` -> ``discovery``."""
    if name.isupper():
        return name.lower().replace("_", " ")
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).replace("_", " ").lower()


def singular(text: str) -> str:
    """``tickets`` -> ``ticket`` (a word ending in one ``s``); anything else as it is."""
    return text[:-1] if text.endswith("s") and not text.endswith("ss") else text


def _results(routing: type[BaseModel]) -> Iterator[type[AgentResult]]:
    """The result models ``routing`` carries (its fields typed as a result)."""
    for field in routing.model_fields.values():
        for kind in (field.annotation, *typing.get_args(field.annotation)):
            if isinstance(kind, type) and issubclass(kind, AgentResult):
                yield kind
                break


def _linked_lists(result: type[BaseModel]) -> Iterator[tuple[str, list[str]]]:
    """``result``'s lists of records (JSON names), each with its records' links fields (JSON
    names; filled by the workflow, so not in the schema a model writes to)."""
    for name, field in result.model_fields.items():
        for kind in typing.get_args(field.annotation):
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                yield (
                    _json_name(name, field),
                    [
                        _json_name(n, f)
                        for n, f in kind.model_fields.items()
                        if _json_name(n, f).endswith(LINKS_SUFFIX)
                    ],
                )


def _json_name(name: str, field: FieldInfo) -> str:
    return field.alias or to_camel(name)
