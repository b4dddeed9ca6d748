"""The inbox's first page: the reads of its questions overlap its other visibility calls, so a
slow one costs the page its own time, not its own time plus the reads' ``FIRST_WAIT``."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

import httpx
from temporalio.client import Client

from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.inbox.questions import FIRST_WAIT
from agent_interrupts.app.inbox.web import create_app
from agent_interrupts.app.sdk import AgentWorkflowClient
from tests.support.inbox import start_question

SLOW = 1.5
"""Seconds the slow visibility call takes: well over ``FIRST_WAIT``."""


class SlowAnswered(AgentWorkflowClient):
    """A visibility store that takes ``SLOW`` seconds to list the answered questions."""

    async def answered(self, limit: int = 10) -> list[tuple[str, datetime | None]]:
        await asyncio.sleep(SLOW)
        return await super().answered(limit)


async def test_the_reads_overlap_a_slow_visibility_call(client: Client, workflow_id: str) -> None:
    """No worker answers the question, so its read takes all of ``FIRST_WAIT``: the page takes
    the slow call's time, not that plus ``FIRST_WAIT`` (the reads waited for the calls before)."""
    interrupt_id = f"{workflow_id}-interrupt-1"
    no_worker = f"tq-nobody-{workflow_id}"
    handle = await start_question(client, no_worker, interrupt_id)
    try:
        app = create_app(SlowAnswered(client, no_worker), InboxSettings())
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            began = time.perf_counter()
            page = await http.get("/")
            took = time.perf_counter() - began
        assert page.status_code == 200 and interrupt_id in page.text
        assert took < SLOW + FIRST_WAIT.total_seconds() - 0.1, took
    finally:
        await handle.terminate("test over")
