"""Earned autonomy: the controller answers a question itself only for kinds of
questions a policy names, and only once its shadow answers agreed with people's often enough.

Opt-in twice: a run asks for it (start input ``controllerAutonomy``) and the worker holds a
policy file (``AGENT_AUTONOMY_POLICY``) naming the kinds, e.g.
``{"kinds": [{"agentType": "TRIAGE", "questionKind": "choice"}]}``, for an agent
of any team (``{"agentType": "TRIAGE", ...}`` for incident-response's). The figures
are the recorded shadow answers (``ShadowAnswerWorkflow`` results in Temporal) of the worker's
task queue that the same model gave, read by the worker and cached (a finished shadow never
changes).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from temporalio import activity
from temporalio.client import Client

from agent_interrupts.activities.agreement import Agreement, QuestionKind, verdicts
from agent_interrupts.models.agent_types import AGENT_NAME_PATTERN, agent_name
from agent_interrupts.models.interrupt_flow import (
    AutonomyDecision,
    AutonomyQuestion,
    KindAgreement,
    ShadowAnswer,
    ShadowInput,
)
from agent_interrupts.teams.software.questions import AnyInterruptRequest

MIN_ANSWERS = 20
"""Shadowed answers of a kind before the controller answers it (``AGENT_AUTONOMY_MIN_ANSWERS``)."""
MIN_AGREEMENT = 0.9
"""Agreement with people it needs over them (``AGENT_AUTONOMY_MIN_AGREEMENT``)."""
SHADOWS_QUERY = "WorkflowType = 'ShadowAnswerWorkflow' AND ExecutionStatus = 'Completed'"

Kind = tuple[str, QuestionKind]


@dataclass(frozen=True)
class AutonomySettings:
    """The worker's autonomy policy and thresholds."""

    policy: frozenset[Kind] = frozenset()
    min_answers: int = MIN_ANSWERS
    min_agreement: float = MIN_AGREEMENT

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] = os.environ, agents: Collection[str] | None = None
    ) -> AutonomySettings:
        """The settings; ``agents``: the agents of the teams the worker serves, which the
        policy's kinds must name (None: any agent's name)."""
        path = env.get("AGENT_AUTONOMY_POLICY")
        try:
            min_answers = int(env.get("AGENT_AUTONOMY_MIN_ANSWERS") or MIN_ANSWERS)
            min_agreement = float(env.get("AGENT_AUTONOMY_MIN_AGREEMENT") or MIN_AGREEMENT)
        except ValueError as err:
            raise ValueError(
                f"AGENT_AUTONOMY_MIN_ANSWERS must be a whole number and "
                f"AGENT_AUTONOMY_MIN_AGREEMENT a fraction such as 0.9 ({err})"
            ) from None
        if min_answers < 1 or not 0 < min_agreement <= 1:
            raise ValueError(
                "AGENT_AUTONOMY_MIN_ANSWERS must be at least 1 and AGENT_AUTONOMY_MIN_AGREEMENT "
                f"in (0, 1], not {min_answers} and {min_agreement:g}"
            )
        policy = load_policy(Path(path), agents) if path else frozenset()
        return cls(policy, min_answers, min_agreement)


def load_policy(path: Path, agents: Collection[str] | None = None) -> frozenset[Kind]:
    """The kinds a policy file names, each of an agent of any team (``agents``: of these only;
    None: any agent's name); a file that cannot be read, or that names an agent none of
    ``agents`` is, names the setting."""
    try:
        kinds = json.loads(path.read_text(encoding="utf-8"))["kinds"]
        policy = frozenset((_agent(k["agentType"]), QuestionKind(k["questionKind"])) for k in kinds)
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(
            f"AGENT_AUTONOMY_POLICY {str(path)!r} is not a policy file ({type(err).__name__}: "
            f'{err}); write {{"kinds": [{{"agentType": "AGENT", '
            f'"questionKind": "choice"}}]}} (agentType: any team\'s agent; question kinds: '
            "choice, confirmation)"
        ) from None
    unknown = sorted({agent for agent, _ in policy} - set(agents if agents is not None else ()))
    if agents is not None and unknown:
        raise ValueError(
            f"AGENT_AUTONOMY_POLICY {str(path)!r} names {', '.join(unknown)}, no agent of the "
            "teams this worker serves: spell each agentType as its team declares it "
            "(docs/teams.md), or serve its team (AGENTS_TEAMS)"
        )
    return policy


def _agent(value: object) -> str:
    """An agent's name as a policy gives it (any team's: ``AGENT_NAME_PATTERN``)."""
    if not isinstance(value, str) or not re.fullmatch(AGENT_NAME_PATTERN, value):
        raise ValueError(f"agentType {value!r} is not an agent's name (upper case, e.g. TRIAGE)")
    return agent_name(value)


def kinds_of(request: AnyInterruptRequest) -> list[QuestionKind]:
    """The kinds of decision a question asks for (free text is never delegated)."""
    return [
        kind
        for kind, present in (
            (QuestionKind.CHOICE, bool(request.choices)),
            (QuestionKind.CONFIRMATION, bool(request.confirmation_items)),
        )
        if present
    ]


def decide(
    question: AutonomyQuestion, settings: AutonomySettings, agreement: Mapping[Kind, Agreement]
) -> AutonomyDecision:
    """Delegate when every kind the question asks is in the policy and the controller agreed
    with people on it at least ``min_agreement`` of the time over ``min_answers`` answers."""
    kinds = kinds_of(question.request)
    figures = [
        KindAgreement(
            agent_type=question.origin,
            question_kind=kind.value,
            agreed=(counts := agreement.get((question.origin, kind), Agreement())).agreed,
            compared=counts.compared,
            allowed=(question.origin, kind) in settings.policy,
        )
        for kind in kinds
    ]
    short = [
        f"{f.agent_type} {f.question_kind}: "
        + (
            "not in AGENT_AUTONOMY_POLICY"
            if not f.allowed
            else f"{f.agreed}/{f.compared} agreed, needs {settings.min_agreement:.0%} of at "
            f"least {settings.min_answers}"
        )
        for f in figures
        if not f.allowed
        or f.compared < settings.min_answers
        or f.agreed < settings.min_agreement * f.compared
    ]
    if not kinds:
        reason = "a question with neither choices nor confirmations is always a person's"
    elif short:
        reason = "a person answers: " + "; ".join(short)
    else:
        reason = "the controller answers: " + "; ".join(
            f"{f.agent_type} {f.question_kind} {f.agreed}/{f.compared} agreed" for f in figures
        )
    return AutonomyDecision(
        delegate=bool(kinds) and not short,
        reason=reason,
        figures=figures,
        min_answers=settings.min_answers,
        min_agreement=settings.min_agreement,
    )


class AutonomyActivities:
    """Reads the recorded shadow answers and decides; construct once per worker."""

    def __init__(self, client: Client, settings: AutonomySettings, model: str) -> None:
        self._client = client
        self._settings = settings
        self._model = model
        """The model that would answer: only its own shadow answers count."""
        self._verdicts: dict[str, list[tuple[Kind, bool | None]]] = {}
        """Each finished shadow's verdicts, by workflow and run id (they never change)."""

    @activity.defn
    async def decide_autonomy(self, question: AutonomyQuestion) -> AutonomyDecision:
        """Whether the controller answers ``question`` itself, with the figures."""
        if not self._settings.policy:
            return AutonomyDecision(
                delegate=False, reason="a person answers: the worker has no AGENT_AUTONOMY_POLICY"
            )
        return decide(question, self._settings, await self._agreement())

    async def _agreement(self) -> dict[Kind, Agreement]:
        query = f"{SHADOWS_QUERY} AND TaskQueue = '{activity.info().task_queue}'"
        async for found in self._client.list_workflows(query):
            key = f"{found.id}/{found.run_id}"
            if key not in self._verdicts:
                self._verdicts[key] = await self._read(found.id, found.run_id)
        counts: dict[Kind, Agreement] = {}
        for kind, verdict in (v for found in self._verdicts.values() for v in found):
            counts.setdefault(kind, Agreement()).add(verdict)
        return counts

    async def _read(self, workflow_id: str, run_id: str) -> list[tuple[Kind, bool | None]]:
        handle = self._client.get_workflow_handle(workflow_id, run_id=run_id)
        convert = self._client.data_converter
        job: ShadowInput | None = None
        async for event in handle.fetch_history_events():
            if event.HasField("workflow_execution_started_event_attributes"):
                payloads = event.workflow_execution_started_event_attributes.input.payloads
                (job,) = await convert.decode(payloads, [ShadowInput])
            elif event.HasField("workflow_execution_completed_event_attributes"):
                payloads = event.workflow_execution_completed_event_attributes.result.payloads
                (shadow,) = await convert.decode(payloads, [ShadowAnswer])
                answer = shadow.answer
                if job is None or answer is None or answer.call is None:
                    return []
                if answer.call.model != self._model:
                    return []  # another model's record is not this one's
                found = verdicts(job.review.request, job.person, answer)
                return [((job.origin, kind), verdict) for kind, verdict in found]
        return []
