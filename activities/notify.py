"""Notifications of waiting questions by webhook, Slack and email.

The workflow passes no secret: it sends a ``Notice`` per channel, and this activity reads the
receivers, the webhook secret and the SMTP password from the worker's settings
(``app.config.notify_settings_from_env``). Each activity call is one delivery to one channel, so a
retry never resends to a channel that already took it; a retry after a delivery whose completion
was lost finds the delivery recorded in its heartbeat and stops. Receivers deduplicate on the
delivery id (payload ``deliveryId``, header ``X-Interrupt-Delivery``) for the rest.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from datetime import timedelta

import httpx2
from temporalio import activity

from agent_interrupts.activities.answer_links import (
    SLACK_ADDRESSEE,
    WEBHOOK_ADDRESSEE,
    LinkSigner,
)
from agent_interrupts.activities.llm import as_activity_error
from agent_interrupts.activities.notify_channels import (
    ChannelSender,
    EmailChannel,
    SlackBotChannel,
    SlackChannel,
    SmtpTarget,
    WebhookChannel,
)
from agent_interrupts.activities.redaction import add_secret, install_log_redaction
from agent_interrupts.activities.slack_api import DEFAULT_SLACK_API_URL, SlackApi
from agent_interrupts.models.errors import NotificationRefused
from agent_interrupts.models.notifications import (
    Channel,
    Commands,
    Delivery,
    Links,
    Notice,
    NoticeKind,
    NotificationPayload,
    NotificationPlan,
    Question,
    SlackMessage,
)
from agent_interrupts.models.policies import NOTIFY_REQUEST_TIMEOUT
from agent_interrupts.models.resolution_rules import suggested_answer
from agent_interrupts.models.ui_pages import workflow_page

DEFAULT_REMINDERS = (0.5, 0.9)
DELIVERED = "delivered"
"""Heartbeat detail recorded once the receiver took the delivery."""
SENT_TO = "sent to "
"""Heartbeat detail recorded per recipient of an email notice sent one message per recipient."""
ADDRESSEES = {Channel.WEBHOOK: WEBHOOK_ADDRESSEE, Channel.SLACK: SLACK_ADDRESSEE}


@dataclass(frozen=True)
class NotifySettings:
    """Receivers of notifications; a channel is enabled by its setting. None: no notifications."""

    webhook_url: str | None = None
    webhook_secret: str | None = field(default=None, repr=False)
    slack_url: str | None = field(default=None, repr=False)
    """Slack's incoming-webhook URL is itself a secret."""
    slack_bot_token: str | None = field(default=None, repr=False)
    """The Slack door's bot token (``SLACK_BOT_TOKEN``): answerable notices to the channel."""
    slack_channel: str | None = None
    slack_api_url: str = DEFAULT_SLACK_API_URL
    inbox_url: str | None = None
    """The inbox's address as people open it (``AGENTS_INBOX_URL``), for the notices' links."""
    smtp: SmtpTarget | None = None
    email_to: tuple[str, ...] = ()
    email_from: str = "agent-interrupts@localhost"
    reminders: tuple[float, ...] = DEFAULT_REMINDERS
    ui_url: str = "http://127.0.0.1:8233"
    request_timeout: timedelta = NOTIFY_REQUEST_TIMEOUT
    signer: LinkSigner | None = None
    """Signs answer links (``AGENTS_SIGNING_SECRET``); None: notices carry none."""
    reply_to: str | None = None
    """The email door's address (``INTERRUPT_EMAIL_REPLY_TO``): an email notice's Reply-To,
    its subject carrying the reply token; needs ``signer``."""

    @property
    def channels(self) -> list[Channel]:
        enabled = {
            Channel.WEBHOOK: self.webhook_url,
            Channel.SLACK: self.slack_url or self.slack_bot_token,
            Channel.EMAIL: self.smtp,
        }
        return [channel for channel, setting in enabled.items() if setting]


class NotificationActivities:
    """``notification_plan`` (a local activity) and ``notify`` (one delivery to one channel)."""

    def __init__(self, settings: NotifySettings) -> None:
        self._settings = settings
        smtp_password = settings.smtp.password if settings.smtp else None
        signing = settings.signer.secret if settings.signer else None
        secrets = (settings.webhook_secret, settings.slack_url, settings.slack_bot_token)
        for secret in (*secrets, smtp_password, signing):
            add_secret(secret)
        install_log_redaction()
        timeout = settings.request_timeout.total_seconds()
        http = httpx2.AsyncClient(timeout=timeout, follow_redirects=False)
        self._senders: dict[Channel, ChannelSender] = {}
        if settings.webhook_url:
            self._senders[Channel.WEBHOOK] = WebhookChannel(
                http, settings.webhook_url, settings.webhook_secret
            )
        if settings.slack_url:
            self._senders[Channel.SLACK] = SlackChannel(http, settings.slack_url)
        if settings.slack_bot_token and settings.slack_channel:
            api = SlackApi(settings.slack_bot_token, settings.slack_api_url, timeout)
            self._senders[Channel.SLACK] = SlackBotChannel(
                api, settings.slack_channel, settings.inbox_url
            )
        self._email: EmailChannel | None = None
        if settings.smtp:
            self._email = EmailChannel(
                settings.smtp, settings.email_from, settings.email_to, timeout, settings.reply_to
            )
            self._senders[Channel.EMAIL] = self._email

    @activity.defn(name="notification_plan")
    async def plan(self) -> NotificationPlan:
        """The channels this worker's settings enable and the reminder fractions."""
        return NotificationPlan(
            channels=self._settings.channels, reminders=list(self._settings.reminders)
        )

    @activity.defn(name="notify")
    async def notify(self, delivery: Delivery) -> SlackMessage | None:
        """Deliver one notice to one channel; a receiver that is down raises a retryable error.
        The Slack bot returns where it posted the question, so later notices update it."""
        details = activity.info().heartbeat_details
        if DELIVERED in details:  # an earlier attempt delivered it; only its completion was lost
            posted = details[-1] if len(details) > 1 else None
            return SlackMessage.model_validate(posted) if isinstance(posted, dict) else None
        sender = self._senders.get(delivery.channel)
        if sender is None:
            raise NotificationRefused(
                f"this worker has no {delivery.channel} channel configured"
            ).to_application_error()
        info = activity.info()
        signer = self._settings.signer
        try:
            if self._email is not None and delivery.channel is Channel.EMAIL and signer:
                await self._email_each(delivery.notice, info.namespace, signer, self._email)
                posted = None
            else:
                to = ADDRESSEES.get(delivery.channel, "")
                payload = build_payload(
                    delivery.notice, info.namespace, self._settings.ui_url, signer, to
                )
                posted = await sender.send(payload)
        except Exception as err:
            raise as_activity_error(err) from None
        activity.heartbeat(DELIVERED, posted.to_wire() if posted else None)
        return posted

    async def _email_each(
        self, notice: Notice, namespace: str, signer: LinkSigner, email: EmailChannel
    ) -> None:
        """One message per recipient, each with links and a reply token of their own; a retry
        skips the recipients an earlier attempt recorded as sent."""
        sent = {d for d in activity.info().heartbeat_details if isinstance(d, str)}
        reply = self._settings.reply_to is not None and _answerable(notice)
        for to in self._settings.email_to:
            if SENT_TO + to in sent:
                continue
            payload = build_payload(notice, namespace, self._settings.ui_url, signer, to)
            token = signer.reply_token(notice, to) if reply else None
            await email.send_to(payload, to, token)
            sent.add(SENT_TO + to)
            activity.heartbeat(*sorted(sent))


def build_payload(
    notice: Notice,
    namespace: str,
    ui_url: str,
    signer: LinkSigner | None = None,
    to: str = "",
) -> NotificationPayload:
    """The notice with the UI link and, while it can be answered, the commands that answer it
    and (with ``signer``) the signed answer links addressed to ``to``."""
    answerable = _answerable(notice)
    answers = signer.links(notice, to) if signer is not None and answerable else []
    return NotificationPayload(
        **notice.model_dump(),
        namespace=namespace,
        links=Links(ui=workflow_page(ui_url, namespace, notice.interrupt_id), answers=answers),
        commands=answer_commands(notice.interrupt_id, notice.question, namespace)
        if answerable
        else None,
    )


def _answerable(notice: Notice) -> bool:
    return notice.kind in (NoticeKind.QUESTION, NoticeKind.REMINDER, NoticeKind.ESCALATED)


def answer_commands(interrupt_id: str, question: Question, namespace: str) -> Commands:
    """``agents resolve`` and ``temporal workflow update`` with the recommended answer."""
    answer = suggested_answer(question)
    flags = [f"--choice {shlex.quote(f'{k}={v}')}" for k, v in answer["selectedChoices"].items()]
    flags += [
        f"--confirm {shlex.quote(f'{k}=' + ('yes' if v else 'no'))}"
        for k, v in answer["confirmations"].items()
    ]
    resolve = " ".join(["agents resolve", shlex.quote(interrupt_id), *(flags or ["--text ok"])])
    update = (
        f"temporal workflow update execute --namespace {shlex.quote(namespace)} "
        f"--workflow-id {shlex.quote(interrupt_id)} --name resolve_validated "
        f"--input {shlex.quote(json.dumps(answer, separators=(',', ':')))}"
    )
    return Commands(resolve=resolve, temporal_update=update)
