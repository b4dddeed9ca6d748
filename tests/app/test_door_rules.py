"""Who may answer, and who was first, at the doors where a notice arrives: the Slack door, the
email door (aiosmtpd in this process, a real ``smtplib`` client) and signed links, all on one
inbox served by uvicorn, through a real dev server and worker.

A restricted question refuses the wrong person at each of them with who may answer (the Slack
message's clicker alone, a reply email, the link's page without its button); nothing changes and
the question still waits. A Slack click and an email reply sent at the same moment get one
accepted answer; the other door's person is told who was first (Slack: to the clicker, with the
message updated in place; email: a reply).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from email.message import Message

import httpx
import uvicorn
from temporalio.client import Client

from agent_interrupts.activities.answer_links import LinkSigner
from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings, SmtpTarget
from agent_interrupts.app.config import InboxSettings, MailDoorSettings, SlackDoorSettings
from agent_interrupts.app.inbox.slack import SlackDoor
from agent_interrupts.app.inbox.web import create_app, listening
from agent_interrupts.app.mail_door import MailDoor, start_mail_door
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.answer_rules import rules_from_toml
from agent_interrupts.models.interrupt_flow import InterruptState
from agent_interrupts.models.interrupts import OptionKey
from agent_interrupts.models.signing import form_key
from tests.app.test_answer_doors import (
    ALICE,
    BOB,
    DOOR_ADDRESS,
    SECRET,
    _text,
    door_replies,
    door_says,
    reply,
    send,
)
from tests.cli.support import free_port
from tests.support.inbox import start_question
from tests.support.interrupts import interrupt_status
from tests.support.receivers import HttpReceiver, SmtpReceiver
from tests.support.slack import (
    BOT_TOKEN,
    CHANNEL,
    SIGNING_SECRET,
    USER,
    Call,
    FakeSlack,
    block_actions,
    buttons,
    message_ts,
    signed_post,
    until,
)

RULES = """
[groups]
leads = ["ada", "grace"]

[[rules]]
agent = "REVIEW_AGENT"
answer = ["leads"]
"""
MAY = "may not answer this question: only ada, grace (group leads) may"
GRACE = {"id": "U0GRACE", "username": "grace.h", "name": "grace.h", "team_id": "T0TEAM"}


@dataclass
class Doors:
    """The three doors of one inbox and what they talk to."""

    slack: FakeSlack
    smtp: SmtpReceiver
    web: httpx.AsyncClient
    base: str
    mail_port: int


@asynccontextmanager
async def doors(
    client: Client, task_queue: str, users: dict[str, str]
) -> AsyncIterator[tuple[Doors, AgentWorkflowClient]]:
    """A worker whose notices go to Slack and by email (with links and a reply token), and the
    inbox that takes Slack's clicks and the links, plus the email door: ``users`` names the
    Slack users (``SLACK_USERS``)."""
    agents = AgentWorkflowClient(client, task_queue)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with (
        FakeSlack().running() as slack,
        HttpReceiver().running() as http,
        SmtpReceiver().running() as smtp,
    ):
        notify = NotifySettings(
            webhook_url=f"{http.url}/hook",
            slack_bot_token=BOT_TOKEN,
            slack_channel=CHANNEL,
            slack_api_url=slack.api_url,
            smtp=SmtpTarget.parse(smtp.url()),
            email_to=(ALICE, BOB),
            signer=LinkSigner(SECRET, base, timedelta(hours=1)),
            reply_to=DOOR_ADDRESS,
            reminders=(),
        )
        slack_door = SlackDoor(
            agents,
            SlackDoorSettings(SIGNING_SECRET, BOT_TOKEN, slack.api_url, users=users),
            inbox_url=base,
        )
        inbox = InboxSettings(port=port, signing_secret=SECRET)
        app = create_app(agents, inbox, slack=slack_door)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        mail = MailDoorSettings("127.0.0.1", free_port(), SECRET, smtp.url(), DOOR_ADDRESS)
        mail_server = await start_mail_door(MailDoor(agents, mail), mail)
        try:
            with listening(inbox) as sock:
                serving = asyncio.create_task(server.serve(sockets=[sock]))
                try:
                    async with (
                        build_worker(client, task_queue, LlmSettings(), notify=notify),
                        httpx.AsyncClient(base_url=base, timeout=30) as web,
                    ):
                        yield Doors(slack, smtp, web, base, mail.port), agents
                finally:
                    server.should_exit = True
                    await serving
        finally:
            mail_server.close()
            await mail_server.wait_closed()


def notice_to(smtp: SmtpReceiver, to: str, question: str) -> Message | None:
    """The email notice of ``question`` to ``to`` (its reply token in the subject)."""
    for message in smtp.messages:
        if (
            message["To"] == to
            and message["Reply-To"] == DOOR_ADDRESS
            and question in _text(message)
        ):
            return message
    return None


def posted(slack: FakeSlack, question: str) -> Call | None:
    """The Slack message of ``question``."""
    return next((m for m in slack.of("chat.postMessage") if question in str(m.args)), None)


async def test_a_restricted_question_refuses_the_wrong_person_at_the_slack_email_and_link_doors(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    question = f"{workflow_id}-interrupt-1"
    answerers = rules_from_toml(RULES, "rules.toml").answerers("software", ["REVIEW_AGENT"], [])
    assert answerers is not None
    users = {USER["id"]: "linus", GRACE["id"]: "grace"}
    async with doors(client, task_queue, users) as (at, agents):
        handle = await start_question(client, task_queue, question, answerers=answerers)
        await until(lambda: posted(at.slack, question) and notice_to(at.smtp, ALICE, question))
        message = posted(at.slack, question)
        notice = notice_to(at.smtp, ALICE, question)
        assert message is not None and notice is not None
        shown = buttons(message.args["blocks"])

        # Slack: the click of a person the rules leave out, and their "my own answer" form
        for label in ("Accept the recommendation", "Other: my own answer…"):
            clicked = await signed_post(
                at.web, block_actions(message, shown[label], at.slack.response_url())
            )
            assert clicked.status_code == 200, clicked.text
        await until(lambda: len(at.slack.of("response_url")) == 2)
        for told in at.slack.of("response_url"):
            assert told.args["response_type"] == "ephemeral"
            assert f"'linus' {MAY}" in told.args["text"], told.args["text"]
            assert "--as" not in told.args["text"], "a Slack user cannot answer as another"
        assert not at.slack.of("views.open"), "no answer form for a person who may not answer"

        # email: the notice's addressee is not among the people who may answer
        await asyncio.to_thread(send, at.mail_port, reply(notice, ALICE, "A"))
        said = await door_says(at.smtp, ALICE, 1)
        assert "Your answer was not taken." in said and f"'{ALICE}' {MAY}" in said, said
        assert "--as" not in said, "an email's sender cannot answer as another"

        # a signed link to Alice: its page says so, with no button; a POST is refused too
        link = re.findall(rf"{at.base}/answer/[A-Za-z0-9_.-]+", _text(notice))[0]
        page = await at.web.get(link)
        assert page.status_code == 403, page.text
        assert f"&#39;{ALICE}&#39; {MAY}" in page.text, page.text
        assert "--as" not in page.text, "a link's addressee cannot answer as another"
        assert 'name="form"' not in page.text and "Send this answer" not in page.text
        token = link.rsplit("/", 1)[1]
        same_site = {"Origin": at.base, "Sec-Fetch-Site": "same-origin"}
        posted_form = await at.web.post(
            link, data={"form": form_key(SECRET, token)}, headers=same_site
        )
        assert posted_form.status_code == 403 and MAY in posted_form.text.replace("&#39;", "'")

        status = await interrupt_status(client, question)
        assert status.state is InterruptState.WAITING and status.resolution is None
        assert not at.slack.of("chat.update"), "the Slack message still asks"

        # one of the people the rules name answers with one click, and it is taken
        taken = await signed_post(
            at.web,
            block_actions(
                message, shown["Accept the recommendation"], at.slack.response_url(), user=GRACE
            ),
        )
        assert taken.status_code == 200
        await asyncio.wait_for(handle.result(), 60)
        resolution = (await interrupt_status(client, question)).resolution
        assert resolution is not None
        assert (resolution.answered_by, resolution.door) == ("grace", "slack")
        assert resolution.selected_choices == {"cache": OptionKey.B}
        await until(lambda: at.slack.of("chat.update"))
        assert "Answered by grace (HUMAN)" in str(at.slack.of("chat.update")[0].args["blocks"])
        assert agents is not None


async def test_a_slack_click_and_an_email_reply_at_once_take_one_answer_and_name_the_first(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Three questions, each answered by Ada's click and Alice's reply at the same moment (the
    click held back a little more each time, so that either may win: the email door reads the
    question twice before it answers)."""
    winners = []
    async with doors(client, task_queue, {USER["id"]: "ada"}) as (at, agents):
        for n, hold in enumerate((0.0, 0.15, 0.4)):
            question = f"{workflow_id}-interrupt-{n}"
            handle = await start_question(client, task_queue, question)
            await until(lambda q=question: posted(at.slack, q) and notice_to(at.smtp, ALICE, q))
            message = posted(at.slack, question)
            notice = notice_to(at.smtp, ALICE, question)
            assert message is not None and notice is not None
            click = block_actions(
                message,
                buttons(message.args["blocks"])["Accept the recommendation"],
                at.slack.response_url(),
            )
            refusals_before = len(at.slack.of("response_url"))
            replies_before = len(door_replies(at.smtp, ALICE))

            async def later(click: dict[str, object] = click, hold: float = hold) -> httpx.Response:
                await asyncio.sleep(hold)
                return await signed_post(at.web, click)

            clicked, _ = await asyncio.gather(
                later(),
                asyncio.to_thread(send, at.mail_port, reply(notice, ALICE, "A")),
            )
            assert clicked.status_code == 200
            await asyncio.wait_for(handle.result(), 60)
            resolution = (await interrupt_status(client, question)).resolution
            assert resolution is not None
            said = await door_says(at.smtp, ALICE, replies_before + 1)
            await until(
                lambda m=message: any(
                    u.args["ts"] == message_ts(m) for u in at.slack.of("chat.update")
                )
            )
            updates = [u for u in at.slack.of("chat.update") if u.args["ts"] == message_ts(message)]
            if resolution.door == "slack":
                assert (resolution.answered_by, resolution.selected_choices) == (
                    "ada",
                    {"cache": OptionKey.B},
                )
                assert "Your answer was not taken." in said and "ada" in said, said
                assert "via slack" in said or "already answered, by ada" in said, said
                assert len(at.slack.of("response_url")) == refusals_before, "Ada's was taken"
                first = "Answered by ada (HUMAN)"
            else:
                assert resolution.door == "email"
                assert (resolution.answered_by, resolution.selected_choices) == (
                    ALICE,
                    {"cache": OptionKey.A},
                )
                assert "Your answer was taken." in said, said
                await until(lambda b=refusals_before: len(at.slack.of("response_url")) > b)
                told = at.slack.of("response_url")[refusals_before].args["text"]
                assert told.startswith("Not taken") and ALICE in told, told
                first = f"Answered by {ALICE} (HUMAN)"
            assert all(first in str(u.args["blocks"]) for u in updates), "in place, the first"
            assert len(door_replies(at.smtp, ALICE)) == replies_before + 1, "one reply each"
            winners.append(resolution.door)
        assert agents is not None
    assert len(winners) == 3
    print(f"the first answer came through: {', '.join(winners)}")
