"""The Slack Web API as the bot uses it (``slack_sdk``'s ``WebClient``, run in a thread):
``chat.postMessage``, ``chat.update``, ``views.open``, ``users.info`` and a reply to a click's
``response_url``.

A Slack that is down is retried inside the call (a connection error once, a 500 or 503 twice with
backoff); what still fails raises ``NotificationFailed`` (a 429 carries its ``Retry-After`` as the
next attempt's delay) or ``NotificationRefused`` (a wrong token, an unknown channel: retrying will
not help), in one line naming the setting to check. The bot token is never quoted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.web import SlackResponse
from slack_sdk.webhook import WebhookClient

from agent_interrupts.models.errors import NotificationFailed, NotificationRefused
from agent_interrupts.models.limits import clip
from agent_interrupts.models.notifications import SlackMessage
from agent_interrupts.models.policies import SLACK_API_RETRIES, SLACK_RETRY_AFTER_CAP

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
SETTINGS = "SLACK_BOT_TOKEN, SLACK_CHANNEL and SLACK_API_URL"
RETRYABLE_ERRORS = frozenset(
    {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}
)
"""Slack's ``error`` values that say "try again later"."""


class SlackApi:
    """One bot's calls; every method raises NotificationFailed or NotificationRefused."""

    def __init__(self, token: str, base_url: str, timeout: float) -> None:
        self._timeout = max(1, int(timeout))
        self._client = WebClient(
            token=token,
            base_url=base_url if base_url.endswith("/") else base_url + "/",
            timeout=self._timeout,
            retry_handlers=[
                ConnectionErrorRetryHandler(max_retry_count=1),
                ServerErrorRetryHandler(max_retry_count=SLACK_API_RETRIES),
            ],
        )

    async def post(
        self, channel: str, text: str, blocks: list[dict[str, Any]], thread: str | None = None
    ) -> SlackMessage:
        """``chat.postMessage``; where the message is, to update it later."""
        reply = await self._call(
            self._client.chat_postMessage,
            "chat.postMessage",
            channel=channel,
            text=text,
            blocks=blocks,
            thread_ts=thread,
        )
        return SlackMessage(channel=str(reply["channel"]), ts=str(reply["ts"]))

    async def update(self, message: SlackMessage, text: str, blocks: list[dict[str, Any]]) -> None:
        """``chat.update``: the message in place."""
        await self._call(
            self._client.chat_update,
            "chat.update",
            channel=message.channel,
            ts=message.ts,
            text=text,
            blocks=blocks,
        )

    async def open_view(self, trigger_id: str, view: dict[str, Any]) -> None:
        """``views.open`` with a click's ``trigger_id`` (valid for 3 s after the click)."""
        await self._call(self._client.views_open, "views.open", trigger_id=trigger_id, view=view)

    async def user_name(self, user_id: str) -> str | None:
        """``users.info``: the person's real name, else their display name, else None."""
        reply = await self._call(self._client.users_info, "users.info", user=user_id)
        user = reply.get("user") or {}
        profile = user.get("profile") or {}
        for name in (profile.get("real_name"), profile.get("display_name"), user.get("real_name")):
            if isinstance(name, str) and name.strip():
                return name.strip()
        return None

    async def respond(self, response_url: str, text: str) -> None:
        """A message only the clicking person sees (``response_type: ephemeral``)."""

        def send() -> int:
            client = WebhookClient(response_url, timeout=self._timeout)
            reply = client.send_dict(
                {"response_type": "ephemeral", "replace_original": False, "text": text}
            )
            return reply.status_code

        try:
            status = await asyncio.to_thread(send)
        except (SlackClientError, OSError) as err:
            raise NotificationFailed(
                f"Slack's response_url is unreachable ({type(err).__name__})"
            ) from None
        if status >= 300:
            raise NotificationFailed(f"Slack's response_url answered {status}")

    async def _call(
        self, call: Callable[..., SlackResponse], method: str, **args: Any
    ) -> dict[str, Any]:
        kept = {k: v for k, v in args.items() if v is not None}
        try:
            reply = await asyncio.to_thread(call, **kept)
        except SlackApiError as err:
            raise _failure(method, err) from None
        except (SlackClientError, OSError) as err:
            raise NotificationFailed(
                f"Slack's {method} is unreachable ({type(err).__name__}); check {SETTINGS}"
            ) from None
        return dict(reply.data) if isinstance(reply.data, dict) else {}


def _failure(method: str, err: SlackApiError) -> NotificationFailed | NotificationRefused:
    status = err.response.status_code
    data = err.response.data if isinstance(err.response.data, dict) else {}
    said = clip(str(data.get("error") or ""), 100)
    problem = f"Slack's {method} answered {status} {said}".rstrip() + f"; check {SETTINGS}"
    if status == 429 or status >= 500 or said in RETRYABLE_ERRORS:
        failed = NotificationFailed(problem)
        failed.next_retry_delay = retry_after(err.response.headers)
        return failed
    return NotificationRefused(problem)


def retry_after(headers: dict[str, Any]) -> timedelta | None:
    """A 429's ``Retry-After`` (seconds), capped; None without one."""
    raw = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    value = raw[0] if isinstance(raw, list) and raw else raw
    try:
        seconds = float(str(value))
    except ValueError:
        return None
    return min(timedelta(seconds=max(seconds, 0)), SLACK_RETRY_AFTER_CAP)
