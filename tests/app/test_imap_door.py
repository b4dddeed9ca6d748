"""The email door's second way in: replies delivered into a real IMAP mailbox (Debian's dovecot,
started unprivileged by the test, ``tests/support/dovecot.py``; mail put in with IMAP APPEND),
polled by the door as ``agents inbox`` polls it, through a real dev server and worker.

A reply answers its question exactly as through the SMTP door (one function handles both): a
wrong sender gets a reply saying why, the addressee's reply is taken, a later one is told who was
first. Each message is handled once and marked seen. A mailbox that cannot be reached is logged
in one line without the password and tried again with a doubling delay until it can.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
import sys

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.config import ImapSettings, MailDoorSettings
from agent_interrupts.app.imap_door import ImapDoor
from agent_interrupts.app.mail_door import MailDoor
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptOutcome
from agent_interrupts.models.interrupts import OptionKey
from tests.app.test_answer_doors import (
    ALICE,
    BOB,
    DOOR_ADDRESS,
    SECRET,
    door_replies,
    door_says,
    mails_to,
    notify_settings,
    receivers,
    reply,
)
from tests.cli.support import ROOT, free_port
from tests.support.cli import client_env
from tests.support.dovecot import PASSWORD, USER, dovecot_server, require_dovecot
from tests.support.inbox import start_question
from tests.support.receivers import until
from tests.support.slack import BOT_TOKEN, FakeSlack
from tests.support.slack_socket import APP_TOKEN, FakeSocketMode


async def test_replies_polled_from_an_imap_mailbox_answer_once_and_a_lost_server_is_retried(
    client: Client, task_queue: str, workflow_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    require_dovecot()
    caplog.set_level(logging.INFO, logger="agents.mail.imap")
    agents = AgentWorkflowClient(client, task_queue)
    question = f"{workflow_id}-interrupt-1"
    imap_port = free_port()
    imap = ImapSettings("127.0.0.1", imap_port, USER, PASSWORD, seconds=1, security="none")
    with receivers() as (http, smtp):
        mail = MailDoorSettings("127.0.0.1", 0, SECRET, smtp.url(), DOOR_ADDRESS, imap=imap)
        poller = ImapDoor(MailDoor(agents, mail), imap)
        polling = asyncio.create_task(poller.run())
        try:
            await until(lambda: poller.failures >= 2, timeout=30)  # no server yet
            lines = [r.getMessage() for r in caplog.records if r.name == "agents.mail.imap"]
            assert len(lines) >= 2 and all("\n" not in line for line in lines), lines
            assert f"could not read {USER}@127.0.0.1:{imap_port}/INBOX" in lines[0], lines[0]
            assert lines[0].endswith("trying again in 2 s"), lines[0]
            assert lines[1].endswith("trying again in 4 s"), lines[1]

            with dovecot_server(imap_port) as server:
                async with build_worker(
                    client, task_queue, LlmSettings(), notify=notify_settings(http, smtp, 1)
                ):
                    handle = await start_question(client, task_queue, question)
                    await until(lambda: len(mails_to(smtp, ALICE)) == 1)
                    notice = mails_to(smtp, ALICE)[0]

                    wrong = reply(notice, BOB, "A")
                    await asyncio.to_thread(server.append, wrong.as_bytes())
                    said = await door_says(smtp, BOB, 1)
                    assert "not taken" in said and f"was sent to {ALICE}" in said, said
                    # the door answers during a poll, and the poll counts its success once it
                    # returns: on a loaded machine the answer can arrive first
                    await until(lambda: poller.failures == 0, timeout=30)  # the poll came back

                    await asyncio.to_thread(server.append, reply(notice, ALICE, "a\n").as_bytes())
                    assert "was taken" in await door_says(smtp, ALICE, 1)
                    outcome = InterruptOutcome.model_validate(await handle.result())
                    assert outcome.resolution.selected_choices == {"cache": OptionKey.A}
                    assert (outcome.resolution.answered_by, outcome.resolution.door) == (
                        ALICE,
                        "email",
                    )
                    assert await asyncio.to_thread(server.unseen) == 0, "marked seen"
                    await asyncio.sleep(3)  # polls go on: none answers a message twice
                    assert len(door_replies(smtp, ALICE)) == 1
                    assert len(door_replies(smtp, BOB)) == 1

                    late = reply(notice, ALICE, "B")
                    await asyncio.to_thread(server.append, late.as_bytes())
                    second = await door_says(smtp, ALICE, 2)
                    assert "not taken" in second and f"already answered, by {ALICE}" in second
        finally:
            polling.cancel()
            with pytest.raises(asyncio.CancelledError):
                await polling
    assert PASSWORD not in caplog.text
    assert not [m for m in smtp.messages if m["To"] == DOOR_ADDRESS], "no mail loop"


async def test_agents_inbox_polls_the_mailbox_and_opens_socket_mode_from_its_settings(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """``agents inbox`` itself, configured by its settings alone: the IMAP poll answers a reply,
    Socket Mode connects, and neither password nor token reaches its output."""
    require_dovecot()
    question = f"{workflow_id}-interrupt-1"
    with (
        receivers() as (http, smtp),
        dovecot_server(free_port()) as server,
        FakeSocketMode().running() as slack_side,
        FakeSlack(socket_url=slack_side.url).running() as slack,
    ):
        env = client_env(client) | {
            "AGENTS_SIGNING_SECRET": SECRET,
            "SMTP_URL": smtp.url(),
            "INTERRUPT_EMAIL_REPLY_TO": DOOR_ADDRESS,
            "AGENTS_IMAP_HOST": "127.0.0.1",
            "AGENTS_IMAP_PORT": str(server.port),
            "AGENTS_IMAP_USER": USER,
            "AGENTS_IMAP_PASSWORD": PASSWORD,
            "AGENTS_IMAP_SECURITY": "none",
            "AGENTS_IMAP_SECONDS": "1",
            "SLACK_APP_TOKEN": APP_TOKEN,
            "SLACK_BOT_TOKEN": BOT_TOKEN,
            "SLACK_API_URL": slack.api_url,
        }
        inbox = subprocess.Popen(
            [sys.executable, str(ROOT / "client.py"), "inbox", "--port", str(free_port())],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        try:
            assert inbox.stdout is not None
            said = [await asyncio.wait_for(asyncio.to_thread(inbox.stdout.readline), 60)]
            said += [await asyncio.to_thread(inbox.stdout.readline) for _ in range(2)]
            assert said[0].startswith("Inbox: http://127.0.0.1:"), said
            assert said[1] == "Slack door: Socket Mode (SLACK_APP_TOKEN)\n", said
            polled = f"Email door: IMAP {USER}@127.0.0.1:{server.port}/INBOX read every 1 s\n"
            assert said[2] == polled, said
            await until(slack_side.connected)
            async with build_worker(
                client, task_queue, LlmSettings(), notify=notify_settings(http, smtp, 1)
            ):
                handle = await start_question(client, task_queue, question)
                await until(lambda: len(mails_to(smtp, ALICE)) == 1)
                answer = reply(mails_to(smtp, ALICE)[0], ALICE, "B")
                await asyncio.to_thread(server.append, answer.as_bytes())
                assert "was taken" in await door_says(smtp, ALICE, 1)
                outcome = InterruptOutcome.model_validate(await handle.result())
                assert outcome.resolution.selected_choices == {"cache": OptionKey.B}
        finally:
            inbox.send_signal(signal.SIGINT)
            try:
                await asyncio.to_thread(inbox.wait, 30)
            finally:
                inbox.kill()
        assert inbox.stderr is not None and inbox.stdout is not None
        output = inbox.stdout.read() + inbox.stderr.read()
    assert "Traceback" not in output, output
    for secret in (PASSWORD, APP_TOKEN, BOT_TOKEN, SECRET):
        assert secret not in output
