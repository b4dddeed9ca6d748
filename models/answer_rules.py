"""Who may answer which questions: the worker's answer rules and a question's share of them.

A rules file (``AGENTS_ANSWER_RULES``, TOML) names groups of people and rules; a rule names the
questions it covers (by the run's team, the asking agent, a choice or confirmation id; a key left
out covers every value) and who may answer them (people or groups). The rules that match a
question and name the most keys decide; equally specific ones join their people. The orchestrator
asks the worker for a question's ``Answerers`` when it starts the question (an activity) and
hands them to the InterruptWorkflow in its start input, whose validator refuses an answer whose
``answeredBy`` is not one of them, whichever door it came through.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import Field, ValidationError, model_validator

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.errors import AnswerRulesError, describe_validation_error
from agent_interrupts.models.limits import MAX_ID_CHARS, PersonName, clip

MAX_RULES = 200
"""Rules in one rules file."""
MAX_GROUPS = 100
"""Groups in one rules file."""
MAX_ANSWERERS = 100
"""People (or groups) one rule or one group names, and people one question's answerers name."""
MAX_RULES_FILE_BYTES = 256 * 1024
"""The largest rules file a worker reads."""

_RULE_KEYS = ("team", "agent", "question")


class AnswerRule(WireModel):
    """One rule: the questions it covers and who may answer them."""

    team: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    """The run's team by name (``software`` and declared teams); None: every team."""
    agent: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    """The asking agent (the question's origin, or a dispatched agent whose question is part of
    it); None: every agent."""
    question: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    """A choice id or confirmation id the question has (a dispatched agent's part matches its own
    id); None: every question."""
    answer: list[PersonName] = Field(min_length=1, max_length=MAX_ANSWERERS)
    """People by name, or groups by name (``[groups]``)."""

    @property
    def specificity(self) -> int:
        return sum(getattr(self, key) is not None for key in _RULE_KEYS)


class AnswerRules(WireModel):
    """A rules file: ``[groups]`` and ``[[rules]]``."""

    groups: dict[PersonName, list[PersonName]] = Field(default_factory=dict, max_length=MAX_GROUPS)
    rules: list[AnswerRule] = Field(default_factory=list, max_length=MAX_RULES)

    @model_validator(mode="after")
    def _groups_hold_people(self) -> AnswerRules:
        for name, members in self.groups.items():
            if not members or len(members) > MAX_ANSWERERS:
                raise ValueError(f"group {clip(name, 60)!r} must name 1 to {MAX_ANSWERERS} people")
            nested = [m for m in members if m in self.groups]
            if nested:
                raise ValueError(
                    f"group {clip(name, 60)!r} names group {clip(nested[0], 60)!r}: "
                    "list that group's people instead"
                )
        return self

    def answerers(self, team: str, agents: Iterable[str], ids: Iterable[str]) -> Answerers | None:
        """Who may answer the question of ``team`` asked by ``agents`` with choice and
        confirmation ``ids``; None: anybody (no rule covers it)."""
        agents, ids = set(agents), list(ids)
        matching = [rule for rule in self.rules if _covers(rule, team, agents, ids)]
        if not matching:
            return None
        top = max(rule.specificity for rule in matching)
        names: list[str] = []
        groups: list[str] = []
        for rule in (r for r in matching if r.specificity == top):
            for entry in rule.answer:
                if entry in self.groups:
                    groups.extend([entry] if entry not in groups else [])
                    names.extend(m for m in self.groups[entry] if m not in names)
                elif entry not in names:
                    names.append(entry)
        return Answerers(people=names[:MAX_ANSWERERS], groups=groups)


def _covers(rule: AnswerRule, team: str, agents: set[str], ids: list[str]) -> bool:
    if rule.team is not None and rule.team != team:
        return False
    if rule.agent is not None and rule.agent not in agents:
        return False
    if rule.question is not None:
        own = rule.question
        return any(i == own or i.endswith(f"/{own}") for i in ids)
    return True


ANSWER_AS = (
    "(answer as one of them: the CLI's --as, the SDK's answered_by, the inbox's named token)"
)
"""How a refusal tells a person at a door that lets them name themselves to answer as another."""


class Answerers(WireModel):
    """Who may answer one question (its start input carries them): the people by name, and the
    groups they were named through (for the refusal's words)."""

    people: list[PersonName] = Field(max_length=MAX_ANSWERERS)
    groups: list[PersonName] = Field(default_factory=list, max_length=MAX_ANSWERERS)

    def describe(self) -> str:
        """``alice, bob (group leads)``: who may answer, as a refusal and the inbox say it."""
        people = ", ".join(self.people)
        if not self.groups:
            return people
        word = "group" if len(self.groups) == 1 else "groups"
        return f"{people} ({word} {', '.join(self.groups)})"

    def refusal(self, name: str | None, *, how: bool = True) -> str | None:
        """Why ``name`` may not answer; None when they may. ``how``: say how to answer as one of
        them (``ANSWER_AS``), which a door that vouches for its speaker (Slack, email, a signed
        link) leaves out: its person cannot choose another name there."""
        if name is not None and name in self.people:
            return None
        who = "an answer without a name" if name is None else f"{clip(name, 60)!r}"
        refused = f"{who} may not answer this question: only {clip(self.describe(), 1_000)} may"
        return f"{refused} {ANSWER_AS}" if how else refused


def rules_from_toml(text: str, source: str) -> AnswerRules:
    """The rules of a TOML file's ``text``; AnswerRulesError in one line naming ``source``."""
    if len(text.encode()) > MAX_RULES_FILE_BYTES:
        raise AnswerRulesError(
            f"{source}: an answer rules file may take {MAX_RULES_FILE_BYTES} bytes; split it"
        )
    try:
        data: Mapping[str, Any] = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as err:
        why = clip(str(err), 200)
        raise AnswerRulesError(f"{source}: not TOML ({why}); fix the file") from None
    try:
        return AnswerRules.model_validate(data)
    except ValidationError as err:
        raise AnswerRulesError(
            f"{source}: {describe_validation_error(err)}; see docs/answer-rules.md"
        ) from None


class RulesQuestion(WireModel):
    """What the answer rules look at in a question (the activity's input)."""

    team: str = Field(max_length=MAX_ID_CHARS)
    agents: list[str] = Field(max_length=MAX_ANSWERERS)
    """The asking agent, then the dispatched agents whose questions are part of it."""
    ids: list[str] = Field(max_length=MAX_ANSWERERS * 20)
    """Its choice and confirmation ids (a dispatched agent's prefixed with its key)."""
