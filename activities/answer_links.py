"""Signed answer links and reply tokens for a notice (the worker signs; the inbox checks).

Each link is ``<AGENTS_LINK_URL>/answer/<token>`` with a token of ``models/signing.py`` for one
answer of ``link_answers``; the email door's token stands for any reply. Tokens are made here,
in the notify activity, never in a workflow: the secret and the tokens stay out of histories.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from agent_interrupts.models.door_answers import link_answers
from agent_interrupts.models.notifications import AnswerUrl, Notice
from agent_interrupts.models.signing import REPLY, Grant, sign

WEBHOOK_ADDRESSEE = "the webhook's receiver"
SLACK_ADDRESSEE = "the Slack channel"
"""Whom a webhook's or Slack's links are addressed to: their answers carry this name."""


@dataclass(frozen=True)
class LinkSigner:
    """Signs a notice's links for one addressee."""

    secret: str = field(repr=False)
    base_url: str
    """Where people reach the inbox (``AGENTS_LINK_URL``), without a trailing slash."""
    lifetime: timedelta

    def links(self, notice: Notice, to: str) -> list[AnswerUrl]:
        """Accept the recommendation and one link per option and yes/no, for ``to``."""
        return [
            AnswerUrl(
                label=link.label,
                url=f"{self.base_url}/answer/{self._token(notice, link.answer, to)}",
            )
            for link in link_answers(notice.question)
        ]

    def reply_token(self, notice: Notice, to: str) -> str:
        """The token an email reply to ``to``'s notice carries (its subject)."""
        return self._token(notice, REPLY, to)

    def _token(self, notice: Notice, answer: str, to: str) -> str:
        expires = notice.at + self.lifetime  # the notice's time: the same token on every retry
        return sign(self.secret, Grant(notice.interrupt_id, answer, to, expires))
