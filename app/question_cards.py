"""A listed question's card, read from its memo (``models/question_card.py``): what the inbox and
``agents list --waiting`` show of a waiting question without a query to it.

A visibility listing returns each row's memo, so the cards of a page cost no call beyond the
listing: no workflow task on a worker (a replay, on a worker that does not hold the question).
The memo is decoded by the client's data converter, so a sealed one (encryption on) is opened
with the client's keys.
"""

from __future__ import annotations

import logging

from temporalio.client import WorkflowExecution

from agent_interrupts.models.errors import TeamError
from agent_interrupts.models.question_card import QUESTION_MEMO, QuestionCard, card_from_memo
from agent_interrupts.models.team_build import team_of

log = logging.getLogger("agents.inbox")


async def listed_card(execution: WorkflowExecution) -> QuestionCard | None:
    """The card ``execution``'s memo carries, or None: a question asked before cards (a run of
    an earlier version), one whose card did not fit its cap, one sealed under a key this client
    lacks, or one of a declared team this process does not know yet (its redirect targets need
    the team: the question is read instead, which carries it)."""
    if QUESTION_MEMO not in execution.raw_info.memo.fields:
        return None
    try:
        value = await execution.memo_value(QUESTION_MEMO, None, type_hint=dict)
    except Exception as err:  # sealed under a key not here, not JSON: the question is read instead
        log.info("cannot read the card of %s: %s", execution.id, err)
        return None
    card = card_from_memo(value)
    if card is None:
        return None
    try:
        team_of(card.team)
    except TeamError:  # not seen whole here yet (TeamNotHere), or not built here
        return None
    return card
