"""The notification channels: a signed webhook, Slack (Block Kit through an incoming webhook,
or the bot's interactive message: ``SlackBotChannel``), email (text + HTML) through
the SMTP server ``SMTP_URL`` names (``SmtpTarget``).

Each channel sends one ``NotificationPayload`` and raises ``NotificationFailed`` when retrying
can help (down, slow, 429, 5xx) or ``NotificationRefused`` when it cannot (4xx, SMTP login),
with a one-line message naming the setting to check.
"""

from __future__ import annotations

import asyncio
import email.policy
import hashlib
import hmac
import html
import json
import re
import smtplib
import ssl
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

import httpx2

from agent_interrupts.activities.slack_api import SlackApi
from agent_interrupts.activities.slack_blocks import (
    answered_blocks,
    mrkdwn,
    question_blocks,
    section,
)
from agent_interrupts.models.errors import NotificationFailed, NotificationRefused
from agent_interrupts.models.interrupts import answerer
from agent_interrupts.models.limits import clip
from agent_interrupts.models.notifications import NoticeKind, NotificationPayload, SlackMessage
from agent_interrupts.models.policies import SLACK_POST_WAIT, SLACK_POSTS_KEPT

SIGNATURE_HEADER = "X-Interrupt-Signature"
DELIVERY_HEADER = "X-Interrupt-Delivery"
KIND_HEADER = "X-Interrupt-Kind"
USER_AGENT = "agent-interrupts"
RETRYABLE_STATUS = {408, 425, 429}
SLACK_TEXT_CHARS = 2_900
"""Slack refuses a section text over 3,000 characters."""
SLACK_ITEMS = 20
"""Choices (and confirmations) shown in Slack; a message holds at most 50 blocks."""
REPLY_TOKEN_MARK = "[#{}]"
"""How an email notice's subject carries its reply token (a reply keeps the subject)."""
REPLY_HELP = (
    "Or reply to this email: its first line answers. An option (B, or cache=B for a question of",
    "several choices), yes or no (every confirmation), stop: REASON, continue at AGENT, or your",
    "own words (the whole reply).",
)


class ChannelSender(Protocol):
    async def send(self, payload: NotificationPayload) -> SlackMessage | None:
        """Deliver; the Slack bot returns where it posted the message."""


def signature(secret: str, body: bytes) -> str:
    """The ``X-Interrupt-Signature`` value: ``sha256=`` and the hex HMAC-SHA256 of the body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def body_of(payload: NotificationPayload) -> bytes:
    return payload.model_dump_json(by_alias=True).encode()


class WebhookChannel:
    """A JSON POST of the payload, signed with ``INTERRUPT_WEBHOOK_SECRET`` when it is set."""

    def __init__(self, http: httpx2.AsyncClient, url: str, secret: str | None) -> None:
        self._http, self._url, self._secret = http, url, secret

    async def send(self, payload: NotificationPayload) -> None:
        body = body_of(payload)
        headers = _headers(payload)
        if self._secret:
            headers[SIGNATURE_HEADER] = signature(self._secret, body)
        await _post(
            self._http,
            self._url,
            body,
            headers,
            f"the webhook {self._url}",
            "INTERRUPT_WEBHOOK_URL and INTERRUPT_WEBHOOK_SECRET",
        )


class SlackChannel:
    """A Block Kit message through a Slack incoming webhook (its URL is never quoted)."""

    def __init__(self, http: httpx2.AsyncClient, url: str) -> None:
        self._http, self._url = http, url

    async def send(self, payload: NotificationPayload) -> None:
        body = _json_bytes(slack_message(payload))
        await _post(self._http, self._url, body, _headers(payload), "Slack", "SLACK_WEBHOOK_URL")


class SlackBotChannel:
    """The Slack door's notices, posted by the bot (``chat.postMessage``) to ``SLACK_CHANNEL``:
    the question as buttons; a reminder or an escalation in its thread; the final notice updates
    the question's message in place (who answered, what and when).

    Where the question's message is comes with the notice (``slackMessage``) once the workflow
    heard it was posted; an answer given sooner (the post's completion still on its way) finds it
    in this worker's memory of its own posts, waiting up to ``SLACK_POST_WAIT`` for a post still
    in flight. A message this worker never posted is not found: the notice is posted anew."""

    def __init__(self, api: SlackApi, channel: str, inbox_url: str | None) -> None:
        self._api, self._channel, self._inbox_url = api, channel, inbox_url
        self._posts: OrderedDict[str, asyncio.Future[SlackMessage | None]] = OrderedDict()

    async def send(self, payload: NotificationPayload) -> SlackMessage | None:
        title = headline(payload)
        links = slack_links(self._inbox_url, payload.links.ui)
        footer = slack_footer(payload)
        if payload.kind is NoticeKind.QUESTION:
            return await self._post_question(payload, title, links, footer)
        posted = payload.slack_message or await self._posted(payload.interrupt_id)
        match payload.kind:
            case NoticeKind.RESOLVED | NoticeKind.TIMED_OUT:
                blocks = answered_blocks(
                    payload.question, title, payload.resolution, payload.at, links, footer
                )
                if posted is None:
                    return await self._api.post(self._channel, title, blocks)
                await self._api.update(posted, title, blocks)
                return posted
            case _ if posted is not None:  # a reminder, the escalation: in the thread
                await self._api.post(
                    posted.channel, title, [section(f"*{mrkdwn(title)}*")], thread=posted.ts
                )
                return None
            case _:
                return await self._post_question(payload, title, links, footer)

    async def _post_question(
        self, payload: NotificationPayload, title: str, links: list[tuple[str, str]], footer: str
    ) -> SlackMessage:
        post: asyncio.Future[SlackMessage | None] = asyncio.get_running_loop().create_future()
        self._remember(payload.interrupt_id, post)
        blocks = question_blocks(payload.question, payload.interrupt_id, title, links, footer)
        try:
            message = await self._api.post(self._channel, title, blocks)
        except BaseException:
            post.set_result(None)  # not posted: a notice waiting for it posts anew
            raise
        post.set_result(message)
        return message

    def _remember(self, interrupt_id: str, post: asyncio.Future[SlackMessage | None]) -> None:
        self._posts[interrupt_id] = post
        self._posts.move_to_end(interrupt_id)
        while len(self._posts) > SLACK_POSTS_KEPT:
            self._posts.popitem(last=False)

    async def _posted(self, interrupt_id: str) -> SlackMessage | None:
        post = self._posts.get(interrupt_id)
        if post is None:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(post), SLACK_POST_WAIT.total_seconds())
        except TimeoutError:
            return None


def slack_links(inbox_url: str | None, ui_url: str | None) -> list[tuple[str, str]]:
    """The buttons that open a page: the inbox and the Temporal UI, where their address is known."""
    pages = [("Open the inbox", inbox_url), ("Temporal UI", ui_url)]
    return [(label, url) for label, url in pages if url]


def slack_footer(payload: NotificationPayload) -> str:
    """The message's context line: the interrupt id and, while it waits, the deadline."""
    parts = [f"`{mrkdwn(payload.interrupt_id)}`", f"run `{mrkdwn(payload.orchestrator_id)}`"]
    if payload.deadline is not None and payload.kind is not NoticeKind.RESOLVED:
        parts.append(f"deadline {payload.deadline:%Y-%m-%d %H:%M} UTC")
    return " · ".join(parts)


SMTP_SCHEMES = {"smtp": "plain", "smtp+starttls": "starttls", "smtps": "ssl"}


@dataclass(frozen=True)
class SmtpTarget:
    """An SMTP server from ``SMTP_URL``: ``smtp://``, ``smtp+starttls://`` or ``smtps://``."""

    host: str
    port: int
    security: str
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, url: str) -> SmtpTarget:
        """Raises ValueError naming ``SMTP_URL`` (never quoting its password)."""
        parts = urlsplit(url)
        security = SMTP_SCHEMES.get(parts.scheme)
        if security is None or not parts.hostname:
            raise ValueError(
                "SMTP_URL must look like smtp://host:25, smtp+starttls://user:password@host:587 "
                "or smtps://user:password@host:465"
            )
        try:
            port = parts.port or (465 if security == "ssl" else 25)
        except ValueError:
            raise ValueError("SMTP_URL has a port that is not a number (1-65535)") from None
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        return cls(parts.hostname, port, security, user, password)


class EmailChannel:
    """A plain-text and HTML message over SMTP to ``INTERRUPT_EMAIL_TO``."""

    def __init__(
        self,
        smtp: SmtpTarget,
        sender: str,
        recipients: Sequence[str],
        timeout: float,
        reply_to: str | None = None,
    ) -> None:
        self._smtp, self._sender, self._recipients = smtp, sender, list(recipients)
        self._timeout, self._reply_to = timeout, reply_to

    async def send(self, payload: NotificationPayload) -> None:
        message = email_message(payload, self._sender, self._recipients)
        await asyncio.to_thread(self._send, message)

    async def send_to(self, payload: NotificationPayload, to: str, token: str | None) -> None:
        """One recipient's own message (its links are theirs); with ``token``, Reply-To is the
        email door and the subject carries the token."""
        reply_to = self._reply_to if token else None
        message = email_message(payload, self._sender, [to], reply_to=reply_to, token=token)
        await asyncio.to_thread(self._send, message)

    def _send(self, message: EmailMessage) -> None:
        target = self._smtp
        where = f"the SMTP server {target.host}:{target.port}"
        try:
            if target.security == "ssl":
                smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                    target.host,
                    target.port,
                    timeout=self._timeout,
                    context=ssl.create_default_context(),
                )
            else:
                smtp = smtplib.SMTP(target.host, target.port, timeout=self._timeout)
            with smtp:
                if target.security == "starttls":
                    smtp.starttls(context=ssl.create_default_context())
                if target.user:
                    smtp.login(target.user, target.password or "")
                smtp.send_message(message)
        except smtplib.SMTPAuthenticationError:
            raise NotificationRefused(
                f"{where} refused the login of {target.user!r}; check the user and password in "
                "SMTP_URL"
            ) from None
        except smtplib.SMTPRecipientsRefused as err:
            refused = ", ".join(err.recipients)
            raise NotificationRefused(
                f"{where} refused the recipients {refused}; check INTERRUPT_EMAIL_TO"
            ) from None
        except smtplib.SMTPSenderRefused:
            raise NotificationRefused(
                f"{where} refused the sender {self._sender}; check INTERRUPT_EMAIL_FROM"
            ) from None
        except smtplib.SMTPNotSupportedError as err:
            raise NotificationRefused(f"{where}: {err}; check SMTP_URL") from None
        except OSError as err:  # smtplib.SMTPException is an OSError too
            raise NotificationFailed(
                f"{where} did not take the message ({type(err).__name__}: {clip(str(err))}); "
                "check SMTP_URL"
            ) from None


def _headers(payload: NotificationPayload) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        DELIVERY_HEADER: payload.delivery_id,
        KIND_HEADER: payload.kind.value,
    }


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


async def _post(
    http: httpx2.AsyncClient,
    url: str,
    body: bytes,
    headers: dict[str, str],
    receiver: str,
    settings: str,
) -> None:
    """POST ``body``; map a failure to NotificationFailed/Refused naming ``settings``."""
    try:
        response = await http.post(url, content=body, headers=headers)
    except httpx2.TimeoutException:
        timeout = http.timeout.read
        raise NotificationFailed(
            f"{receiver} did not answer within {timeout:g}s; check {settings}"
        ) from None
    except httpx2.HTTPError as err:
        raise NotificationFailed(
            f"{receiver} is unreachable ({type(err).__name__}); check {settings}"
        ) from None
    if response.is_success:
        return
    said = clip(" ".join(response.text.split()), 200)
    problem = f"{receiver} answered {response.status_code} {said}".rstrip()
    if response.status_code in RETRYABLE_STATUS or response.status_code >= 500:
        raise NotificationFailed(f"{problem}; check {settings}")
    raise NotificationRefused(f"{problem}; check {settings}")


def headline(payload: NotificationPayload) -> str:
    """One line that says what happened, e.g. ``TRIAGE asks: ...``."""
    origin, reason = payload.origin, _first_line(payload.question.reason)
    match payload.kind:
        case NoticeKind.QUESTION:
            return f"{origin} asks: {reason}"
        case NoticeKind.REMINDER:
            number = payload.reminder.number if payload.reminder else 1
            return f"Reminder {number}: {origin} still waits for an answer: {reason}"
        case NoticeKind.ESCALATED:
            return f"Nobody answered {origin} in time; a reviewing LLM answers now: {reason}"
        case NoticeKind.RESOLVED:
            by = answerer(payload.resolution) if payload.resolution else "?"
            return f"Answered (by {by}): {origin} asked: {reason}"
        case NoticeKind.TIMED_OUT:
            return f"Nobody answered {origin} by the deadline; the run fails: {reason}"


def _first_line(text: str) -> str:
    return clip(text.strip().splitlines()[0] if text.strip() else "(no reason given)", 150)


def detail_lines(payload: NotificationPayload) -> list[str]:
    """The question and how to answer it, as plain lines (text email; Slack and HTML reuse)."""
    q = payload.question
    lines = [f"Interrupt {payload.interrupt_id} of run {payload.orchestrator_id} ({q.type})", ""]
    lines += [f"Reason: {q.reason}"]
    if q.context_for_decision:
        lines += [f"Context: {q.context_for_decision}"]
    for choice in q.choices:
        lines += ["", f"Choice {choice.choice_id}: {choice.question}"]
        for option in choice.options:
            mark = " (recommended)" if option.key == choice.recommended else ""
            lines.append(f"  {option.key}: {option.description}{mark}")
    for item in q.confirmation_items:
        default = "yes" if item.default_value else "no"
        lines += ["", f"Confirm {item.confirmation_id}: {item.statement} (default {default})"]
    if payload.resolution is not None:
        answer = payload.resolution
        chosen = ", ".join(f"{k}={v}" for k, v in answer.selected_choices.items()) or "—"
        lines += ["", f"Answered by {answerer(answer)}: {chosen}"]
    if payload.deadline is not None and payload.kind is not NoticeKind.RESOLVED:
        lines += [
            "",
            f"Deadline: {payload.deadline:%Y-%m-%d %H:%M:%S} UTC, then {payload.on_timeout}",
        ]
    lines += ["", f"Temporal UI: {payload.links.ui}"]
    if payload.links.answers:
        lines += ["", "Answer with one click (each link asks you to confirm):"]
        lines += [f"  {link.label}: {link.url}" for link in payload.links.answers]
    if payload.commands is not None:
        lines += ["", "Answer from a shell:", f"  {payload.commands.resolve}"]
        lines += [f"  {payload.commands.temporal_update}"]
    return lines


def slack_message(payload: NotificationPayload) -> dict[str, Any]:
    """Block Kit: a header, the question as mrkdwn, options as bullets, a button to the UI."""
    q = payload.question
    text = [f"*{_mrkdwn(headline(payload))}*"]
    if q.context_for_decision:
        text.append(f"_{_mrkdwn(clip(q.context_for_decision, 500))}_")
    header = {"type": "plain_text", "text": clip(headline(payload), 150)}
    blocks: list[dict[str, Any]] = [{"type": "header", "text": header}, _section("\n".join(text))]
    for choice in q.choices[:SLACK_ITEMS]:
        options = [
            f"• *{o.key}*: {_mrkdwn(o.description)}"
            + (" _(recommended)_" if o.key == choice.recommended else "")
            for o in choice.options
        ]
        ask = f"*{_mrkdwn(choice.choice_id)}*: {_mrkdwn(choice.question)}"
        blocks.append(_section("\n".join([ask, *options])))
    for item in q.confirmation_items[:SLACK_ITEMS]:
        default = "yes" if item.default_value else "no"
        statement = f"*Confirm {_mrkdwn(item.confirmation_id)}*: {_mrkdwn(item.statement)}"
        blocks.append(_section(f"{statement} (default {default})"))
    context = [f"`{payload.interrupt_id}`"]
    if payload.deadline is not None and payload.kind is not NoticeKind.RESOLVED:
        context.append(f"deadline {payload.deadline:%Y-%m-%d %H:%M} UTC")
    blocks.append({"type": "context", "elements": [_mrkdwn_text(" · ".join(context))]})
    if payload.links.answers:
        links = "*Answer* (each link asks you to confirm):"
        for link in payload.links.answers:  # whole links only: a cut one would not check
            line = f"\n<{link.url}|{_mrkdwn(link.label)}>"
            if len(links) + len(line) > SLACK_TEXT_CHARS:
                break
            links += line
        blocks.append(_section(links))
    if payload.commands is not None:
        blocks.append(_section(f"```{payload.commands.resolve}```"))
    button = {
        "type": "button",
        "text": {"type": "plain_text", "text": "Open in Temporal UI"},
        "url": payload.links.ui,
    }
    blocks.append({"type": "actions", "elements": [button]})
    return {"text": headline(payload), "blocks": blocks}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": _mrkdwn_text(clip(text, SLACK_TEXT_CHARS))}


def _mrkdwn_text(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def _mrkdwn(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def email_message(
    payload: NotificationPayload,
    sender: str,
    recipients: Sequence[str],
    *,
    reply_to: str | None = None,
    token: str | None = None,
) -> EmailMessage:
    """A multipart/alternative message; its Message-ID derives from the delivery id (and the
    recipient, for a message of one's own). With ``reply_to`` and ``token``: a reply answers
    (the email door), its token in the subject, ``[#TOKEN]``."""
    message = EmailMessage(policy=email.policy.SMTP.clone(max_line_length=998))  # ids unfolded
    ref = f" {REPLY_TOKEN_MARK.format(token)}" if token else ""
    message["Subject"] = f"[agents] {clip(headline(payload), 160)}{ref}"
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    if reply_to and token:
        message["Reply-To"] = reply_to
    own = f"/{recipients[0]}" if token or payload.links.answers else ""
    local = re.sub(r"[^A-Za-z0-9.-]", ".", payload.delivery_id + own)
    message["Message-ID"] = f"<{local}@agent-interrupts>"
    message[DELIVERY_HEADER] = payload.delivery_id
    lines = detail_lines(payload)
    if reply_to and token:
        lines += ["", *REPLY_HELP]
    message.set_content("\n".join([headline(payload), "", *lines]) + "\n")
    link = html.escape(payload.links.ui, quote=True)
    body = "<br>\n".join(html.escape(line).replace("  ", "&nbsp;&nbsp;") for line in lines)
    answers = "".join(
        f'<li><a href="{html.escape(a.url, quote=True)}">{html.escape(a.label)}</a></li>\n'
        for a in payload.links.answers
    )
    answer_list = f"<ul>\n{answers}</ul>\n" if answers else ""
    message.add_alternative(
        f"<html><body><h3>{html.escape(headline(payload))}</h3>\n{answer_list}<p>{body}</p>\n"
        f'<p><a href="{link}">Open in the Temporal UI</a></p></body></html>\n',
        subtype="html",
    )
    return message
