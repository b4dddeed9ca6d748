"""A waiting question's card: what the inbox and ``agents list --waiting`` show of a question on
arrival, carried in its InterruptWorkflow's memo.

The run that asks sets the memo when it starts the question (``workflows/asking.py``), so one
visibility listing returns every listed question's card and a page needs no ``status`` query (a
workflow task on a worker, a replay on a worker that does not hold the question) to show them.
What changes after the start (the events: notices, reminders, warnings; an answer under way) is
read later, by the ``status`` query. The memo is a payload like any other: sealed by the payload
codec when encryption is on, decoded by the reader's data converter.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ValidationError

from agent_interrupts.models.agent_types import AgentName
from agent_interrupts.models.answer_rules import Answerers
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupt_flow import InterruptInput, InterruptState, InterruptStatus
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import MAX_QUESTION_MEMO_BYTES, fit_strings, json_bytes
from agent_interrupts.models.team_spec import TeamPin
from agent_interrupts.teams.software.questions import AnyInterruptRequest

QUESTION_MEMO = "question"
"""The memo key of an InterruptWorkflow's card."""


class QuestionCard(WireModel):
    """A question as its card shows it on arrival: the question as asked (after the request
    hooks), who asked, where the run goes once answered, who may answer, and the deadline as the
    asking run computed it when it started the question (the question's own, set a moment later
    by its first workflow task, replaces it once read)."""

    origin: AgentName
    reroute_to: AgentName | None = None
    request: AnyInterruptRequest
    deadline: datetime | None = None
    answers_in_parts: bool = False
    team: TeamPin | None = None
    """The run's team by name and content hash only (a declared team's spec is not repeated)."""
    answerers: Answerers | None = None
    cut: bool = False
    """The question's longest texts were cut to fit ``MAX_QUESTION_MEMO_BYTES`` (each cut text
    ends saying how much it lost); the ``status`` query reads them whole."""

    def status(self, workflow_id: str) -> InterruptStatus:
        """The card as the ``status`` query's answer of a question that waits and has no events
        yet (what a page renders until the question is read)."""
        return InterruptStatus(
            workflow_id=workflow_id,
            state=InterruptState.WAITING,
            origin=self.origin,
            reroute_to=self.reroute_to,
            request=self.request,
            resolution=None,
            deadline=self.deadline,
            hooks_applied=[],
            events=[],
            continues_at=self.reroute_to or self.origin,
            answers_in_parts=self.answers_in_parts,
            team=self.team,
            answerers=self.answerers,
        )


def question_card(
    job: InterruptInput, asked: InterruptRequestBase, deadline: datetime | None
) -> dict[str, Any] | None:
    """The memo value of ``job``'s question (``asked``: its request after the request hooks), as
    wire JSON of at most ``MAX_QUESTION_MEMO_BYTES``: its longest texts cut with a note saying
    how much each lost when it is larger; None when even that does not fit (many short texts:
    the question is then read, as one without a card). Pure, never raises: workflow code calls
    it."""
    team = job.team.model_copy(update={"spec": None}) if job.team is not None else None
    try:
        card = QuestionCard(
            origin=job.origin,
            reroute_to=job.reroute_to,
            request=asked,
            deadline=deadline,
            answers_in_parts=job.answers_in_parts,
            team=team,
            answerers=job.answerers,
        ).to_wire()
        if json_bytes(card) <= MAX_QUESTION_MEMO_BYTES:
            return card
        fitted = fit_strings({**card, "cut": True}, MAX_QUESTION_MEMO_BYTES)
        if json_bytes(fitted) > MAX_QUESTION_MEMO_BYTES:
            return None
        return QuestionCard.model_validate(fitted).to_wire()
    except (ValueError, TypeError):  # a ValidationError is a ValueError
        return None


def card_from_memo(value: object) -> QuestionCard | None:
    """A memo's card, or None for a memo that holds none a reader of this version can read (a
    question asked before cards, or by a later version)."""
    if not isinstance(value, dict):
        return None
    try:
        return QuestionCard.model_validate(value)
    except ValidationError:
        return None
