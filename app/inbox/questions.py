"""The waiting questions the inbox shows, each read once: a page never waits on a question it has
shown before, nor on one whose card the listing carried, and waits at most ``FIRST_WAIT`` for the
others.

A question asked by this version carries its card in its memo (``app/question_cards.py``): the
listing returns it, so the page shows the question at once, and reads it (its events: notices,
reminders, warnings) only at the page's next refresh. A question without one (asked by an
earlier version) is read before it is shown. Reading a question is a ``status`` query its worker
answers (a workflow task each: about 10 ms of the worker's time on 2 cores), so the reader keeps
what it read, re-reads a few of the oldest per refresh, and forgets a question once it no longer
waits.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from temporalio.client import WorkflowExecution
from temporalio.service import RPCError

from agent_interrupts.app.question_cards import listed_card
from agent_interrupts.app.sdk import AgentWorkflowClient, WaitingQuestion
from agent_interrupts.workflows import visibility

FIRST_WAIT = timedelta(seconds=0.5)
"""How long a page waits for questions it has never read; the rest show as loading."""
REREAD_AFTER = timedelta(seconds=30)
"""How old what was read of a question may grow (its newest events: notifications, reminders)
before a refresh reads it again."""
REREADS_PER_REFRESH = 8
"""At most this many of the oldest reads are renewed per refresh, so an open page costs the
workers a bounded number of queries however many questions wait."""
READS_AT_ONCE = 8
"""Queries in flight at once: 500 new questions never flood the workers with 500 queries."""

log = logging.getLogger("agents.inbox")


@dataclass(frozen=True)
class _Read:
    question: WaitingQuestion
    at: float


class QuestionReader:
    """What was read of each waiting question, and the reads under way."""

    def __init__(
        self,
        agents: AgentWorkflowClient,
        query_timeout: timedelta,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.agents = agents
        self.query_timeout = query_timeout
        self.clock = clock
        self._read: dict[str, _Read] = {}
        self._carded: dict[str, WaitingQuestion | None] = {}
        """Each listed question not read yet: as its card shows it (None: it has no card)."""
        self._reading: dict[str, asyncio.Task[None]] = {}
        self._gate = asyncio.Semaphore(READS_AT_ONCE)

    async def questions(
        self, executions: Sequence[WorkflowExecution], *, read_carded: bool = True
    ) -> list[WaitingQuestion]:
        """The question of each execution, in order: as read; else as its card shows it
        (``early``); else ``pending`` when it was not read within ``FIRST_WAIT``. Starts reading
        new ones (with ``read_carded`` False, only those without a card: a first page queries
        no question its listing carried) and renews the oldest reads."""
        listed = {e.id for e in executions}
        for gone in self._read.keys() - listed:
            del self._read[gone]
        for gone in self._carded.keys() - listed:
            del self._carded[gone]
        new = [e for e in executions if e.id not in self._read]
        for execution in new:
            if execution.id not in self._carded:
                self._carded[execution.id] = await _carded(execution)
        uncarded = [e for e in new if self._carded[e.id] is None]
        for execution in new if read_carded else uncarded:
            self._start(execution)
        now = self.clock()
        old = sorted(
            (e for e in executions if e.id in self._read),
            key=lambda e: self._read[e.id].at,
        )
        for execution in old[:REREADS_PER_REFRESH]:
            if now - self._read[execution.id].at > REREAD_AFTER.total_seconds():
                self._start(execution)
        under_way = [self._reading[e.id] for e in uncarded if e.id in self._reading]
        if under_way:
            await asyncio.wait(under_way, timeout=FIRST_WAIT.total_seconds())
        read = self._read
        return [
            read[e.id].question if e.id in read else self._carded.get(e.id) or _pending(e)
            for e in executions
        ]

    def _start(self, execution: WorkflowExecution) -> None:
        if execution.id in self._reading:
            return
        task = asyncio.create_task(self._fetch(execution))
        self._reading[execution.id] = task
        task.add_done_callback(lambda _: self._reading.pop(execution.id, None))

    async def _fetch(self, execution: WorkflowExecution) -> None:
        async with self._gate:
            try:
                question = await self.agents.waiting_question(execution, self.query_timeout)
            except RPCError as err:  # closed meanwhile, or the server is away: the next refresh
                log.info("cannot read %s now: %s", execution.id, err.message)
                return
        # a question no worker answered for is read again at the next refresh, before others
        at = self.clock() if question.status is not None else -math.inf
        self._read[execution.id] = _Read(question, at)


async def _carded(execution: WorkflowExecution) -> WaitingQuestion | None:
    """``execution``'s question as its card shows it, or None when it carries none."""
    card = await listed_card(execution)
    if card is None:
        return None
    status = card.status(execution.id)
    return WaitingQuestion(
        execution.id,
        str(card.origin),
        execution.start_time,
        status,
        early=True,
        shortened=card.cut,
    )


def _pending(execution: WorkflowExecution) -> WaitingQuestion:
    origin = execution.typed_search_attributes.get(visibility.INTERRUPT_ORIGIN) or "?"
    return WaitingQuestion(execution.id, origin, execution.start_time, None, pending=True)
