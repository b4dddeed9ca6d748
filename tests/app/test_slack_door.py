"""The Slack door through a Slack-shaped server (``tests/support/slack.py``), a real Temporal dev
server and worker, and the inbox process's ``POST /slack/actions`` served by uvicorn: a click
answers and the run moves on with the person's name on the decision and the message updated in
place; forged, stale and replayed requests refused; the modal's text taken exactly as typed; a
second click refused to that person alone; a Slack that answers 500 or 429 retried."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.config import InboxSettings, SlackDoorSettings
from agent_interrupts.app.inbox.slack import SlackDoor
from agent_interrupts.app.inbox.web import create_app, listening
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptState
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.teams.software.agents import AgentType
from tests.cli.support import free_port
from tests.support.inbox import start_question
from tests.support.interrupts import GOAL, interrupt_status, wait_for_interrupt
from tests.support.slack import (
    BOT_TOKEN,
    CHANNEL,
    PROFILE_NAME,
    SIGNING_SECRET,
    USER,
    FakeSlack,
    block_actions,
    buttons,
    message_ts,
    signed,
    signed_post,
    until,
    view_submission,
)

INBOX_URL = "https://inbox.example.test/"


def _notify(slack: FakeSlack) -> NotifySettings:
    return NotifySettings(
        slack_bot_token=BOT_TOKEN,
        slack_channel=CHANNEL,
        slack_api_url=slack.api_url,
        inbox_url=INBOX_URL,
        reminders=(),
    )


@asynccontextmanager
async def door(
    agents: AgentWorkflowClient, slack: FakeSlack, **settings: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """``agents inbox`` with its Slack door, served by uvicorn on a free port."""
    door_settings = SlackDoorSettings(SIGNING_SECRET, BOT_TOKEN, slack.api_url, **settings)
    slack_door = SlackDoor(agents, door_settings, ui_url="http://ui.test", inbox_url=INBOX_URL)
    inbox = InboxSettings(port=free_port())
    app = create_app(agents, inbox, slack=slack_door)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    with listening(inbox) as sock:
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{inbox.port}") as http:
                yield http
        finally:
            server.should_exit = True
            await serving


async def test_a_click_answers_with_the_persons_name_the_run_moves_on_and_the_message_updates(
    client: Client, task_queue: str, workflow_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    with FakeSlack().running() as slack:
        async with (
            build_worker(client, task_queue, LlmSettings(), offline=offline, notify=_notify(slack)),
            door(agents, slack) as http,
        ):
            handle = await agents.start(GOAL, workflow_id=workflow_id)
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            await until(lambda: slack.of("chat.postMessage"))
            message = slack.of("chat.postMessage")[0]
            assert message.args["channel"] == CHANNEL
            shown = buttons(message.args["blocks"])
            assert {"Accept the recommendation", "Answer in my own words…", "Temporal UI"} <= set(
                shown
            )
            assert shown["Open the inbox"]["url"] == INBOX_URL
            assert any(b.get("style") == "primary" for b in shown.values()), "recommendation"

            clicked = await signed_post(
                http,
                block_actions(message, shown["Accept the recommendation"], slack.response_url()),
            )
            assert clicked.status_code == 200, clicked.text
            result = await asyncio.wait_for(handle.result(), 60)
            assert result.summary, "the run went on to its end"
            answered = await interrupt_status(client, pending.workflow_id)
            assert answered.resolution is not None
            assert answered.resolution.answered_by == PROFILE_NAME, "users.info's profile name"
            assert answered.resolution.door == "slack", "the answer says which door it came through"
            # the door's update and the worker's final notice: both in place, on the same message
            await until(lambda: len(slack.of("chat.update")) >= 2)
            for update in slack.of("chat.update"):
                assert (update.args["channel"], update.args["ts"]) == (CHANNEL, message_ts(message))
                text = str(update.args["blocks"])
                assert f"Answered by {PROFILE_NAME} (HUMAN)" in text
                assert "Accept the recommendation" not in text, "no buttons left"
            assert not slack.of("response_url"), "nothing refused"

            again = await signed_post(
                http,
                block_actions(message, shown["Accept the recommendation"], slack.response_url()),
            )
            assert again.status_code == 200
            await until(lambda: slack.of("response_url"))
            refusal = slack.of("response_url")[0].args
            assert refusal["response_type"] == "ephemeral"
            assert "already answered" in refusal["text"] and PROFILE_NAME in refusal["text"]
    assert BOT_TOKEN not in caplog.text and SIGNING_SECRET not in caplog.text
    history = (await client.get_workflow_handle(pending.workflow_id).fetch_history()).to_json()
    assert BOT_TOKEN not in history


async def test_forged_stale_and_replayed_requests_are_refused(
    client: Client, task_queue: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    closed = {"type": "view_closed", "user": USER, "view": {"private_metadata": "{}"}}
    with FakeSlack().running() as slack:
        async with door(agents, slack) as http:
            forged = await signed_post(http, closed, secret="not-the-signing-secret")
            assert forged.status_code == 401 and "signature" in forged.text
            stale = await signed_post(http, closed, at=time.time() - 6 * 60)
            assert stale.status_code == 401 and "older than 5 minutes" in stale.text
            unsigned = await http.post("/slack/actions", content=b"payload=%7B%7D")
            assert unsigned.status_code == 401
            body, headers = signed(closed)
            first = await http.post("/slack/actions", content=body, headers=headers)
            assert first.status_code == 200
            replayed = await http.post("/slack/actions", content=body, headers=headers)
            assert replayed.status_code == 401 and "replay" in replayed.text
            tampered = await http.post(
                "/slack/actions", content=body.replace(b"closed", b"opened"), headers=headers
            )
            assert tampered.status_code == 401
            assert (await http.get("/slack/actions")).status_code in (404, 405), "POST only"


async def test_the_modal_takes_custom_and_free_text_exactly_as_typed(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    interrupt_id = f"{workflow_id}-interrupt-1"
    typed = '  Use <b>Redis</b> & keep "quotes" = \\ \n\tsecond   line  '
    own = " my <own> cache\u00e9 "
    with FakeSlack().running() as slack:
        async with (
            build_worker(client, task_queue, LlmSettings(), notify=_notify(slack)),
            door(agents, slack, users={USER["id"]: "Ada from the map"}) as http,
        ):
            await start_question(client, task_queue, interrupt_id)
            await until(lambda: slack.of("chat.postMessage"))
            message = slack.of("chat.postMessage")[0]
            shown = buttons(message.args["blocks"])
            assert "★ B: redis" in shown, "the recommendation is marked"
            form = await signed_post(
                http, block_actions(message, shown["Other: my own answer…"], slack.response_url())
            )
            assert form.status_code == 200
            opened = slack.of("views.open")
            assert len(opened) == 1 and opened[0].args["trigger_id"].startswith("trigger-")
            view = opened[0].args["view"]
            picked = view["blocks"][1]["element"]
            assert picked["initial_option"]["value"] == "CUSTOM", "the clicked option is chosen"

            empty = view_submission(view, {"c0": {"pick": {"selected_option": {"value": "C"}}}})
            refused = await signed_post(http, empty)
            assert refused.json()["response_action"] == "errors", "the modal shows the refusal"
            assert "no option C" in refused.json()["errors"]["free"]

            values = {
                "c0": {"pick": {"type": "static_select", "selected_option": {"value": "CUSTOM"}}},
                "w0": {"words": {"type": "plain_text_input", "value": own}},
                "free": {"words": {"type": "plain_text_input", "value": typed}},
                "stop": {"words": {"type": "plain_text_input", "value": None}},
            }
            sent = await signed_post(http, view_submission(view, values))
            assert sent.status_code == 200 and not sent.content, "the modal closes"
            status = await interrupt_status(client, interrupt_id)
            assert status.resolution is not None
            assert status.resolution.selected_choices == {"cache": OptionKey.CUSTOM}
            assert status.resolution.custom_inputs == {"cache": own}
            assert status.resolution.free_text == typed
            assert status.resolution.answered_by == "Ada from the map", "SLACK_USERS first"
            await until(lambda: slack.of("chat.update"))
            assert slack.of("chat.update")[0].args["ts"] == message_ts(message)
            assert not slack.of("users.info"), "a mapped person's profile is not read"


async def test_a_slack_that_answers_500_then_429_is_tried_again_and_the_question_waits(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    interrupt_id = f"{workflow_id}-interrupt-1"
    statuses = {"chat.postMessage": [500, 500, 500, 429]}
    with FakeSlack(statuses=statuses).running() as slack:
        async with build_worker(client, task_queue, LlmSettings(), notify=_notify(slack)):
            await start_question(client, task_queue, interrupt_id)
            await until(lambda: slack.of("chat.postMessage"), timeout=90)
            tried = [c.status for c in slack.calls if c.method == "chat.postMessage"]
            assert tried == [500, 500, 500, 429, 200]
            status = await interrupt_status(client, interrupt_id)
            assert status.state is InterruptState.WAITING, "the question still waits"
            async with asyncio.timeout(30):
                while not any("delivered by slack" in e.message for e in status.events):
                    await asyncio.sleep(0.2)
                    status = await interrupt_status(client, interrupt_id)
            assert not any("not delivered" in e.message for e in status.events)
        assert agents is not None


async def test_a_question_answered_elsewhere_shows_so_on_its_slack_message(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    interrupt_id = f"{workflow_id}-interrupt-1"
    with FakeSlack().running() as slack:
        async with build_worker(client, task_queue, LlmSettings(), notify=_notify(slack)):
            handle = await start_question(client, task_queue, interrupt_id)
            await until(lambda: slack.of("chat.postMessage"))
            message = slack.of("chat.postMessage")[0]
            answer = InterruptResolution(selected_choices={"cache": OptionKey.A})
            await agents.resolve(interrupt_id, answer, answered_by="grace")
            await handle.result()
            await until(lambda: slack.of("chat.update"))
        update = slack.of("chat.update")[0].args
        assert (update["channel"], update["ts"]) == (CHANNEL, message_ts(message))
        text = str(update["blocks"])
        assert "Answered by grace (HUMAN)" in text and "A (in memory)" in text
        assert "★ B: redis" not in text, "its buttons are gone"
        assert len(slack.of("chat.postMessage")) == 1, "updated in place, not posted again"
