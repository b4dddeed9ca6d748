"""``agents inbox`` against a real Temporal dev server and worker, through
httpx's ASGI transport: listing, answering, a refused answer in place, the token, cross-site
requests and escaping. The browser itself: ``test_inbox_browser.py``."""

from __future__ import annotations

import asyncio
import re
import socket
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from google.protobuf.duration_pb2 import Duration
from temporalio.api.workflowservice.v1 import RegisterNamespaceRequest
from temporalio.client import Client
from temporalio.service import RPCError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.inbox.access import COOKIE
from agent_interrupts.app.inbox.form import form_problems, resolution_from_form, starting_values
from agent_interrupts.app.inbox.web import create_app, inbox_link, listening
from agent_interrupts.app.people import person_name
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.teams.software.agents import AgentType
from tests.cli.support import free_port
from tests.support.cli import ROOT, client_env, client_py
from tests.support.inbox import (
    HOSTILE,
    TOKEN,
    QueriedIds,
    start_question,
    stub_of,
    until_listed,
)
from tests.support.interrupts import GOAL, question_input, wait_for_interrupt

BASE = "http://127.0.0.1:8300"
SAME_ORIGIN = {"Origin": BASE, "Sec-Fetch-Site": "same-origin"}


@asynccontextmanager
async def browser_like(
    agents: AgentWorkflowClient, settings: InboxSettings | None = None, limit: int = 100
) -> AsyncIterator[httpx.AsyncClient]:
    """The inbox app behind httpx, as a browser on the same machine would reach it."""
    app = create_app(agents, settings or InboxSettings(), limit=limit)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        yield http


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has an answer form"
    return found[1]


@pytest.fixture
def question_id(workflow_id: str) -> str:
    return f"{workflow_id}-interrupt-1"


async def test_lists_a_run_question_refuses_in_place_then_answers_and_the_run_continues(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await agents.start(GOAL, workflow_id=workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        interrupt_id = pending.workflow_id
        await until_listed(agents, interrupt_id)
        async with browser_like(agents) as http:
            page = await http.get("/")
            assert page.status_code == 200
            card = page.text.split(f'id="q-{interrupt_id}"', 1)[1].split("</article>", 1)[0]
            assert "ORCHESTRATOR" in card and "Two reasonable approaches exist" in card
            assert "phase" in card, "the typed agent fields are shown"
            assert "Add regression tests for the changed behaviour" in card
            assert re.search(r'value="A" checked>\s*<b>A</b> <span>Minimal change', card), (
                "the recommendation is preselected"
            )
            assert re.search(r'name="confirm.add-tests" value="yes" checked', card)
            graph = await http.get(f"/runs/{workflow_id}/graph.svg")
            assert graph.headers["content-type"].startswith("image/svg+xml")
            assert re.search(r">ORCHESTRATOR</text><text[^>]*>\? waiting</text>", graph.text)
            assert f'src="/runs/{workflow_id}/graph.svg"' in card
            stranger = await http.get("/runs/not-a-listed-run/graph.svg")
            assert stranger.status_code == 404, "only the runs of listed questions are pictured"
            form = {"csrf": csrf_of(page.text), "interrupt": interrupt_id}
            unlisted = await http.post(
                "/ignore",
                data={**form, "interrupt": "not-listed", "reason": "noise"},
                headers={**SAME_ORIGIN, "X-Inbox-Fetch": "1"},
            )
            assert unlisted.status_code == 404, "only a listed question is ignored"

            refused = await http.post(
                "/answer",
                data={**form, "choice.approach": "CUSTOM", "confirm.add-tests": "yes"},
                headers={**SAME_ORIGIN, "X-Inbox-Fetch": "1"},
            )
            assert refused.status_code == 422
            problem = re.search(r'<p class="problem" role="alert">([^<]*)</p>', refused.text)
            assert problem and problem[1] == (
                "approach: CUSTOM needs your own approach in its text box"
            ), refused.text  # the page's words, not the update's customInputs
            assert 'value="CUSTOM" checked' in refused.text, "the person's choice is kept"

            sent = await http.post(
                "/answer",
                data={**form, "choice.approach": "B", "confirm.add-tests": "no", "text": "go"},
                headers={**SAME_ORIGIN, "X-Inbox-Fetch": "1"},
            )
            assert sent.status_code == 200, sent.text
            assert 'class="card answered"' in sent.text
            assert "Introduce a dedicated component" in sent.text and "-&gt; no" in sent.text
            assert f'answered by <span class="who">{person_name()}</span>' in sent.text
            assert f"Resolved by: {person_name()} (HUMAN)" in sent.text, "as the list says"

            result = await asyncio.wait_for(handle.result(), 60)
            assert result.summary, "the run went on to its end"
            lists = ""
            async with asyncio.timeout(60):  # once the question's workflow has closed
                while f'id="a-{interrupt_id}"' not in lists:
                    lists = (await http.get("/questions")).text
                    await asyncio.sleep(0.2)
            answered = lists.split(f'id="a-{interrupt_id}"', 1)[1].split("</li>\n", 1)[0]
            assert f'answered by <span class="who">{person_name()}</span> at' in answered, (
                "a person, not a process"
            )
            assert "UTC" in answered and "-&gt; B (Introduce a dedicated component)" in answered
            assert f'id="q-{interrupt_id}"' not in lists.split('id="answered"')[0]


async def test_an_answer_naming_a_run_not_a_question_is_one_line_not_an_error(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A valid form posted for an orchestrator's workflow id (a mistyped or crafted id) is a
    404 that says what to do, never an HTTP 500 with a traceback."""
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await agents.start(GOAL, workflow_id=workflow_id)
        await wait_for_interrupt(handle)
        async with browser_like(agents) as http:
            page = await http.get("/")
            sent = await http.post(
                "/answer",
                data={
                    "csrf": csrf_of(page.text),
                    "interrupt": workflow_id,
                    "choice.approach": "A",
                    "confirm.add-tests": "yes",
                },
                headers={**SAME_ORIGIN, "X-Inbox-Fetch": "1"},
            )
        await handle.terminate("test over")
    assert sent.status_code == 404, sent.text
    assert sent.text.count("\n") == 1 and "not a question" in sent.text, sent.text
    assert "Traceback" not in sent.text


async def test_model_text_is_escaped_never_markup_and_a_page_without_script_answers(
    client: Client, task_queue: str, question_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start_question(client, task_queue, question_id, reason=HOSTILE)
        async with browser_like(agents) as http:
            page = await http.get("/")
            form = {"csrf": csrf_of(page.text), "interrupt": question_id, "choice.cache": "A"}
            answered = await http.post("/answer", data=form, headers=SAME_ORIGIN)  # no script
        await handle.result()
    for html in (page.text, answered.text):
        assert "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt;" in html
        assert "[the docs](javascript:alert(2))" in html, "markdown stays text"
        assert "<script>alert" not in html and 'javascript:alert(2)"' not in html
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "Back to the inbox" in answered.text and "-&gt; A (in memory)" in answered.text


async def test_a_rerouted_question_names_the_agent_the_run_continues_at(
    client: Client, task_queue: str, question_id: str
) -> None:
    """After a supervisor's re-route the card and the ack name the agent the
    run continues at, not "REVIEW_AGENT resumes"."""
    agents = AgentWorkflowClient(client, task_queue)
    target = AgentType.TICKET_ORCHESTRATOR
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start_question(client, task_queue, question_id, reroute_to=target)
        async with browser_like(agents) as http:
            page = await http.get("/")
            card = page.text.split(f'id="q-{question_id}"', 1)[1].split("</article>", 1)[0]
            assert f"continues at {target}" in card, card
            form = {"csrf": csrf_of(page.text), "interrupt": question_id, "choice.cache": "A"}
            sent = await http.post(
                "/answer", data=form, headers={**SAME_ORIGIN, "X-Inbox-Fetch": "1"}
            )
        outcome = await handle.result()
    assert outcome.route == "ticketOrchestratorRequest", outcome.route
    ack = re.search(r'<p class="ack">([^<]*)</p>', sent.text)
    assert ack and f"the run continues at {target} (re-routed from REVIEW_AGENT)" in ack[1], ack
    assert "REVIEW_AGENT resumes" not in sent.text


async def test_cross_site_and_foreign_host_requests_are_refused(
    client: Client, task_queue: str, question_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start_question(client, task_queue, question_id)
        try:
            async with browser_like(agents) as http:
                page = await http.get("/")
                form = {"csrf": csrf_of(page.text), "interrupt": question_id, "choice.cache": "A"}
                for headers in (
                    {"Origin": "http://evil.example"},
                    {"Sec-Fetch-Site": "cross-site"},
                    {"Origin": "null"},
                ):
                    refused = await http.post("/answer", data=form, headers=headers)
                    assert refused.status_code == 403, headers
                    assert "another site" in refused.text
                forged = await http.post("/answer", data={**form, "csrf": "x"}, headers=SAME_ORIGIN)
                assert forged.status_code == 403 and "not from this inbox" in forged.text
                rebound = await http.get("/", headers={"Host": "evil.example:8300"})
                assert rebound.status_code == 403 and "127.0.0.1" in rebound.text
            assert await agents.is_listed_waiting(question_id), "nothing was answered"
        finally:
            await handle.terminate("test over")


async def test_questions_are_read_once_and_a_refresh_sends_stubs_the_page_fills_from_cards(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A refresh never queries a question it has read, and lists each waiting
    question as a stub; ``/cards`` gives the whole cards; a page lists ``--limit`` and says how
    many more wait."""
    recorder = QueriedIds()
    counted = Client(**{**client.config(), "interceptors": [recorder]})
    agents = AgentWorkflowClient(counted, task_queue)
    mine = [f"{workflow_id}-a-interrupt-1", f"{workflow_id}-b-interrupt-1"]
    async with build_worker(client, task_queue, LlmSettings()):
        handles = [await start_question(client, task_queue, i) for i in mine]
        try:
            async with browser_like(agents) as http:
                async with asyncio.timeout(60):
                    while True:
                        lists = (await http.get("/questions")).text
                        if all(stub_of(lists, i) == "card stub" for i in mine):
                            cards = (await http.get("/cards", params={"id": mine})).text
                            if cards.count('<div class="reason md"><p>Which cache?</p>') == 2:
                                break
                        await asyncio.sleep(0.2)
                assert "<form" not in lists.split('id="answered"')[0], "stubs only"
                assert all(f'name="interrupt" value="{i}"' in cards for i in mine)
                read = len(recorder.ids)
                for _ in range(2):
                    await http.get("/questions")
                    await http.get("/")
                assert [i for i in recorder.ids[read:] if i in mine] == [], "read once"
                assert (await http.get("/cards", params={"id": "nope"})).text.strip() == ""
            async with browser_like(agents, limit=1) as one:
                page = (await one.get("/")).text
            more = re.search(r'<p id="more-waiting" class="hint">(\d+) more questions? wait', page)
            assert more is not None and int(more[1]) >= 1, "the page says how many more wait"
        finally:
            for handle in handles:
                await handle.terminate("test over")


async def test_a_question_not_read_yet_shows_as_loading_then_as_what_the_server_knows(
    client: Client, workflow_id: str
) -> None:
    """No worker polls this question's task queue: the first page shows it loading (the reader
    waits at most FIRST_WAIT), then, once its query timed out, its summary."""
    interrupt_id = f"{workflow_id}-interrupt-1"
    no_worker = f"tq-nobody-{workflow_id}"
    handle = await start_question(client, no_worker, interrupt_id)
    try:
        async with browser_like(AgentWorkflowClient(client, no_worker)) as http:
            first = (await http.get("/questions")).text
            assert stub_of(first, interrupt_id) == "card stub pending"
            async with asyncio.timeout(60):
                while stub_of(lists := (await http.get("/questions")).text, interrupt_id) != (
                    "card stub"
                ):
                    await asyncio.sleep(0.2)
            assert lists
            card = (await http.get("/cards", params={"id": interrupt_id})).text
            assert "No worker answers for this question now" in card
    finally:
        await handle.terminate("test over")


async def test_token_required_off_loopback(client: Client, task_queue: str) -> None:
    with pytest.raises(ValueError, match=r"0\.0\.0\.0 is not a loopback address: give --token"):
        InboxSettings.from_env({}, host="0.0.0.0")
    refused = await client_py(client, "inbox", "--host", "0.0.0.0")
    assert refused.returncode == 2
    assert refused.stderr.strip().startswith("error: --host 0.0.0.0 is not a loopback address")
    assert len(refused.stderr.strip().splitlines()) == 1

    settings = InboxSettings.from_env({"AGENTS_INBOX_TOKEN": TOKEN}, host="0.0.0.0")
    agents = AgentWorkflowClient(client, task_queue)
    async with browser_like(agents, settings) as http:
        assert (await http.get("/")).status_code == 401
        assert (await http.get("/?token=wrong-token-of-enough-length")).status_code == 401
        login = await http.get(f"/?token={TOKEN}")
        assert login.status_code == 303 and login.headers["location"] == "/"
        assert "httponly" in login.headers["set-cookie"].lower()
        assert http.cookies[COOKIE] == TOKEN
        assert (await http.get("/")).status_code == 200
        http.cookies.clear()
        bearer = await http.get("/questions", headers={"Authorization": f"Bearer {TOKEN}"})
        assert bearer.status_code == 200


async def test_a_loopback_address_of_its_own_is_answered_and_named(
    client: Client, task_queue: str
) -> None:
    """``--host 127.0.0.2`` needs no token and answers at the address it printed."""
    settings = InboxSettings.from_env({}, host="127.0.0.2", port=8300)
    async with browser_like(AgentWorkflowClient(client, task_queue), settings) as http:
        assert (await http.get("/", headers={"Host": "127.0.0.2:8300"})).status_code == 200
        rebound = await http.get("/", headers={"Host": "evil.example:8300"})
        assert rebound.status_code == 403 and "http://127.0.0.2:8300/ only" in rebound.text


async def test_the_printed_link_opens_and_is_never_folded(client: Client) -> None:
    """Off loopback the link names this machine, not 0.0.0.0, and stays one line at 60
    columns: a copied half of the token is refused."""
    port = free_port()
    env = {**client_env(client), "COLUMNS": "60", "AGENTS_INBOX_TOKEN": TOKEN}
    inbox = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "client.py"),
        "inbox",
        "--host",
        "0.0.0.0",
        "--port",
        str(port),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert inbox.stdout is not None
        first = (await asyncio.wait_for(inbox.stdout.readline(), 60)).decode()
    finally:
        inbox.terminate()
        await inbox.wait()
    link = f"http://{socket.gethostname()}:{port}/?token={TOKEN}"
    assert first == f"Inbox: {link}  (Ctrl-C stops it)\n"


def test_a_taken_port_or_a_bad_one_is_one_line_naming_the_flag() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ValueError, match=f"cannot listen on 127.0.0.1:{port} .*--port"):
            listening(InboxSettings(port=port))
    with pytest.raises(ValueError, match="--port 70000 is not a port number"):
        InboxSettings.from_env({}, port=70000)
    with listening(InboxSettings.from_env({"AGENTS_INBOX_PORT": str(free_port())})) as sock:
        assert sock.getsockname()[0] == "127.0.0.1"


def test_the_form_starts_at_the_recommendation_and_reads_back_as_a_resolution() -> None:
    request = question_input().request
    values = starting_values(request)
    assert values == {"choice.cache": "B"}
    assert starting_values(request, {"choice.cache": "A"})["choice.cache"] == "A"
    answer = resolution_from_form(
        {
            "csrf": "x",
            "choice.cache": "CUSTOM",
            "custom.cache": " memcached ",
            "confirm.load": "no",
            "text": "",
        },
        AgentType.REVIEW_AGENT,
        team=SOFTWARE_TEAM,
    )
    assert answer.selected_choices == {"cache": OptionKey.CUSTOM}
    assert answer.custom_inputs == {"cache": " memcached "}, "as typed"
    assert answer.confirmations == {"load": False} and answer.free_text is None
    lines = resolution_from_form(
        {"choice.cache": "A", "text": "a\r\n\r\n b"}, "REVIEW_AGENT", team=SOFTWARE_TEAM
    )
    assert lines.free_text == "a\n\n b", "a form posted without script: the lines as typed"
    ignored = resolution_from_form(
        {"choice.cache": "A", "custom.cache": "typed, then chose A"},
        AgentType.REVIEW_AGENT,
        team=SOFTWARE_TEAM,
    )
    assert ignored.custom_inputs == {}
    on = resolution_from_form(
        {"choice.cache": "A", "continue_at": "MERGER_AGENT", "stop": " "},
        AgentType.REVIEW_AGENT,
        team=SOFTWARE_TEAM,
    )
    assert on.continue_at is AgentType.MERGER_AGENT and on.stop_run is None
    stop = resolution_from_form(
        {"stop": " wrong goal ", "choice.cache": "A"}, AgentType.REVIEW_AGENT, team=SOFTWARE_TEAM
    )
    assert stop == InterruptResolution(stop_run="wrong goal"), "stopping is the whole answer"
    assert form_problems(request, {"stop": "wrong goal"}) == []
    with pytest.raises(ValueError, match="continue at DISCOVERY_AGENT is not a route"):
        resolution_from_form(
            {"choice.cache": "A", "continue_at": "DISCOVERY_AGENT"},
            AgentType.REVIEW_AGENT,
            team=SOFTWARE_TEAM,
        )


def test_a_form_that_cannot_answer_is_named_in_the_page_words() -> None:
    request = question_input().request
    assert form_problems(request, {"choice.cache": "A"}) == []
    assert form_problems(request, {}) == [
        "no answer yet for cache: pick one each, or write what the agent should do under "
        '"Anything else"'
    ]
    assert form_problems(request, {"text": "use whatever is simplest"}) == []
    assert form_problems(request, {"text": "!!"}) != []


async def test_a_namespace_without_our_search_attributes_gets_a_page_saying_what_to_create(
    client: Client, task_queue: str
) -> None:
    """Not an HTTP 500 on every page; the page and its refresh say what to
    create, as ``agents list`` does."""
    namespace = f"bare-{uuid.uuid4().hex[:12]}"
    await client.workflow_service.register_namespace(
        RegisterNamespaceRequest(
            namespace=namespace, workflow_execution_retention_period=Duration(seconds=86_400)
        )
    )
    bare = await Client.connect(
        client.service_client.config.target_host,
        namespace=namespace,
        data_converter=client.data_converter,
    )
    agents = AgentWorkflowClient(bare, task_queue)
    async with asyncio.timeout(30):  # a new namespace reaches every frontend within seconds
        while True:
            try:
                await bare.count_workflows()
                break
            except RPCError:
                await asyncio.sleep(0.5)
    assert await agents.search_attributes_missing()
    async with browser_like(agents) as http:
        page = await http.get("/")
        refresh = await http.get("/questions")
    for reply in (page, refresh):
        assert reply.status_code == 503, reply.text
        assert f"the namespace {namespace} lacks the search attributes" in reply.text
        assert "temporal operator search-attribute create" in reply.text
    assert 'id="trouble"' in page.text


def test_the_link_of_named_tokens_leaves_each_person_their_own() -> None:
    shared = InboxSettings(token="tok-shared-0123456789")
    assert inbox_link(shared).endswith("/?token=tok-shared-0123456789")
    named = InboxSettings(people={"tok-ada-0123456789": "ada"})
    assert inbox_link(named).endswith("/?token=YOUR_TOKEN"), "no one's token in a shared line"
