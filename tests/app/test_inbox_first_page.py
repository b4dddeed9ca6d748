"""The inbox's first page: its wait for questions it has not read counts from the moment the page
was asked for, so slow visibility calls leave less of ``FIRST_WAIT`` to the reads (the cards
show as loading and fill in at the next refresh), never a page of list time plus ``FIRST_WAIT``."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.inbox.questions import FIRST_WAIT, wait_left
from agent_interrupts.app.inbox.web import create_app
from agent_interrupts.app.sdk import AgentWorkflowClient, WaitingPage
from agent_interrupts.app.waiting_pages import WaitingFilter
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.inbox import start_question

FIRST = FIRST_WAIT.total_seconds()


def test_the_wait_for_unread_questions_counts_from_when_the_page_was_asked_for() -> None:
    assert wait_left(10.0, 10.0) == FIRST
    assert wait_left(10.0, 10.0 + FIRST / 5) == pytest.approx(FIRST * 4 / 5)
    assert wait_left(10.0, 10.0 + FIRST) == 0.0
    assert wait_left(10.0, 12.0 + FIRST) == 0.0, "never below 0"


class SlowVisibility(AgentWorkflowClient):
    """A visibility store that takes ``FIRST_WAIT`` to list a page (a loaded server)."""

    async def waiting_page(
        self,
        limit: int = 20,
        token: bytes | None = None,
        narrowed: WaitingFilter = WaitingFilter(),  # noqa: B008 (frozen)
    ) -> WaitingPage:
        await asyncio.sleep(FIRST)
        return await super().waiting_page(limit, token, narrowed)


def stub_of(lists: str, interrupt_id: str) -> str | None:
    found = re.search(rf'<details class="([^"]*)" id="q-{re.escape(interrupt_id)}"', lists)
    return found[1] if found else None


async def test_a_slow_listing_leaves_the_unread_questions_loading_not_the_page_waiting(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A worker answers the question at once, but the listing took all of ``FIRST_WAIT``: the
    page does not wait again for the read; the next refresh shows the question read."""
    interrupt_id = f"{workflow_id}-interrupt-1"
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start_question(client, task_queue, interrupt_id)
        try:
            await handle.query(InterruptWorkflow.status)  # cached on the worker: its read is quick
            agents = SlowVisibility(client, task_queue)
            app = create_app(agents, InboxSettings())
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
                first = (await http.get("/questions")).text
                assert stub_of(first, interrupt_id) == "card stub pending"
                async with asyncio.timeout(30):
                    while stub_of((await http.get("/questions")).text, interrupt_id) != (
                        "card stub"
                    ):
                        await asyncio.sleep(0.1)
                card = (await http.get("/cards", params={"id": interrupt_id})).text
                assert "Which cache?" in card
        finally:
            await handle.terminate("test over")
