"""The inbox's first page: the reads of its questions overlap its other visibility calls, so a
slow one costs the page its own time, not its own time plus the reads' ``FIRST_WAIT``. Checked by
order (the question is read while the slow call still runs), not by time, which a loaded machine
stretches."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

import httpx
from temporalio.client import Client, Interceptor, OutboundInterceptor, QueryWorkflowInput

from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.inbox.web import create_app
from agent_interrupts.app.sdk import AgentWorkflowClient
from tests.support.inbox import start_question

SLOW = 1.5
"""Seconds the slow visibility call takes: well over the reads' ``FIRST_WAIT`` (0.5 s)."""


class SlowAnswered(AgentWorkflowClient):
    """A visibility store that takes ``SLOW`` seconds to list the answered questions; ``ended``
    is when that listing returned."""

    ended: float | None = None

    async def answered(self, limit: int = 10) -> list[tuple[str, datetime | None]]:
        await asyncio.sleep(SLOW)
        listed = await super().answered(limit)
        self.ended = time.perf_counter()
        return listed


class QueriedAt(Interceptor):
    """When each query the inbox's client sends left, by workflow id."""

    def __init__(self) -> None:
        self.sent: dict[str, float] = {}

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        sent = self.sent

        class Recording(OutboundInterceptor):
            async def query_workflow(self, input: QueryWorkflowInput) -> Any:
                sent.setdefault(input.id, time.perf_counter())
                return await super().query_workflow(input)

        return Recording(next)


async def test_the_reads_overlap_a_slow_visibility_call(client: Client, workflow_id: str) -> None:
    """No worker answers the question, so its read takes all of ``FIRST_WAIT``: the read is sent
    while the slow call still runs (the reads used to wait for the calls before them), and the
    page takes the slow call's time, not that plus ``FIRST_WAIT``."""
    interrupt_id = f"{workflow_id}-interrupt-1"
    no_worker = f"tq-nobody-{workflow_id}"
    handle = await start_question(client, no_worker, interrupt_id)
    try:
        queries = QueriedAt()
        slow = SlowAnswered(Client(**{**client.config(), "interceptors": [queries]}), no_worker)
        app = create_app(slow, InboxSettings())
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            began = time.perf_counter()
            page = await http.get("/")
            took = time.perf_counter() - began
        assert page.status_code == 200 and interrupt_id in page.text
        assert slow.ended is not None and interrupt_id in queries.sent, queries.sent
        assert queries.sent[interrupt_id] < slow.ended, (queries.sent, slow.ended, took)
        assert took >= SLOW
    finally:
        await handle.terminate("test over")
