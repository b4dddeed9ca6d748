"""Answering where the notice arrives: signed links (a real HTTP client against the inbox
served by uvicorn; once in headless Chromium) and the email door (an aiosmtpd server in this
process, a real ``smtplib`` client), through a real dev server and worker."""

from __future__ import annotations

import asyncio
import os
import re
import smtplib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage, Message
from pathlib import Path

import httpx
import pytest
import uvicorn
from temporalio.client import Client

from agent_interrupts.activities.answer_links import WEBHOOK_ADDRESSEE, LinkSigner
from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings, SmtpTarget
from agent_interrupts.app.config import InboxSettings, MailDoorSettings
from agent_interrupts.app.inbox.web import create_app, listening
from agent_interrupts.app.mail_door import MailDoor, start_mail_door
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptOutcome
from agent_interrupts.models.interrupts import OptionKey
from agent_interrupts.models.signing import ACCEPT, Grant, sign, verify
from tests.cli.support import free_port
from tests.support.inbox import start_question
from tests.support.receivers import HttpReceiver, SmtpReceiver, until

SECRET = "signing-secret-DISTINCTIVE-4b1f0a7e9c2d"
ALICE, BOB = "alice@example.test", "bob@example.test"
DOOR_ADDRESS = "answers@example.test"


@contextmanager
def receivers() -> Iterator[tuple[HttpReceiver, SmtpReceiver]]:
    with HttpReceiver().running() as http, SmtpReceiver().running() as smtp:
        yield http, smtp


def notify_settings(http: HttpReceiver, smtp: SmtpReceiver, inbox_port: int) -> NotifySettings:
    return NotifySettings(
        webhook_url=f"{http.url}/hook",
        smtp=SmtpTarget.parse(smtp.url()),
        email_to=(ALICE, BOB),
        signer=LinkSigner(SECRET, f"http://127.0.0.1:{inbox_port}", timedelta(hours=1)),
        reply_to=DOOR_ADDRESS,
    )


@asynccontextmanager
async def inbox(agents: AgentWorkflowClient, port: int) -> AsyncIterator[str]:
    """The inbox on 127.0.0.1:``port`` over real HTTP (uvicorn), checking links with SECRET."""
    settings = InboxSettings(port=port, signing_secret=SECRET)
    server = uvicorn.Server(
        uvicorn.Config(create_app(agents, settings), log_level="warning", lifespan="off")
    )
    with listening(settings) as sock:
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = (
                True  # graceful: after a cancelled one, the next test's first request stalled
            )
            await serving


def mails_to(smtp: SmtpReceiver, to: str) -> list[Message]:
    return [m for m in smtp.messages if m["To"] == to]


async def webhook_links(http: HttpReceiver) -> dict[str, str]:
    await until(lambda: bool(http.delivered("/hook")))
    links = http.delivered("/hook")[0].json()["links"]["answers"]
    return {link["label"]: link["url"] for link in links}


async def test_a_link_shows_on_get_answers_on_its_page_post_and_never_twice(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    port = free_port()
    question = f"{workflow_id}-interrupt-1"
    with receivers() as (http, smtp):
        notify = notify_settings(http, smtp, port)
        async with (
            build_worker(client, task_queue, LlmSettings(), notify=notify),
            inbox(agents, port) as base,
            httpx.AsyncClient(timeout=30) as web,
        ):
            handle = await start_question(client, task_queue, question)
            links = await webhook_links(http)
            assert list(links) == [
                "Accept the recommendation",
                "cache: A in memory",
                "cache: B redis (recommended)",
            ]
            link = links["cache: A in memory"]
            assert link.startswith(f"{base}/answer/")
            token = link.rsplit("/", 1)[1]
            assert verify(SECRET, token, datetime.now(UTC)).to == WEBHOOK_ADDRESSEE

            await until(lambda: len(mails_to(smtp, ALICE)) == 1 and len(mails_to(smtp, BOB)) == 1)
            alice_mail = mails_to(smtp, ALICE)[0]
            alice_links = re.findall(rf"{base}/answer/[A-Za-z0-9_.-]+", _text(alice_mail))
            assert len(alice_links) == 3 and link not in alice_links, "her own links"
            assert verify(SECRET, alice_links[0].rsplit("/", 1)[1], datetime.now(UTC)).to == ALICE

            for _ in range(3):  # a preview, a mail scanner, the person: GET never answers
                shown = await web.get(link)
                assert shown.status_code == 200, shown.text
                assert "This link answers, as the webhook&#39;s receiver" in shown.text
                assert "Which cache?" in shown.text and "in memory" in shown.text
            assert (await web.head(link)).status_code in (200, 405)
            assert (await agents.interrupt_status(question)).state == "WAITING"

            form = re.search(r'name="form" value="([^"]+)"', shown.text)
            assert form is not None
            same_site = {"Origin": base, "Sec-Fetch-Site": "same-origin"}
            no_key = await web.post(link, data={"form": "guess"}, headers=same_site)
            assert no_key.status_code == 403 and "did not come from this link" in no_key.text
            other_site = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
            foreign = await web.post(link, data={"form": form[1]}, headers=other_site)
            assert foreign.status_code == 403

            text, signature = token.split(".")
            forged = await web.get(f"{base}/answer/{text}.{signature[:-2]}AA")
            assert forged.status_code == 403 and "signature does not check" in forged.text
            past = Grant(question, ACCEPT, ALICE, datetime.now(UTC) - timedelta(seconds=1))
            expired = await web.post(
                f"{base}/answer/{sign(SECRET, past)}", data={"form": form[1]}, headers=same_site
            )
            assert expired.status_code == 403 and "expired" in expired.text
            elsewhere = Grant("another-question", ACCEPT, ALICE, datetime.now(UTC) + timedelta(1))
            theirs = sign("another-secret-of-32-characters-or-more", elsewhere)
            assert (await web.get(f"{base}/answer/{theirs}")).status_code == 403
            assert (await agents.interrupt_status(question)).state == "WAITING", "nothing changed"

            taken = await web.post(link, data={"form": form[1]}, headers=same_site)
            assert taken.status_code == 200, taken.text
            assert "Taken:" in taken.text
            outcome = InterruptOutcome.model_validate(await handle.result())
            assert outcome.resolution.selected_choices == {"cache": OptionKey.A}
            assert outcome.resolution.answered_by == WEBHOOK_ADDRESSEE
            assert outcome.resolution.door == "link"

            accept = links["Accept the recommendation"]
            again = await web.get(accept)
            assert again.status_code == 409 and "already answered" in again.text
            assert WEBHOOK_ADDRESSEE.replace("'", "&#39;") in again.text, "names who was first"
            reused = await web.post(link, data={"form": form[1]}, headers=same_site)
            assert reused.status_code == 409
            await until(lambda: len(http.delivered("/hook")) == 2)  # the resolved notice
            history = (await handle.fetch_history()).to_json()
            assert SECRET not in history and signature not in history, "no secret, no token"


def _text(message: Message) -> str:
    assert isinstance(message, EmailMessage)
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def reply(to_notice: Message, sender: str, body: str, subject: str | None = None) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = str(to_notice["Reply-To"])
    message["Subject"] = subject if subject is not None else f"Re: {to_notice['Subject']}"
    message["In-Reply-To"] = str(to_notice["Message-ID"])
    message.set_content(body)
    return message


def send(port: int, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.send_message(message)


async def door_says(smtp: SmtpReceiver, to: str, count: int) -> str:
    """The ``count``-th reply of the email door to ``to``."""
    await until(lambda: len(door_replies(smtp, to)) >= count)
    return _text(door_replies(smtp, to)[count - 1])


def door_replies(smtp: SmtpReceiver, to: str) -> list[Message]:
    return [m for m in smtp.messages if m["To"] == to and m["Auto-Submitted"] == "auto-replied"]


async def test_an_email_reply_answers_and_every_wrong_one_gets_a_reply_saying_why(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    question = f"{workflow_id}-interrupt-1"
    with receivers() as (http, smtp):
        mail = MailDoorSettings("127.0.0.1", free_port(), SECRET, smtp.url(), DOOR_ADDRESS)
        door = await start_mail_door(MailDoor(agents, mail), mail)
        try:
            async with build_worker(
                client, task_queue, LlmSettings(), notify=notify_settings(http, smtp, free_port())
            ):
                handle = await start_question(client, task_queue, question)
                await until(lambda: len(mails_to(smtp, ALICE)) == 1)
                notice = mails_to(smtp, ALICE)[0]
                assert notice["Reply-To"] == DOOR_ADDRESS
                assert re.search(r"\[#[A-Za-z0-9_.-]+\]$", str(notice["Subject"]))
                assert "Or reply to this email" in _text(notice)

                await asyncio.to_thread(send, mail.port, reply(notice, BOB, "A"))
                said = await door_says(smtp, BOB, 1)
                assert "not taken" in said and f"was sent to {ALICE}" in said
                untokened = reply(notice, ALICE, "A", subject="Re: which cache")
                await asyncio.to_thread(send, mail.port, untokened)
                assert "no answer token found" in await door_says(smtp, ALICE, 1)
                subject = str(notice["Subject"])
                wrong = re.sub(r"[A-Za-z0-9_-]{4}\]$", "AAAA]", subject)
                assert wrong != subject
                await asyncio.to_thread(send, mail.port, reply(notice, ALICE, "A", f"Re: {wrong}"))
                assert "signature does not check" in await door_says(smtp, ALICE, 2)
                assert (await agents.interrupt_status(question)).state == "WAITING"

                answer = "a\n\nOn Mon, the agents wrote:\n> Which cache?\n> B redis\n"
                await asyncio.to_thread(send, mail.port, reply(notice, ALICE, answer))
                assert "was taken" in await door_says(smtp, ALICE, 3)
                outcome = InterruptOutcome.model_validate(await handle.result())
                assert outcome.resolution.selected_choices == {"cache": OptionKey.A}
                assert outcome.resolution.answered_by == ALICE
                assert outcome.resolution.door == "email"

                await asyncio.to_thread(send, mail.port, reply(notice, ALICE, "B"))
                second = await door_says(smtp, ALICE, 4)
                assert "not taken" in second and f"already answered, by {ALICE}" in second
        finally:
            door.close()
            await door.wait_closed()
        assert not [m for m in smtp.messages if m["To"] == DOOR_ADDRESS], "no mail loop"


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("CI"), reason="needs Debian's chromium"
)
async def test_a_link_answers_with_one_click_in_chromium(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    from playwright.async_api import async_playwright

    from tests.app.test_inbox_browser import FLAGS, WAIT_MS

    agents = AgentWorkflowClient(client, task_queue)
    port = free_port()
    question = f"{workflow_id}-interrupt-1"
    with receivers() as (http, smtp):
        async with (
            build_worker(
                client, task_queue, LlmSettings(), notify=notify_settings(http, smtp, port)
            ),
            inbox(agents, port),
            async_playwright() as playwright,
        ):
            handle = await start_question(client, task_queue, question)
            await until(lambda: len(mails_to(smtp, ALICE)) == 1)
            html = _html(mails_to(smtp, ALICE)[0])
            accept = re.search(r'<a href="([^"]+)">Accept the recommendation</a>', html)
            assert accept is not None
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=FLAGS, headless=True
            )
            try:
                page = await browser.new_page()
                shown = await page.goto(accept[1].replace("&amp;", "&"))
                assert shown is not None and shown.status == 200
                assert (await agents.interrupt_status(question)).state == "WAITING"
                await page.get_by_role("button", name="Send this answer").click()
                await page.get_by_role("status").filter(has_text="Taken").wait_for(timeout=WAIT_MS)
            finally:
                await browser.close()
            outcome = InterruptOutcome.model_validate(await handle.result())
            assert outcome.resolution.selected_choices == {"cache": OptionKey.B}
            assert outcome.resolution.answered_by == ALICE


def _html(message: Message) -> str:
    assert isinstance(message, EmailMessage)
    body = message.get_body(preferencelist=("html",))
    assert body is not None
    return str(body.get_content())
