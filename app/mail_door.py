"""The email door: an SMTP server in the inbox's process that takes replies to email notices
(``imap_door`` polls a mailbox for them instead, through the same ``MailDoor.receive``).

A notice's subject carries a signed reply token (``[#TOKEN]``, ``models/signing.py``) and its
Reply-To is this door's address. A reply answers its question through the SDK's validated update
(as every door), signed with the sender's address, when: the token checks and is a reply token;
the sender is the notice's addressee (unless ``AGENTS_MAIL_ANY_SENDER``); the question still
waits; and its first line reads as an answer (``models/door_answers.py``). The sender gets an
email saying whether it was taken, and why not; nothing changes otherwise. An automatic reply
(``Auto-Submitted``) is dropped unanswered, so two robots never write to each other forever.
"""

from __future__ import annotations

import asyncio
import email.policy
import logging
import re
import smtplib
from dataclasses import dataclass
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope
from pydantic import ValidationError
from temporalio.client import WorkflowQueryFailedError
from temporalio.service import RPCError

from agent_interrupts.app.config import MailDoorSettings
from agent_interrupts.app.sdk import QUESTION_QUERY_TIMEOUT, AgentWorkflowClient, ResolutionRejected
from agent_interrupts.models.answer_rules import ANSWER_AS
from agent_interrupts.models.door_answers import from_door, reply_resolution, reply_text
from agent_interrupts.models.errors import describe_validation_error
from agent_interrupts.models.interrupts import Door
from agent_interrupts.models.limits import clip
from agent_interrupts.models.policies import MAIL_DOOR_SESSION_TIMEOUT, MAIL_REPLY_BYTES
from agent_interrupts.models.signing import REPLY, TokenRefused, verify

DOOR = Door.EMAIL
TOKEN_IN_SUBJECT = re.compile(r"\[#([A-Za-z0-9_.-]{20,2048})\]")
"""``activities/notify_channels.REPLY_TOKEN_MARK`` as a reply's subject keeps it."""
TOKEN_IN_ADDRESS = re.compile(r"\+([A-Za-z0-9_.-]{20,})@")
"""A token in a recipient's plus part (``answers+TOKEN@example.com``), for a Reply-To that
carries it."""
REPLY_ATTEMPTS = (1.0, 2.0, 4.0, 8.0)
"""Seconds before each new attempt to send the door's own reply when its SMTP server fails."""

log = logging.getLogger("agents.mail")


@dataclass(frozen=True)
class Outcome:
    """What became of a reply: ``taken`` or not, in words for the sender."""

    taken: bool
    words: str


class MailDoor:
    """The aiosmtpd handler: one reply email in, at most one answer and one reply email out."""

    def __init__(self, agents: AgentWorkflowClient, settings: MailDoorSettings) -> None:
        self.agents, self.settings = agents, settings
        self.sending: set[asyncio.Task[None]] = set()

    async def handle_DATA(self, server: SMTP, session: Any, envelope: Envelope) -> str:
        content = envelope.original_content or envelope.content
        raw = content if isinstance(content, bytes) else str(content).encode()
        if await self.receive(raw, list(envelope.rcpt_tos)) is None:
            return "250 OK (an automatic reply: nothing answered)"
        return "250 OK"

    async def receive(self, raw: bytes, recipients: list[str]) -> Outcome | None:
        """One reply email, however it arrived (SMTP, ``imap_door``): answer its question or say
        why not, and send the sender the door's reply; None for an automatic reply (dropped
        unanswered). ``recipients``: the addresses it was delivered to (a token may be in one)."""
        message = message_from_bytes(raw, policy=email.policy.default)
        if message.get("Auto-Submitted", "no").strip().lower() != "no":
            return None
        outcome = await self.take(message, recipients)
        task = asyncio.create_task(self._reply(message, outcome))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)
        return outcome

    async def take(self, message: EmailMessage, recipients: list[str]) -> Outcome:
        """Answer the question ``message`` replies to, or say why not."""
        token = _token(str(message.get("Subject", "")), recipients)
        if token is None:
            return Outcome(False, "no answer token found: reply to a notice, keeping its subject")
        try:
            grant = verify(self.settings.secret, token, datetime.now(UTC))
        except TokenRefused as err:
            return Outcome(False, str(err).replace("link", "reply token"))
        if grant.answer != REPLY:
            return Outcome(False, "this token is a link's, not a reply's: reply to the notice")
        sender = parseaddr(str(message.get("From", "")))[1]
        if not self.settings.any_sender and sender.lower() != grant.to.lower():
            return Outcome(
                False,
                f"{grant.question} was sent to {grant.to}: only a reply from that address "
                "answers it",
            )
        try:
            closed = await self.agents.answered_already(grant.question)
            if closed is not None:
                return Outcome(False, closed)
            status = await self.agents.interrupt_status(grant.question, QUESTION_QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError, ValueError) as err:
            return Outcome(False, f"{grant.question} could not be read ({err}); reply again later")
        resolution = reply_resolution(reply_text(_body(message)), status.request)
        if isinstance(resolution, str):
            return Outcome(False, resolution)
        try:
            ack = await self.agents.resolve(grant.question, from_door(resolution, sender, DOOR))
        except ValidationError as err:
            return Outcome(False, describe_validation_error(err))
        except (ValueError, ResolutionRejected) as err:
            return Outcome(False, str(err).replace(f" {ANSWER_AS}", ""))
        except RPCError as err:
            return Outcome(False, f"Temporal said: {err.message}; reply again later")
        return Outcome(True, ack.message)

    async def _reply(self, original: EmailMessage, outcome: Outcome) -> None:
        """Tell the sender (retried with backoff while the SMTP server fails)."""
        if self.settings.smtp_url is None:
            return
        reply = reply_message(original, outcome, self.settings.sender)
        for delay in (*REPLY_ATTEMPTS, None):
            try:
                await asyncio.to_thread(self._send, reply)
                return
            except (OSError, smtplib.SMTPException) as err:
                if delay is None:
                    log.warning("the email door's reply to %s was not sent: %s", reply["To"], err)
                    return
                await asyncio.sleep(delay)

    def _send(self, reply: EmailMessage) -> None:
        from agent_interrupts.activities.notify_channels import SmtpTarget

        assert self.settings.smtp_url is not None
        target = SmtpTarget.parse(self.settings.smtp_url)
        timeout = MAIL_DOOR_SESSION_TIMEOUT.total_seconds()
        smtp = (
            smtplib.SMTP_SSL(target.host, target.port, timeout=timeout)
            if target.security == "ssl"
            else smtplib.SMTP(target.host, target.port, timeout=timeout)
        )
        with smtp:
            if target.security == "starttls":
                smtp.starttls()
            if target.user:
                smtp.login(target.user, target.password or "")
            smtp.send_message(reply)


def reply_message(original: EmailMessage, outcome: Outcome, sender: str) -> EmailMessage:
    """The door's answer to a reply: taken, or why not (the subject keeps its thread)."""
    reply = EmailMessage(policy=email.policy.SMTP.clone(max_line_length=998))
    subject = str(original.get("Subject", ""))
    reply["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    reply["From"] = sender
    reply["To"] = str(original.get("Reply-To") or original.get("From", ""))
    reply["Auto-Submitted"] = "auto-replied"
    if original.get("Message-ID"):
        reply["In-Reply-To"] = str(original["Message-ID"])
        reply["References"] = str(original["Message-ID"])
    head = "Your answer was taken." if outcome.taken else "Your answer was not taken."
    reply.set_content(f"{head}\n\n{clip(outcome.words, 2_000)}\n")
    return reply


async def start_mail_door(door: MailDoor, settings: MailDoorSettings) -> asyncio.Server:
    """The door's SMTP server, listening on this event loop; a taken port is one line."""
    loop = asyncio.get_running_loop()
    try:
        return await loop.create_server(
            lambda: SMTP(
                door,
                data_size_limit=MAIL_REPLY_BYTES,
                timeout=MAIL_DOOR_SESSION_TIMEOUT.total_seconds(),
                ident="agent-interrupts email door",
            ),
            host=settings.host,
            port=settings.port,
        )
    except OSError as err:
        raise ValueError(
            f"the email door cannot listen on {settings.host}:{settings.port} ({err.strerror}); "
            "choose another AGENTS_MAIL_PORT or AGENTS_MAIL_HOST"
        ) from None


def _token(subject: str, recipients: list[str]) -> str | None:
    found = TOKEN_IN_SUBJECT.search(" ".join(subject.split()))
    if found:
        return found[1]
    for _, address in getaddresses(recipients):
        if plus := TOKEN_IN_ADDRESS.search(address):
            return plus[1]
    return None


def _body(message: EmailMessage) -> str:
    """The reply's text: its plain part, else its HTML part without tags."""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        text = str(part.get_content())
    except (LookupError, ValueError):  # an unknown charset
        return ""
    if part.get_content_type() == "text/html":
        text = re.sub(r"<br\s*/?>|</p>", "\n", text, flags=re.IGNORECASE)
        text = re.sub(r"<[^>]*>", "", text)
    return text
