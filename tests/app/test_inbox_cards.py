"""The inbox's first page from the questions' cards: a question the run asked carries its card in
its memo, so the first page shows every such question from the one listing call, with no query
to any of them; a question asked before cards (a recorded history's) is read as before; a sealed
card is unreadable on the server and read by the inbox's keys; a card's text is escaped."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowHistory
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.codec import ENCRYPTED
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.inbox.web import WHOLE_CARDS
from agent_interrupts.app.question_cards import listed_card
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.waiting_pages import WaitingFilter
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.question_card import QUESTION_MEMO
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows import visibility
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.app.test_inbox import browser_like
from tests.support.inbox import HOSTILE, QueriedIds, start_question, stub_of, until_listed
from tests.support.interrupts import wait_for_interrupt

RUNS = 6
"""Runs waiting on a question at once."""
ASKED = "Two reasonable approaches exist for"
"""The start of the offline ORCHESTRATOR's question."""
RECORDED = Path(__file__).parents[1] / "histories" / "3a6ae0f"
ASKS_AT_ONCE = OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR}))


def card_of(page: str, interrupt_id: str) -> str:
    """The card of ``interrupt_id`` on ``page`` (its <details> up to its article's end)."""
    assert f'id="q-{interrupt_id}"' in page, f"{interrupt_id} is listed"
    return page.split(f'id="q-{interrupt_id}"', 1)[1].split("</article>", 1)[0]


async def runs_waiting(agents: AgentWorkflowClient, prefix: str, goal: str) -> list[str]:
    """``RUNS`` runs started at once, each waiting on its ORCHESTRATOR's question, listed."""
    handles = await asyncio.gather(
        *(agents.start(goal, workflow_id=f"{prefix}-{n}") for n in range(RUNS))
    )
    statuses = await asyncio.gather(*(wait_for_interrupt(h, timeout=120) for h in handles))
    ids = [s.pending_interrupt.workflow_id for s in statuses if s.pending_interrupt]
    assert len(ids) == RUNS
    for interrupt_id in ids:
        await until_listed(agents, interrupt_id)
    return ids


async def recorded_question(client: Client, task_queue: str, interrupt_id: str) -> str:
    """A question as an earlier version asked it (no card): the start input of a waiting
    question recorded by version 3a6ae0f, started again as its orchestrator started it."""
    path = RECORDED / "interrupt-planning-question-waiting.json"
    history = WorkflowHistory.from_json(interrupt_id, path.read_text())
    started = history.events[0].workflow_execution_started_event_attributes
    assert not started.memo.fields, "recorded before questions carried cards"
    (job,) = await client.data_converter.decode(started.input.payloads)
    await client.start_workflow(
        InterruptWorkflow.run,
        job,
        id=interrupt_id,
        task_queue=task_queue,
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(visibility.INTERRUPT_STATE, visibility.WAITING),
                SearchAttributePair(visibility.INTERRUPT_ORIGIN, job["origin"]),
            ]
        ),
    )
    await until_listed(AgentWorkflowClient(client), interrupt_id)
    return str(job["request"]["reason"])


async def test_the_first_page_shows_every_card_without_a_query_and_reads_them_later(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Six runs wait on their questions and one question was asked by an earlier version: the
    first page queries that one alone and shows the six from their cards (the form included);
    its first refresh reads the six, and the page then swaps each card for the read one."""
    recorder = QueriedIds()
    counted = Client(**{**client.config(), "interceptors": [recorder]})
    agents = AgentWorkflowClient(counted, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(ASKS_AT_ONCE)):
        carded = await runs_waiting(AgentWorkflowClient(client, task_queue), workflow_id, "cache")
        legacy = f"{workflow_id}-recorded-interrupt-1"
        reason = await recorded_question(client, task_queue, legacy)
        async with browser_like(agents) as http:
            page = await http.get("/", params={"run": workflow_id})
            assert page.status_code == 200
            assert set(recorder.ids) <= {legacy}, "no query to a question with a card"
            for interrupt_id in carded:
                card = card_of(page.text, interrupt_id)
                assert ASKED in card and "ORCHESTRATOR" in card
                assert 'name="choice.approach"' in card, "the answer form, from the card"
                assert "Reading the question" not in card
            assert re.search(rf'class="card early" id="q-{re.escape(carded[0])}"', page.text)

            async with asyncio.timeout(60):  # the recorded question is read, as before
                while stub_of((await http.get("/questions")).text, legacy) != "card stub":
                    await asyncio.sleep(0.2)
            legacy_card = (await http.get("/cards", params={"id": legacy})).text
            assert stub_of(legacy_card, legacy) == "card", "read: neither loading nor early"
            assert reason.split("'")[0] in legacy_card and "PLANNING_ORCHESTRATOR" in legacy_card

            async with asyncio.timeout(60):  # a refresh reads the carded questions
                while not all(
                    stub_of(lists, i) == "card stub"
                    for lists in [(await http.get("/questions")).text]
                    for i in carded
                ):
                    await asyncio.sleep(0.2)
            assert set(carded) <= set(recorder.ids)
            read = (await http.get("/cards", params={"id": carded})).text
            assert all(ASKED in card_of(read, i) for i in carded)
            assert all(stub_of(read, i) == "card" for i in carded), "read: no longer early"


async def test_a_card_is_escaped_and_shown_with_no_worker(client: Client, workflow_id: str) -> None:
    """Questions no worker serves: their cards show at once, a model's hostile reason escaped,
    a long one shortened and saying so; ``list --waiting``'s row says the reason from the card,
    not from a describe call."""
    interrupt_id, long_id = f"{workflow_id}-interrupt-1", f"{workflow_id}-long-interrupt-1"
    no_worker = f"tq-nobody-{workflow_id}"
    handles = [
        await start_question(client, no_worker, interrupt_id, reason=HOSTILE, carded=True),
        await start_question(client, no_worker, long_id, reason="why " * 3_000, carded=True),
    ]
    recorder = QueriedIds()
    agents = AgentWorkflowClient(Client(**{**client.config(), "interceptors": [recorder]}))
    try:
        async with browser_like(agents) as http:
            page = (await http.get("/", params={"run": workflow_id})).text
        assert recorder.ids == []
        card = card_of(page, interrupt_id)
        assert "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt;" in card
        assert "[the docs](javascript:alert(2))" in card, "markdown stays text"
        assert "<script>alert" not in page and 'javascript:alert(2)"' not in page
        assert "shortened" not in card
        long_card = card_of(page, long_id)
        assert "Its longest texts are shortened here" in long_card and "[cut: " in long_card
        listed = await agents.waiting_page(10, None, WaitingFilter(run=interrupt_id))
        wait = timedelta(seconds=1)
        (row,) = [q.row() for q in await agents.read_waiting(listed.executions, wait)]
        assert row.question.startswith("REVIEW_AGENT asks (HUMAN_REVIEW): <script>")
    finally:
        for handle in handles:
            await handle.terminate("test over")


def _sealed(payload: Payload) -> bool:
    return payload.metadata.get("encoding") == ENCRYPTED


async def test_an_encrypted_card_is_sealed_on_the_server_and_read_by_the_inbox(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """With encryption on, the card the run sets is ciphertext in the listing and in the
    question's history (no text of the question readable there); the inbox, with the keys,
    shows it from the listing without a query."""
    ring = KeyRing((("inbox-cards-1", bytes(range(32))),))
    sealed = Client(**{**client.config(), "data_converter": data_converter(ring)})
    goal = "add rate limiting, goal-marmot-6613"
    async with build_worker(sealed, task_queue, LlmSettings(), offline=OfflineModel(ASKS_AT_ONCE)):
        handle = await AgentWorkflowClient(sealed, task_queue).start(goal, workflow_id=workflow_id)
        pending = (await wait_for_interrupt(handle, timeout=120)).pending_interrupt
        assert pending is not None
        interrupt_id = pending.workflow_id
        plain = AgentWorkflowClient(client, task_queue)
        await until_listed(plain, interrupt_id)
        (listed,) = (await plain.waiting_page(10, None, WaitingFilter(run=workflow_id))).executions
        memo: Any = listed.raw_info.memo.fields[QUESTION_MEMO]
        assert _sealed(memo) and b"marmot" not in memo.data and ASKED.encode() not in memo.data
        assert await listed_card(listed) is None, "no card without the keys"
        history = await client.get_workflow_handle(interrupt_id).fetch_history()
        started = history.events[0].workflow_execution_started_event_attributes
        assert _sealed(started.memo.fields[QUESTION_MEMO])

        recorder = QueriedIds()
        agents = AgentWorkflowClient(
            Client(**{**sealed.config(), "interceptors": [recorder]}), task_queue
        )
        async with browser_like(agents) as http:
            page = (await http.get("/", params={"run": workflow_id})).text
        assert recorder.ids == []
        card = card_of(page, interrupt_id)
        assert ASKED in card and "goal-marmot-6613" in card
        await handle.terminate("test over")


async def test_a_whole_page_renders_its_first_cards_whole_and_the_rest_as_lines(
    client: Client, workflow_id: str
) -> None:
    """Past ``WHOLE_CARDS`` a first page renders each card as its line (the question's gist
    included), whose body ``/cards`` gives whole: the page's render stays small, and no card
    costs a query."""
    no_worker = f"tq-nobody-{workflow_id}"
    ids = [f"{workflow_id}-{n:02}-interrupt-1" for n in range(WHOLE_CARDS + 2)]
    handles = await asyncio.gather(
        *(
            start_question(client, no_worker, i, reason=f"Which cache {n}?", carded=True)
            for n, i in enumerate(ids)
        )
    )
    recorder = QueriedIds()
    agents = AgentWorkflowClient(Client(**{**client.config(), "interceptors": [recorder]}))
    try:
        async with browser_like(agents) as http:
            page = (await http.get("/", params={"run": workflow_id})).text
            classes = [stub_of(page, i) for i in ids]
            assert classes.count("card early") == WHOLE_CARDS, classes
            lazy = [i for i in ids if stub_of(page, i) == "card lazy early"]
            assert len(lazy) == 2
            for n, interrupt_id in enumerate(ids):
                assert f"Which cache {n}?" in card_of(page, interrupt_id), "every line's gist"
            assert all('<form class="answer"' not in card_of(page, i) for i in lazy)
            whole = (await http.get("/cards", params={"id": lazy})).text
            assert all(stub_of(whole, i) == "card early" for i in lazy)
            assert whole.count('<form class="answer"') == 2
        assert recorder.ids == []
    finally:
        for handle in handles:
            await handle.terminate("test over")
