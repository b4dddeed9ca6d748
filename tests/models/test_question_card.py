"""A question's card for its memo: the question as asked, within its cap (the longest texts cut,
saying so), sealed under the 2 KiB at which the SDK and the server warn; none when it cannot fit."""

from __future__ import annotations

from datetime import UTC, datetime

from temporalio.api.common.v1 import Memo

from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.models.limits import MAX_QUESTION_MEMO_BYTES, json_bytes
from agent_interrupts.models.question_card import QuestionCard, card_from_memo, question_card
from agent_interrupts.models.team_spec import TeamPin
from agent_interrupts.workflows.interrupt_hooks import asked_question
from tests.support.interrupts import question_input
from tests.workflows.test_declared_team import TINY_TEAM

MEMO_WARNING_BYTES = 2 * 1024
"""Where the SDK (``PayloadLimitsConfig.memo_warn_size``) and the server (``limit.memoSize.warn``)
warn of a large memo."""
DEADLINE = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_a_small_question_is_carried_whole_and_reads_back_as_its_status() -> None:
    job = question_input()
    card = question_card(job, asked_question(job), DEADLINE)
    assert card is not None and card["cut"] is False
    read = card_from_memo(card)
    assert read is not None and read.request == asked_question(job)
    status = read.status("q-1")
    assert status.state == "WAITING" and status.deadline == DEADLINE and status.events == []
    assert status.origin == "REVIEW_AGENT" and status.continues_at == "REVIEW_AGENT"


def test_a_long_reason_is_cut_with_a_marker_to_fit_the_cap() -> None:
    job = question_input()
    job.request.reason = "why " * 5_000
    job.request.context_for_decision = "context " * 2_000
    card = question_card(job, asked_question(job), None)
    assert card is not None and card["cut"] is True
    assert json_bytes(card) <= MAX_QUESTION_MEMO_BYTES
    reason = card["request"]["reason"]
    assert isinstance(reason, str) and reason.endswith("more characters]") and "[cut: " in reason
    assert card["request"]["choices"][0]["choiceId"] == "cache", "ids are never cut"


def test_a_question_of_many_texts_that_cannot_fit_has_no_card() -> None:
    job = question_input()
    job.request.confirmation_items = []
    job.request.reason = "r" * 500
    job.request.context_for_decision = "c" * 500
    job.request.choices[0].context = "x" * 500
    job.request.choices[0].question = "q" * 500
    assert question_card(job, asked_question(job), None) is None


def test_a_declared_teams_spec_stays_out_of_the_card() -> None:
    job = question_input()
    job.team = TeamPin(name=TINY_TEAM.name, sha256=TINY_TEAM.sha256(), spec=TINY_TEAM)
    card = question_card(job, asked_question(job), None)
    assert card is not None
    assert card["team"] == {"name": TINY_TEAM.name, "sha256": TINY_TEAM.sha256(), "spec": None}


def test_what_is_not_a_card_reads_as_none() -> None:
    assert card_from_memo(None) is None
    assert card_from_memo("text") is None
    assert card_from_memo({"origin": "REVIEW_AGENT"}) is None, "no request"
    job = question_input()
    card = question_card(job, asked_question(job), None)
    assert card is not None
    assert card_from_memo({**card, "later": 1}) is None, "a later version's card"
    assert isinstance(card_from_memo(card), QuestionCard)


async def test_a_sealed_card_at_its_cap_stays_under_the_memo_warning() -> None:
    job = question_input()
    job.request.reason = "why " * 5_000
    card = question_card(job, asked_question(job), DEADLINE)
    assert card is not None and json_bytes(card) > MAX_QUESTION_MEMO_BYTES - 100
    ring = KeyRing((("memo-size-1", bytes(range(32))),))
    for converter in (data_converter(None), data_converter(ring)):
        memo = await converter._encode_memo({"question": card})
        assert isinstance(memo, Memo) and memo.ByteSize() < MEMO_WARNING_BYTES
