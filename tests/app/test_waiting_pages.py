"""``agents list --waiting`` and the inbox page through the waiting questions on the server."""

from __future__ import annotations

import json
import re

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.inbox.pages import PageTokens, page_address
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.waiting_pages import (
    WAITING_QUERY,
    WaitingFilter,
    WaitingFilterError,
    page_size,
    token_bytes,
    token_text,
)
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.limits import MAX_WAITING_PAGE
from tests.app.test_inbox import browser_like
from tests.support.cli import client_py
from tests.support.inbox import start_question


def test_a_filter_narrows_the_query_on_the_server() -> None:
    assert WaitingFilter().query() == WAITING_QUERY
    query = WaitingFilter(run="run-7", agent="REVIEW_AGENT").query()
    assert query.startswith(WAITING_QUERY)
    assert "WorkflowId STARTS_WITH 'run-7'" in query
    assert "InterruptOrigin = 'REVIEW_AGENT'" in query


@pytest.mark.parametrize("value", ["x' OR 'a'='a", 'run"7', "a b", "", "x" * 201, "run\\7"])
def test_a_filter_that_would_change_the_query_is_refused_in_one_line(value: str) -> None:
    if not value:  # an empty filter is no filter
        assert WaitingFilter(run=value).query() == WAITING_QUERY
        return
    with pytest.raises(WaitingFilterError) as refused:
        WaitingFilter(run=value).query()
    assert "\n" not in str(refused.value) and "run filter" in str(refused.value)


def test_page_tokens_travel_as_text_and_back() -> None:
    token = b'{"StartTime":"2026-11-28T04:00:00Z","RunID":"abc"}\xff\x00'
    text = token_text(token)
    assert text is not None and re.fullmatch(r"[A-Za-z0-9_-]+", text)
    assert token_bytes(text) == token
    assert token_text(None) is None and token_bytes("") is None and token_bytes(None) is None
    for bad in ("!!!", "a" * 5000):
        with pytest.raises(WaitingFilterError):
            token_bytes(bad)


def test_a_page_holds_1_to_the_most_questions() -> None:
    assert page_size(1) == 1 and page_size(MAX_WAITING_PAGE) == MAX_WAITING_PAGE
    for bad in (0, -3, MAX_WAITING_PAGE + 1):
        with pytest.raises(WaitingFilterError, match="--limit must be from 1"):
            page_size(bad)


def test_the_inbox_knows_the_tokens_of_pages_it_listed_and_no_more() -> None:
    tokens = PageTokens(most=2)
    assert tokens.start_of("q", 1) == (1, None)
    assert tokens.start_of("q", 2) == (1, None), "an unknown page shows the first"
    tokens.learn("q", 2, b"two")
    tokens.learn("q", 3, b"three")
    assert tokens.start_of("q", 2) == (2, b"two")
    assert tokens.start_of("other filter", 2) == (1, None)
    tokens.learn("q", 4, b"four")
    assert tokens.start_of("q", 2) == (1, None), "the oldest learnt is forgotten first"
    tokens.learn("q", 4, None)
    assert tokens.start_of("q", 4) == (1, None)
    assert page_address({"run": "r 1", "q": "", "page": "9"}, 3) == "/?run=r+1&page=3"
    assert page_address({"run": "r"}, 1) == "/?run=r"


async def test_list_waiting_pages_through_the_questions_narrowed_on_the_server(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    ids = [f"{workflow_id}-interrupt-{n}" for n in range(1, 6)]
    async with build_worker(client, task_queue, LlmSettings()):
        handles = [await start_question(client, task_queue, i) for i in ids]
        try:
            mine = WaitingFilter(run=workflow_id)
            assert await agents.count_waiting(mine) == 5
            seen: list[str] = []
            token = None
            for _ in range(3):
                page = await agents.waiting_page(2, token, mine)
                assert len(page.executions) <= 2, "one page is one server page"
                seen += [e.id for e in page.executions]
                token = page.next_token
                if token is None:
                    break
            assert sorted(seen) == sorted(ids), "every question once, across the pages"
            assert seen == sorted(ids, reverse=True), "newest first"
            other = await agents.waiting_page(10, None, WaitingFilter(run=f"{workflow_id}-x"))
            assert other.executions == [], "another run's prefix lists none of them"
            by_agent = await agents.waiting_page(
                10, None, WaitingFilter(run=workflow_id, agent="PLANNING_AGENT")
            )
            assert by_agent.executions == [], "narrowed by the agent that asked"

            first = await client_py(
                client, "list", "--waiting", "--limit", "2", "--run", workflow_id, "--wide"
            )
            assert first.returncode == 0, first.stderr
            assert ids[4] in first.stdout and ids[3] in first.stdout
            assert ids[2] not in first.stdout
            command = re.search(r"next page: (agents list .*)", first.stdout)
            assert command, first.stdout
            assert f"--run {workflow_id}" in command[1]
            page_token = command[1].rsplit("--page ", 1)[1].strip()
            second = await client_py(
                client,
                *("list", "--waiting", "--limit", "2", "--run", workflow_id, "--json"),
                *("--page", page_token),
            )
            assert second.returncode == 0, second.stderr
            rows = json.loads(second.stdout)
            assert [r["interruptId"] for r in rows] == [ids[2], ids[1]]
            assert "next page:" in second.stderr, "--json keeps its stdout the rows"
            refused = await client_py(client, "list", "--waiting", "--run", "x' OR 'a'='a")
            assert refused.returncode == 2
            assert "the run filter" in refused.stderr and refused.stderr.count("\n") == 1
        finally:
            for handle in handles:
                await handle.terminate("test over")


async def test_the_inbox_pages_with_next_and_previous_links(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    ids = [f"{workflow_id}-interrupt-{n}" for n in range(1, 6)]
    async with build_worker(client, task_queue, LlmSettings()):
        handles = [await start_question(client, task_queue, i) for i in ids]
        try:
            async with browser_like(agents, limit=2) as http:
                first = (await http.get("/", params={"run": workflow_id})).text
                assert f'id="q-{ids[4]}"' in first and f'id="q-{ids[3]}"' in first
                assert f'id="q-{ids[2]}"' not in first
                assert "Page 1 of 3" in first and 'id="previous-page"' not in first
                following = re.search(r'id="next-page" href="([^"]+)"', first)
                assert following, "a next link"
                second = (await http.get(following[1].replace("&amp;", "&"))).text
                assert f'id="q-{ids[2]}"' in second and f'id="q-{ids[1]}"' in second
                assert f'id="q-{ids[4]}"' not in second
                assert "Page 2 of 3" in second
                back = re.search(r'id="previous-page" href="([^"]+)"', second)
                assert back and "page=" not in back[1], "back to the first page"
                third_link = re.search(r'id="next-page" href="([^"]+)"', second)
                assert third_link
                third = (await http.get(third_link[1].replace("&amp;", "&"))).text
                assert f'id="q-{ids[0]}"' in third and 'id="next-page"' not in third
                refresh = (
                    await http.get(third_link[1].replace("&amp;", "&").replace("/?", "/questions?"))
                ).text
                assert f'id="q-{ids[0]}"' in refresh, "the page's refresh keeps its page"
        finally:
            for handle in handles:
                await handle.terminate("test over")


async def test_a_page_size_the_server_cannot_take_is_refused_at_the_start(client: Client) -> None:
    for command in (("inbox", "--limit", "0"), ("list", "--waiting", "--limit", "5000")):
        refused = await client_py(client, *command)
        assert refused.returncode == 2, refused.stdout
        assert "--limit must be from 1 to 1000" in refused.stderr
        assert refused.stderr.count("\n") == 1, refused.stderr
