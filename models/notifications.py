"""Notifications of a waiting question: what the workflow sends and receivers get."""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field

from agent_interrupts.models.agent_types import AgentName
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    TimeoutOutcome,
)
from agent_interrupts.models.limits import MAX_SLACK_ID_CHARS
from agent_interrupts.models.policies import REMINDER_SPREAD, REMINDER_SPREAD_MAX

SCHEMA_VERSION = 1
"""Version of the webhook payload; a change that breaks receivers raises it."""


class NoticeKind(StrEnum):
    QUESTION = "question"
    """A question started waiting for a person."""
    REMINDER = "reminder"
    """Still waiting, at a configured fraction of the time to the deadline."""
    ESCALATED = "escalated"
    """Nobody answered by the deadline: a reviewing LLM answers; a person still may."""
    RESOLVED = "resolved"
    """Answered (``resolution.resolvedBy``: HUMAN, AGENT_REVIEW, TIMEOUT_ESCALATION or
    CONTROLLER_AUTONOMY)."""
    TIMED_OUT = "timed_out"
    """Nobody answered by the deadline and the interrupt fails (``onTimeout`` FAIL)."""


class Channel(StrEnum):
    WEBHOOK = "webhook"
    SLACK = "slack"
    EMAIL = "email"


class Question(InterruptRequestBase):
    """The question as a person reads it: the typed request without its agent-specific fields."""

    @classmethod
    def of(cls, request: InterruptRequestBase) -> Question:
        return cls(**{name: getattr(request, name) for name in InterruptRequestBase.model_fields})


class Reminder(WireModel):
    number: int
    """1 for the first reminder."""
    of: int
    fraction: float
    """Share of the time to the deadline that had passed, e.g. 0.5."""


def reminder_delay(question_id: str, after: timedelta, left: timedelta) -> timedelta:
    """How much later than ``after`` (its time from the question's start) a reminder of
    ``question_id`` is due, ``left`` before the deadline: a share of ``REMINDER_SPREAD`` of the
    shorter of the two, at most ``REMINDER_SPREAD_MAX``, fixed by the id. Questions raised
    together are reminded spread over that window rather than at once, and a reminder stays
    before its deadline (pure: workflow code calls it)."""
    room = min(after, left)
    if room <= timedelta(0):
        return timedelta(0)
    window = min(room * REMINDER_SPREAD, REMINDER_SPREAD_MAX)
    share = zlib.crc32(question_id.encode()) / 2**32
    return timedelta(milliseconds=int(window.total_seconds() * 1000 * share))


class SlackMessage(WireModel):
    """Where the Slack bot posted a question (``chat.postMessage``'s channel and ``ts``): later
    notices of the same question update it in place or answer in its thread."""

    channel: str = Field(max_length=MAX_SLACK_ID_CHARS)
    ts: str = Field(max_length=MAX_SLACK_ID_CHARS)


class Notice(WireModel):
    """One notification as the workflow raises it; the same for every channel and attempt."""

    delivery_id: str
    """``<interrupt id>/<kind>`` (``/reminder-<n>``): one delivery per interrupt and kind."""
    kind: NoticeKind
    interrupt_id: str
    orchestrator_id: str
    origin: AgentName
    reroute_to: AgentName | None = None
    question: Question
    deadline: datetime | None = None
    on_timeout: TimeoutOutcome
    reminder: Reminder | None = None
    resolution: InterruptResolution | None = None
    at: datetime
    """Workflow time the notice was raised (stable across retries, so the signature is too)."""
    slack_message: SlackMessage | None = Field(default=None, exclude_if=lambda v: v is None)
    """The question's Slack message once the bot posted it; left out of the payload while unset."""


class Delivery(WireModel):
    """One notice for one channel: the input of the ``notify`` activity."""

    channel: Channel
    notice: Notice


class NotificationPlan(WireModel):
    """What the worker's settings enable: channels, and reminders as fractions of the wait."""

    channels: list[Channel]
    reminders: list[float]


class AnswerUrl(WireModel):
    """A signed link that answers the question one way, after one confirming click."""

    label: str
    url: str


class Links(WireModel):
    ui: str
    """The interrupt's page in the Temporal UI."""
    answers: list[AnswerUrl] = Field(default_factory=list, exclude_if=lambda links: not links)
    """Signed answer links (``AGENTS_SIGNING_SECRET`` set on the worker): accept the
    recommendation, one per option and per yes/no; left out of the payload when there are none
    (a payload without them is as before)."""


class Commands(WireModel):
    """Shell commands that answer the question with its recommended answer (edit them)."""

    resolve: str
    temporal_update: str


class NotificationPayload(Notice):
    """The webhook's JSON body (camelCase); Slack and email render the same content."""

    schema_version: int = SCHEMA_VERSION
    namespace: str
    links: Links
    commands: Commands | None
    """Present while the question can be answered (question, reminder, escalated)."""


class NotificationInput(WireModel):
    """The input of ``NotificationWorkflow``: a final notice and the channels to deliver it by."""

    channels: list[Channel]
    notice: Notice
