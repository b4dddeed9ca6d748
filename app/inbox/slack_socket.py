"""Slack's Socket Mode: the Slack door without a public URL (``SLACK_APP_TOKEN``).

``agents inbox`` opens a websocket to Slack (``apps.connections.open`` with the app-level token,
then the URL it gives) through ``slack_sdk``'s own Socket Mode client (``socket_mode.builtin``:
the standard library, threads of its own, reconnecting when Slack asks or the link drops). Slack
sends each click and form submission as an ``interactive`` envelope instead of a signed POST;
the door handles its payload as it handles a POST's (``SlackDoor.interaction``: who answers, the
answer rules, the validated update) and acknowledges the envelope with what it would have
answered over HTTP (a form's errors), then does the rest (the message updated, a refusal told)
after the acknowledgement, as over HTTP. Other envelopes (events, slash commands) are
acknowledged and dropped. The app token is a secret: redacted from logs, never in a history.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
from typing import Any

from slack_sdk.errors import SlackClientError
from slack_sdk.socket_mode.builtin import SocketModeClient
from slack_sdk.socket_mode.client import BaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web import WebClient
from starlette.responses import Response

from agent_interrupts.activities.redaction import add_secret, install_log_redaction
from agent_interrupts.app.inbox.slack import SlackDoor
from agent_interrupts.models.policies import NOTIFY_REQUEST_TIMEOUT, SLACK_ACK_TIMEOUT

log = logging.getLogger("agents.inbox.slack")


class SlackSocket:
    """One Socket Mode connection serving ``door`` on ``loop`` (the inbox's event loop)."""

    def __init__(
        self, door: SlackDoor, app_token: str, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        add_secret(app_token)
        install_log_redaction(("agents.inbox", "slack_sdk"))
        self.door = door
        self.loop = loop or asyncio.get_running_loop()
        web = WebClient(
            base_url=door.settings.api_url, timeout=int(NOTIFY_REQUEST_TIMEOUT.total_seconds())
        )
        self.client = SocketModeClient(app_token=app_token, web_client=web, logger=log)
        self.client.socket_mode_request_listeners.append(self._request)

    async def connect(self) -> None:
        """Open the connection (off the event loop: the client's calls block); ValueError in one
        line when Slack refuses the app token."""
        try:
            await asyncio.to_thread(self.client.connect)
        except SlackClientError as err:
            said = " ".join(str(err).split())[:200]
            raise ValueError(
                f"Slack's Socket Mode did not open ({said}); check SLACK_APP_TOKEN: an app-level "
                "token with connections:write, Socket Mode turned on in the app's settings"
            ) from None

    async def close(self) -> None:
        await asyncio.to_thread(self.client.close)

    def _request(self, client: BaseSocketModeClient, request: SocketModeRequest) -> None:
        """An envelope, in one of the client's threads: acknowledge it with the door's answer."""
        payload: dict[str, Any] | None = None
        follow_up = None
        if request.type == "interactive" and isinstance(request.payload, dict):
            handled = asyncio.run_coroutine_threadsafe(
                self.door.interaction(request.payload), self.loop
            )
            try:
                response = handled.result(SLACK_ACK_TIMEOUT.total_seconds())
                payload, follow_up = _acknowledgement(response), response.background
            except (concurrent.futures.TimeoutError, TimeoutError):
                log.warning(
                    "Slack door (Socket Mode): an interaction outlasted Slack's 3 s; "
                    "acknowledged, its answer goes on"
                )
                handled.add_done_callback(self._later)
        client.send_socket_mode_response(
            SocketModeResponse(envelope_id=request.envelope_id, payload=payload)
        )
        if follow_up is not None:
            asyncio.run_coroutine_threadsafe(_run(follow_up), self.loop)

    def _later(self, handled: concurrent.futures.Future[Response]) -> None:
        """An interaction acknowledged before it ended: what follows it still runs."""
        if not handled.cancelled() and handled.exception() is None:
            follow_up = handled.result().background
            if follow_up is not None:
                asyncio.run_coroutine_threadsafe(_run(follow_up), self.loop)


def _acknowledgement(response: Response) -> dict[str, Any] | None:
    """What the door would have answered over HTTP, as an envelope's acknowledgement payload
    (a form's ``response_action``); None for an empty answer."""
    if not response.body or response.media_type != "application/json":
        return None
    try:
        answer = json.loads(bytes(response.body))
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


async def _run(task: Any) -> None:
    try:
        await task()
    except Exception as err:  # the answer is taken; what follows is logged, never raised
        log.warning("Slack door (Socket Mode): %s", " ".join(str(err).split())[:300])
