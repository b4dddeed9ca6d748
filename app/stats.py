"""The success rates the agents spec names, measured from the recorded runs (the export's data).

``Tally.add`` takes one run chain at a time (pure); ``Tally.lines`` states each rate beside its
target: SC-011, SC-013, SC-014, SC-021, SC-022, SC-025, SC-026, SC-027.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from temporalio.client import Client

from agent_interrupts.activities.agreement import Agreement, QuestionKind, verdicts
from agent_interrupts.app.export import plural, select_runs
from agent_interrupts.app.history import RecordedRun, read_run
from agent_interrupts.app.success_criteria import (
    TeamCriteria,
    criteria_of,
    made_by,
    references,
    results_in,
)
from agent_interrupts.models.errors import TeamNotHere
from agent_interrupts.models.interrupt_flow import ShadowAnswer
from agent_interrupts.models.interrupts import (
    InterruptResolution,
    InterruptType,
    OptionKey,
    ResolvedBy,
)
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import software_team, team_of
from agent_interrupts.models.team_spec import SOFTWARE_TEAM_NAME, Role, TeamPin
from agent_interrupts.teams.software.questions import (
    AnyInterruptRequest,
    DispatchedAgentInterruptRequest,
)
from agent_interrupts.teams.software.results import (
    MIN_DISCOVERY_TAGS,
    MIN_FILE_REFERENCES,
    MIN_GENERATED_QUERIES,
)

SC011_TAGS, SC011_QUERIES, SC011_REFERENCES = (
    MIN_DISCOVERY_TAGS,
    MIN_GENERATED_QUERIES,
    MIN_FILE_REFERENCES,
)
_REVIEWERS = (ResolvedBy.AGENT_REVIEW, ResolvedBy.TIMEOUT_ESCALATION)
"""Answers the reviewing model gave: labelled CONTROLLER_MODEL when that model gave them."""
TRANSLATION_TARGET_SECONDS = 2.0


@dataclass(frozen=True)
class Line:
    """One measured rate: its value, its target, and whether the value meets it."""

    name: str
    value: str
    target: str = ""
    met: bool | None = None
    meaning: str = ""
    """What the rate measures, in words (beside its spec code)."""
    short: int = 0
    """How many of the counted items miss the target's condition."""
    figures: dict[str, Any] = field(default_factory=dict)
    """The numbers behind ``value``, for scripts (``--json``)."""

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "target": self.target,
            "met": self.met,
            "meaning": self.meaning,
            "short": self.short,
            **({"figures": self.figures} if self.figures else {}),
        }


@dataclass
class Tally:
    """Counts over the runs added so far."""

    runs: int = 0
    interrupts: int = 0
    with_choice: int = 0
    choices: int = 0
    recommended: int = 0
    with_custom: int = 0
    by: dict[str, int] = field(default_factory=dict)
    """Answers by who gave them: HUMAN, AGENT_REVIEW, TIMEOUT_ESCALATION, and CONTROLLER_MODEL
    for the reviewer's answers that the controller model gave."""
    people: dict[str, int] = field(default_factory=dict)
    """People's answers by the name they carried (``answeredBy``), those with one."""
    unanswered: int = 0
    asked_a_person: int = 0
    person_answered: int = 0
    answer_seconds: list[float] = field(default_factory=list)
    translation_seconds: list[float] = field(default_factory=list)
    criteria: dict[str, Rate] = field(default_factory=dict)
    """SC-011, SC-013 and SC-014 by line name, as the runs' teams declare them
    (``app/success_criteria.py``): the software team's always, then each other team's seen."""
    calls: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    shadowed: int = 0
    """People's answers the controller also answered."""
    shadow_failed: int = 0
    agreement: dict[tuple[str, QuestionKind], Agreement] = field(default_factory=dict)
    """By the asking agent (``team/AGENT`` for a declared team's) and the question kind."""
    asked: dict[tuple[str, str], AskedBy] = field(default_factory=dict)
    """Questions by the run's team and the agent that asked (a dispatched agent's own, though
    its dispatcher raised it), in the order first seen."""

    def add(self, run: RecordedRun) -> None:
        """Count one run chain."""
        self.runs += 1
        for recorded in run.calls:
            self._call(recorded.call.team, recorded.call.agent_type, recorded.reply.output)
            call = recorded.reply.call
            if call is not None:
                self.calls += 1
                self.attempts += call.attempts
                self.prompt_tokens += call.prompt_tokens or 0
                self.completion_tokens += call.completion_tokens or 0
        for it in run.interrupts:
            self.interrupts += 1
            request = (it.translation or it.asked).request
            team = it.asked.team.name if it.asked.team is not None else SOFTWARE_TEAM_NAME
            for agent, own in _own_questions(it.asked.origin, request):
                role = _role(it.asked.team, agent)
                self.asked.setdefault((team, agent), AskedBy(role)).add(own)
            self.with_choice += bool(request.choices)
            self.choices += len(request.choices)
            self.recommended += sum(c.recommended is not None for c in request.choices)
            self.with_custom += sum(OptionKey.CUSTOM in c.offered() for c in request.choices)
            waits_for_person = request.type is not InterruptType.AGENT_REVIEW
            self.asked_a_person += waits_for_person
            if it.outcome is None:
                self.unanswered += 1
                continue
            answer = it.outcome.resolution
            who = answer.resolved_by.value
            if answer.resolved_by in _REVIEWERS and answer.call is not None:
                who = "CONTROLLER_MODEL" if answer.call.controller else who
            self.by[who] = self.by.get(who, 0) + 1
            if answer.resolved_by is ResolvedBy.HUMAN and it.shadow is not None:
                self._shadow(request, _agent_label(team, it.asked.origin), answer, it.shadow)
            if answer.resolved_by is ResolvedBy.HUMAN:
                if answer.answered_by:
                    name = answer.answered_by
                    self.people[name] = self.people.get(name, 0) + 1
                self.person_answered += waits_for_person
                if it.answered_at is not None:
                    self.answer_seconds.append((it.answered_at - it.asked_at).total_seconds())
            if it.translation_seconds is not None:
                self.translation_seconds.append(it.translation_seconds)

    def _shadow(
        self,
        request: AnyInterruptRequest,
        agent: str,
        person: InterruptResolution,
        shadow: ShadowAnswer,
    ) -> None:
        if shadow.answer is None:
            self.shadow_failed += 1
            return
        self.shadowed += 1
        for kind, verdict in verdicts(request, person, shadow.answer):
            self.agreement.setdefault((agent, kind), Agreement()).add(verdict)

    def _call(self, pin: TeamPin | None, agent: str, output: dict[str, Any]) -> None:
        try:
            criteria = self._criteria(team_of(pin))
        except TeamNotHere:
            return
        results = list(results_in(output))
        for least in criteria.minimums:
            for result in results if least.agent == agent else ():
                if isinstance(result.get(least.field), list):
                    self.criteria[least.name].add(len(result[least.field]) >= least.least)
        for planned in criteria.planned:
            for result in results if planned.agent == agent else ():
                for item in result.get(planned.field) or []:
                    if isinstance(item, dict):
                        links = item.get(planned.links) or []
                        linked = any(made_by(i, planned.upstream) for i in links)
                        self.criteria[planned.name].add(linked)
        for chained in criteria.chained:
            for result in results if chained.agent == agent else ():
                named = references(result, chained.upstream)
                self.criteria[chained.name].add(named == chained.upstream)

    def _criteria(self, team: Team) -> TeamCriteria:
        """``team``'s criteria, their lines kept in the order first seen."""
        criteria = criteria_of(team)
        for name, meaning in criteria.lines():
            self.criteria.setdefault(name, Rate(meaning))
        return criteria

    def lines(self) -> list[Line]:
        """Every rate, with its target where the spec names one."""
        person = self.by.get(ResolvedBy.HUMAN.value, 0)
        by_model = sum(n for who, n in self.by.items() if who != ResolvedBy.HUMAN.value)
        return [
            Line("runs", str(self.runs)),
            Line("interrupts per run", _ratio(self.interrupts, self.runs)),
            _share(
                "interrupts with a structured choice (SC-021)",
                self.with_choice,
                self.interrupts,
                0.80,
                "questions that offer at least one choice of options, not only free text",
            ),
            _share(
                "choices with a recommendation (SC-025)",
                self.recommended,
                self.choices,
                0.95,
                "choices that name the option the asking agent recommends",
            ),
            _share(
                "choices with CUSTOM (SC-027)",
                self.with_custom,
                self.choices,
                1.0,
                "choices that let a person write their own answer (CUSTOM)",
            ),
            Line(
                "answered by a person",
                _by_name(person, self.people),
                figures={"byName": dict(self.people)} if self.people else {},
            ),
            Line("answered by a model", _breakdown(by_model, self.by)),
            Line("unanswered (the run ended first)", str(self.unanswered)),
            _share(
                "response rate of people (SC-026)",
                self.person_answered,
                self.asked_a_person,
                0.95,
                "questions for a person that a person answered (not the deadline's default or a "
                "model)",
            ),
            Line("time to a person's answer p50 / p95", _percentiles(self.answer_seconds)),
            Line(
                "translation latency p50 / p95 / max (SC-022)",
                _percentiles(self.translation_seconds, with_max=True),
                f"< {TRANSLATION_TARGET_SECONDS:g} s each",
                max(self.translation_seconds) < TRANSLATION_TARGET_SECONDS
                if self.translation_seconds
                else None,
                "time from taking an answer to its routing, filtered to the one allowed route",
                sum(s >= TRANSLATION_TARGET_SECONDS for s in self.translation_seconds),
            ),
            *(
                _share(name, rate.met, rate.counted, 1.0, rate.meaning)
                for name, rate in self._criteria_lines()
            ),
            Line("LLM calls, mean attempts", f"{self.calls}, {_ratio(self.attempts, self.calls)}"),
            Line(
                "tokens (prompt / completion)", f"{self.prompt_tokens} / {self.completion_tokens}"
            ),
            *self._asked_lines(),
            *self._role_lines(),
            *self._agreement_lines(),
        ]

    def _criteria_lines(self) -> list[tuple[str, Rate]]:
        """SC-011, SC-013 and SC-014: the software team's (shown with no run counted too) and
        those of every other team a counted run followed."""
        first = [name for name, _ in self._criteria(software_team()).lines()]
        rest = [name for name in self.criteria if name not in first]
        return [(name, self.criteria[name]) for name in (*first, *rest)]

    def _asked_lines(self) -> list[Line]:
        """Per team and asking agent: its questions by type, and the choices and confirmations
        they asked."""
        lines = []
        for (team, agent), asked in sorted(self.asked.items()):
            types = ", ".join(f"{t} {n}" for t, n in sorted(asked.by_type.items()))
            choices = plural(asked.kinds[QuestionKind.CHOICE], "choice")
            confirmations = plural(asked.kinds[QuestionKind.CONFIRMATION], "confirmation")
            value = f"{asked.questions} ({types}; {choices}, {confirmations})"
            lines.append(
                Line(
                    f"questions of {_agent_label(team, agent)}",
                    value,
                    figures={
                        "team": team,
                        "agentType": agent,
                        "role": asked.role.value,
                        "questions": asked.questions,
                        "byType": dict(asked.by_type),
                        "byKind": {k.value: n for k, n in asked.kinds.items()},
                    },
                )
            )
        return lines

    def _role_lines(self) -> list[Line]:
        """Questions per role of the agents that asked them, over every team."""
        by_role: dict[str, int] = {}
        for asked in self.asked.values():
            by_role[asked.role.value] = by_role.get(asked.role.value, 0) + asked.questions
        if not by_role:
            return []
        value = ", ".join(f"{role} {n}" for role, n in sorted(by_role.items()))
        return [Line("questions by role", value, figures={"byRole": by_role})]

    def _agreement_lines(self) -> list[Line]:
        """The controller's shadow answers against people's, per agent type and kind."""
        if not (self.shadowed or self.shadow_failed):
            return []
        lines = [
            Line(
                "shadow answers (the controller, after a person)",
                f"{self.shadowed} recorded, {self.shadow_failed} failed",
            )
        ]
        for (agent, kind), counts in sorted(self.agreement.items()):
            interval = counts.interval()
            rate = counts.rate
            value = (
                f"{rate:.0%} ({counts.agreed}/{counts.compared}), 95% CI "
                f"{interval[0]:.0%}-{interval[1]:.0%}"
                if rate is not None and interval is not None
                else "n/a"
            )
            if counts.not_comparable:
                value += f"; {counts.not_comparable} not comparable"
            lines.append(
                Line(
                    f"controller agrees: {agent} {kind}",
                    value,
                    meaning=f"{kind} decisions of {agent}'s questions where the controller's "
                    "shadow answer was the person's",
                    figures={
                        "agentType": agent,
                        "questionKind": kind.value,
                        "agreed": counts.agreed,
                        "compared": counts.compared,
                        "notComparable": counts.not_comparable,
                        "rate": rate,
                        "ci95": list(interval) if interval else None,
                    },
                )
            )
        return lines


@dataclass
class AskedBy:
    """One agent's questions: how many, by type, and their decisions by kind."""

    role: Role = Role.AGENT
    """The agent's role in its team."""
    questions: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    kinds: dict[QuestionKind, int] = field(
        default_factory=lambda: {QuestionKind.CHOICE: 0, QuestionKind.CONFIRMATION: 0}
    )

    def add(self, request: AnyInterruptRequest) -> None:
        self.questions += 1
        self.by_type[request.type.value] = self.by_type.get(request.type.value, 0) + 1
        self.kinds[QuestionKind.CHOICE] += len(request.choices)
        self.kinds[QuestionKind.CONFIRMATION] += len(request.confirmation_items)


def _own_questions(
    origin: str, request: AnyInterruptRequest
) -> list[tuple[str, AnyInterruptRequest | DispatchedAgentInterruptRequest]]:
    """Each asking agent's own question: a dispatcher's question that carries its dispatched
    agents' questions is theirs, one each; any other is ``origin``'s."""
    carried = getattr(request, "agent_questions", None) or []
    if not carried:
        return [(str(origin), request)]
    return [(str(q.request.origin), q.request) for q in carried]


@dataclass
class Rate:
    """How many of the counted items met one success criterion."""

    meaning: str
    met: int = 0
    counted: int = 0

    def add(self, met: bool) -> None:
        self.counted += 1
        self.met += met


def _role(pin: TeamPin | None, agent: str) -> Role:
    """``agent``'s role in the run's team (``Role.AGENT`` when that team is not known here)."""
    try:
        return team_of(pin).role(agent)
    except TeamNotHere:
        return Role.AGENT


def _agent_label(team: str, agent: str) -> str:
    """A software agent by its name; a declared team's as ``team/AGENT`` (two teams may each
    have an agent of one name)."""
    return str(agent) if team == SOFTWARE_TEAM_NAME else f"{team}/{agent}"


async def measure(client: Client, ids: Sequence[str] = (), query: str | None = None) -> Tally:
    """The rates over the selected runs (as ``export`` selects them), one chain at a time."""
    tally = Tally()
    for ref in await select_runs(client, ids, query):
        tally.add(await read_run(client, ref.workflow_id, ref.run_id))
    return tally


def _share(name: str, part: int, whole: int, target: float, meaning: str) -> Line:
    if not whole:
        return Line(name, "n/a (none)", f">= {target:.0%}", None, meaning)
    value = part / whole
    return Line(
        name,
        f"{value:.0%} ({part}/{whole})",
        f">= {target:.0%}",
        value >= target,
        meaning,
        whole - part,
    )


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.2f}" if whole else "n/a"


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _percentiles(values: Sequence[float], *, with_max: bool = False) -> str:
    if not values:
        return "n/a (none)"
    shown = [_percentile(values, 0.5), _percentile(values, 0.95)]
    return " / ".join(f"{v:.2f} s" for v in [*shown, *([max(values)] if with_max else [])])


def _by_name(total: int, people: dict[str, int]) -> str:
    """``4 (alice 2, bob 1, no name 1)``: people's answers by name, most first (the first 10
    names); an answer without one (the Temporal UI's, an older one) counts as "no name"."""
    named = sorted(people.items(), key=lambda p: (-p[1], p[0]))
    parts = [f"{name} {n}" for name, n in named[:10]]
    if len(named) > 10:
        parts.append(f"{len(named) - 10} more names {sum(n for _, n in named[10:])}")
    if parts and (unnamed := total - sum(people.values())) > 0:
        parts.append(f"no name {unnamed}")
    return f"{total} ({', '.join(parts)})" if parts else str(total)


def _breakdown(total: int, by: dict[str, int]) -> str:
    """``3 (AGENT_REVIEW 2, CONTROLLER_MODEL 1)``: the answers not given by a person."""
    parts = [f"{who} {n}" for who, n in sorted(by.items()) if who != ResolvedBy.HUMAN.value]
    return f"{total} ({', '.join(parts)})" if parts else str(total)
