"""The Slack door through Socket Mode (``SLACK_APP_TOKEN``): ``slack_sdk``'s own client connects
to a Slack-shaped websocket server (``tests/support/slack_socket.py``) that it found through the
fake Slack's ``apps.connections.open``; clicks and form submissions arrive as envelopes and answer
through a real dev server and worker, exactly as the signed HTTP endpoint's do."""

from __future__ import annotations

import asyncio
import logging

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.config import SlackDoorSettings
from agent_interrupts.app.inbox.slack import SlackDoor
from agent_interrupts.app.inbox.slack_socket import SlackSocket
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import OptionKey
from tests.app.test_slack_door import _notify
from tests.support.inbox import start_question
from tests.support.interrupts import interrupt_status
from tests.support.slack import (
    BOT_TOKEN,
    USER,
    FakeSlack,
    block_actions,
    buttons,
    message_ts,
    until,
    view_submission,
)
from tests.support.slack_socket import APP_TOKEN, FakeSocketMode


async def test_socket_mode_answers_a_click_and_shows_a_forms_errors_without_a_public_url(
    client: Client, task_queue: str, workflow_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    agents = AgentWorkflowClient(client, task_queue)
    question = f"{workflow_id}-interrupt-1"
    settings = SlackDoorSettings(
        None, BOT_TOKEN, "", users={USER["id"]: "Ada from the map"}, app_token=APP_TOKEN
    )
    with (
        FakeSocketMode().running() as slack_side,
        FakeSlack(socket_url=slack_side.url).running() as slack,
    ):
        door = SlackDoor(
            agents, SlackDoorSettings(**{**settings.__dict__, "api_url": slack.api_url})
        )
        no_http = door.refusal(b"payload=%7B%7D", {})
        assert no_http is not None and "Socket Mode only" in no_http, "no signing secret"
        socket = SlackSocket(door, APP_TOKEN)
        await socket.connect()
        try:
            async with build_worker(client, task_queue, LlmSettings(), notify=_notify(slack)):
                handle = await start_question(client, task_queue, question)
                await until(lambda: slack.of("chat.postMessage") and slack_side.connected())
                message = slack.of("chat.postMessage")[0]
                shown = buttons(message.args["blocks"])

                form = slack_side.send(
                    block_actions(message, shown["Other: my own answer…"], slack.response_url())
                )
                assert not (await asyncio.to_thread(slack_side.ack, form)).get("payload")
                await until(lambda: slack.of("views.open"))
                view = slack.of("views.open")[0].args["view"]
                wrong = view_submission(view, {"c0": {"pick": {"selected_option": {"value": "C"}}}})
                acked = await asyncio.to_thread(slack_side.ack, slack_side.send(wrong))
                refused = acked["payload"]
                assert refused["response_action"] == "errors", "the modal shows the refusal"
                assert "no option C" in refused["errors"]["free"]

                accept = shown["Accept the recommendation"]
                click = block_actions(message, accept, slack.response_url())
                await asyncio.to_thread(slack_side.ack, slack_side.send(click))
                await asyncio.wait_for(handle.result(), 60)
                resolution = (await interrupt_status(client, question)).resolution
                assert resolution is not None
                assert resolution.selected_choices == {"cache": OptionKey.B}
                assert (resolution.answered_by, resolution.door) == ("Ada from the map", "slack")
                await until(lambda: slack.of("chat.update"))
                update = slack.of("chat.update")[0].args
                assert update["ts"] == message_ts(message)
                assert "Answered by Ada from the map (HUMAN)" in str(update["blocks"])

                again = block_actions(message, accept, slack.response_url())
                await asyncio.to_thread(slack_side.ack, slack_side.send(again))
                await until(lambda: slack.of("response_url"))
                told = slack.of("response_url")[0].args
                assert told["response_type"] == "ephemeral" and "already answered" in told["text"]

                event = slack_side.send({"event": {"type": "app_mention"}}, kind="events_api")
                assert not (await asyncio.to_thread(slack_side.ack, event)).get("payload")
        finally:
            await socket.close()
    assert len(slack.of("apps.connections.open")) >= 1
    assert APP_TOKEN not in caplog.text and BOT_TOKEN not in caplog.text


async def test_an_app_token_slack_refuses_is_one_line_naming_the_setting(
    client: Client, task_queue: str
) -> None:
    with FakeSlack().running() as slack:  # no Socket Mode: apps.connections.open says invalid_auth
        wrong = "xapp-1-wrong-token"
        settings = SlackDoorSettings(None, BOT_TOKEN, slack.api_url, app_token=wrong)
        socket = SlackSocket(SlackDoor(AgentWorkflowClient(client, task_queue), settings), wrong)
        with pytest.raises(ValueError) as refused:
            await socket.connect()
        await socket.close()
    said = str(refused.value)
    assert "invalid_auth" in said and "check SLACK_APP_TOKEN" in said and "\n" not in said


def test_an_app_token_alone_turns_the_door_on_through_socket_mode() -> None:
    env = {"SLACK_APP_TOKEN": APP_TOKEN, "SLACK_BOT_TOKEN": BOT_TOKEN}
    settings = SlackDoorSettings.from_env(env)
    assert settings is not None and settings.signing_secret is None
    assert settings.app_token == APP_TOKEN and APP_TOKEN not in repr(settings)
    with pytest.raises(ValueError, match="SLACK_APP_TOKEN is set but SLACK_BOT_TOKEN is not"):
        SlackDoorSettings.from_env({"SLACK_APP_TOKEN": APP_TOKEN})
    with pytest.raises(ValueError, match="app-level token"):
        SlackDoorSettings.from_env({**env, "SLACK_APP_TOKEN": BOT_TOKEN})
