"""The Slack door: ``POST /slack/actions`` of ``agents inbox`` takes the clicks and the modal
submissions of the bot's question messages (``SlackBotChannel``).

Every request must carry Slack's signature (``X-Slack-Signature``: ``v0=`` and the hex
HMAC-SHA256 of ``v0:<X-Slack-Request-Timestamp>:<body>`` with ``SLACK_SIGNING_SECRET``); one
older or newer than 5 minutes, or seen before, is refused. The clicking Slack user is named by
``SLACK_USERS``, else by their Slack profile (``users.info``), else by their Slack user name; the
answer goes through the SDK's ``resolve`` (the validated update every door uses) with that name.
Then the message is updated in place (who answered, what, when); a refusal (already answered,
an invalid answer, a person the answer rules leave out: before any form opens) is told to the
clicking person alone (``response_url``), or shown in the modal; an answer another door gave
first (a race) is named in the refusal and shown in place. Slack expects an answer within 3
seconds: the message is updated after the response.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

from pydantic import ValidationError
from slack_sdk.signature import Clock, SignatureVerifier
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from temporalio.client import WorkflowQueryFailedError
from temporalio.service import RPCError

from agent_interrupts.activities.notify_channels import slack_links
from agent_interrupts.activities.redaction import add_secret, install_log_redaction
from agent_interrupts.activities.slack_api import SlackApi
from agent_interrupts.activities.slack_blocks import (
    ANSWER,
    FORM,
    FREE,
    answer_view,
    answered_blocks,
    clicked_answer,
    mrkdwn,
    submitted_answer,
)
from agent_interrupts.app.config import SlackDoorSettings
from agent_interrupts.app.people import checked_name
from agent_interrupts.app.sdk import QUESTION_QUERY_TIMEOUT, AgentWorkflowClient, ResolutionRejected
from agent_interrupts.models.errors import AgentWorkflowError, describe_validation_error
from agent_interrupts.models.interrupt_flow import InterruptStatus
from agent_interrupts.models.interrupts import Door, InterruptResolution
from agent_interrupts.models.limits import clip
from agent_interrupts.models.notifications import SlackMessage
from agent_interrupts.models.policies import (
    NOTIFY_REQUEST_TIMEOUT,
    SLACK_DOOR_ATTEMPTS,
    SLACK_REQUEST_AGE,
)
from agent_interrupts.models.resolution_rules import redirect_targets
from agent_interrupts.models.team_build import team_of
from agent_interrupts.models.ui_pages import workflow_page

PATH = "/slack/actions"
MAX_BODY_BYTES = 64 * 1024
"""The largest request read: a modal's submission with every field full is below 40 KB."""
MAX_SEEN = 10_000
"""Signatures remembered to refuse a replay (those of the last 5 minutes, at most this many)."""

log = logging.getLogger("agents.inbox.slack")


class ReplayGuard:
    """The signatures of the last ``SLACK_REQUEST_AGE``: a request seen before is refused."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, signature: str) -> bool:
        now = self._clock()
        horizon = now - SLACK_REQUEST_AGE.total_seconds() * 2  # the window on both sides
        while self._seen and (
            next(iter(self._seen.values())) < horizon or len(self._seen) >= MAX_SEEN
        ):
            self._seen.popitem(last=False)
        if signature in self._seen:
            return False
        self._seen[signature] = now
        return True


class _Clock(Clock):
    """slack_sdk's clock over any ``time.time``-like function (tests move it)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now

    def now(self) -> float:
        return self._now()


class SlackDoor:
    """The handler of ``POST /slack/actions``."""

    def __init__(
        self,
        agents: AgentWorkflowClient,
        settings: SlackDoorSettings,
        *,
        ui_url: str | None = None,
        inbox_url: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        add_secret(settings.signing_secret)
        add_secret(settings.bot_token)
        add_secret(settings.app_token)
        install_log_redaction()
        self.agents, self.settings = agents, settings
        self.api = SlackApi(
            settings.bot_token, settings.api_url, NOTIFY_REQUEST_TIMEOUT.total_seconds()
        )
        self.clock = clock
        self.verifier = (
            SignatureVerifier(settings.signing_secret, _Clock(clock))
            if settings.signing_secret
            else None
        )
        self.replays = ReplayGuard(clock)
        self.ui_url, self.inbox_url = ui_url, inbox_url
        self.names: dict[str, str] = {}

    async def actions(self, request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _refused(413, f"refused: a Slack request is at most {MAX_BODY_BYTES} bytes")
        problem = self.refusal(body, request.headers)
        if problem is not None:
            log.warning("Slack door: %s", problem)
            return _refused(401, problem)
        try:
            payload = json.loads(parse_qs(body.decode())["payload"][0])
        except (KeyError, IndexError, ValueError, UnicodeDecodeError):
            return _refused(400, "refused: no payload= form field with Slack's JSON")
        if not isinstance(payload, dict):
            return _refused(400, "refused: the payload is not a JSON object")
        return await self.interaction(payload)

    async def interaction(self, payload: dict[str, Any]) -> Response:
        """One interaction payload, however it came (this endpoint, or Socket Mode's envelope:
        ``slack_socket``): Slack's answer, with the work that follows it as its background."""
        match payload.get("type"):
            case "block_actions":
                return await self._click(payload)
            case "view_submission":
                return await self._submission(payload)
        return Response(status_code=200)  # view_closed, shortcuts: nothing to do

    def refusal(self, body: bytes, headers: Mapping[str, str]) -> str | None:
        """Why the request is not Slack's, or is one seen before (None: take it)."""
        if self.verifier is None:
            return "refused: this Slack door takes Socket Mode only (no SLACK_SIGNING_SECRET)"
        timestamp = headers.get("x-slack-request-timestamp")
        signature = headers.get("x-slack-signature")
        if not timestamp or not signature:
            return "refused: no X-Slack-Signature and X-Slack-Request-Timestamp headers"
        if not timestamp.isdigit():
            return "refused: X-Slack-Request-Timestamp is not a Unix time"
        if abs(self.clock() - int(timestamp)) > SLACK_REQUEST_AGE.total_seconds():
            return "refused: the request is older than 5 minutes (or the clocks disagree)"
        if not self.verifier.is_valid(body, timestamp, signature):
            return "refused: the signature does not match; check SLACK_SIGNING_SECRET"
        if not self.replays.first_time(signature):
            return "refused: this request was received before (a replay)"
        return None

    async def _click(self, payload: dict[str, Any]) -> Response:
        actions = payload.get("actions") or [{}]
        action = actions[0] if isinstance(actions[0], dict) else {}
        kind = str(action.get("action_id", "")).split(":", 1)[0]
        if kind not in (ANSWER, FORM):
            return Response(status_code=200)  # a link button: Slack opened the page
        value = _json_object(action.get("value"))
        interrupt_id = str(value.get("q", ""))
        message = _message(payload)
        reply_to = payload.get("response_url")
        reply_to = reply_to if isinstance(reply_to, str) else None
        status = await self._status(interrupt_id)
        if isinstance(status, str):
            return _after(self._tell, reply_to, status)
        if status.resolution is not None:
            return _after(self._closed, status, message, reply_to)
        name = await self._name(payload.get("user"))
        if status.answerers is not None and (refusal := status.answerers.refusal(name, how=False)):
            return _after(self._tell, reply_to, f"Your answer cannot be taken: {refusal}")
        if kind == FORM:
            picked = clicked_answer(value, status.request) or InterruptResolution()
            targets = redirect_targets(status.origin, team_of(status.team))
            metadata = {"q": interrupt_id, **_where(message)}
            if reply_to:
                metadata["r"] = reply_to
            view = answer_view(status.request, interrupt_id, picked, targets, metadata)
            try:
                await self.api.open_view(str(payload.get("trigger_id", "")), view)
            except AgentWorkflowError as err:
                return _after(self._tell, reply_to, f"The answer form did not open: {err}")
            return Response(status_code=200)
        resolution = clicked_answer(value, status.request)
        if resolution is None:
            return _after(self._tell, reply_to, "This button carries no answer; use the inbox.")
        taken, said = await self._resolve(interrupt_id, resolution, name)
        if not taken:
            first = await self._status(interrupt_id)
            if not isinstance(first, str) and first.resolution is not None:  # another door won
                return _after(self._closed, first, message, reply_to, said)
            return _after(self._tell, reply_to, f"Your answer was not taken: {said}")
        return _after(self._answered, status, taken, message)

    async def _submission(self, payload: dict[str, Any]) -> Response:
        view = payload.get("view") if isinstance(payload.get("view"), dict) else {}
        assert isinstance(view, dict)
        metadata = _json_object(view.get("private_metadata"))
        interrupt_id = str(metadata.get("q", ""))
        status = await self._status(interrupt_id)
        if isinstance(status, str):
            return _form_error(status)
        if status.resolution is not None:
            return _form_error(f"Your answer was not taken: {await self._closed_sentence(status)}")
        state = view.get("state") if isinstance(view.get("state"), dict) else {}
        values = state.get("values") if isinstance(state, dict) else None
        try:
            resolution = submitted_answer(
                status.request, values if isinstance(values, dict) else {}
            )
        except ValidationError as err:
            return _form_error(f"Your answer was not taken: {describe_validation_error(err)}")
        name = await self._name(payload.get("user"))
        taken, said = await self._resolve(interrupt_id, resolution, name)
        message = _stored_message(metadata)
        if not taken:
            first = await self._status(interrupt_id)
            if not isinstance(first, str) and first.resolution is not None:  # another door won
                refused = _form_error(f"Your answer was not taken: {said}")
                refused.background = BackgroundTask(
                    self._answered, first, first.resolution, message
                )
                return refused
            return _form_error(f"Your answer was not taken: {said}")
        return _after(self._answered, status, taken, message)

    async def _status(self, interrupt_id: str) -> InterruptStatus | str:
        """The question, or why it cannot be answered here (one line)."""
        if not interrupt_id:
            return "This message names no question."
        try:
            return await self.agents.interrupt_status(interrupt_id, QUESTION_QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError) as err:
            closed = await self._answered_already(interrupt_id)
            return closed or f"The question {clip(interrupt_id, 80)} cannot be read now ({err})."

    async def _answered_already(self, interrupt_id: str) -> str | None:
        try:
            return await self.agents.answered_already(interrupt_id)
        except RPCError:
            return None

    async def _resolve(
        self, interrupt_id: str, resolution: InterruptResolution, name: str | None
    ) -> tuple[InterruptResolution | None, str]:
        """Answer through the SDK; (the answer as taken, the acknowledgement) or (None, why)."""
        if name is not None:
            resolution = resolution.model_copy(update={"answered_by": name})
        try:
            ack = await self.agents.resolve(interrupt_id, resolution, door=Door.SLACK)
        except ResolutionRejected as err:
            return None, str(err)
        except RPCError as err:
            return None, f"Temporal did not take it ({err.message}); try again"
        return resolution, ack.message

    async def _name(self, user: object) -> str | None:
        """The clicking person's name: ``SLACK_USERS``, their profile, their Slack user name."""
        if not isinstance(user, dict) or not isinstance(user.get("id"), str):
            return None
        user_id = user["id"]
        if user_id in self.settings.users:
            return self.settings.users[user_id]
        if user_id not in self.names:
            try:
                found = await self.api.user_name(user_id)
            except AgentWorkflowError as err:
                log.warning("Slack door: users.info of %s failed: %s", user_id, err)
                found = None
            given = found or user.get("username") or user.get("name") or user_id
            try:
                self.names[user_id] = checked_name(str(given), "the Slack profile name")
            except ValueError:
                self.names[user_id] = checked_name(user_id[:100], "the Slack user id")
        return self.names[user_id]

    def _links(self, interrupt_id: str) -> list[tuple[str, str]]:
        ui = workflow_page(self.ui_url, self.agents.client.namespace, interrupt_id)
        return slack_links(self.inbox_url, ui)

    async def _answered(
        self, status: InterruptStatus, resolution: InterruptResolution, message: SlackMessage | None
    ) -> None:
        """The message in place: who answered, what and when."""
        if message is None:
            return
        interrupt_id = status.workflow_id
        title = f"Answered: {status.origin} asked"
        blocks = answered_blocks(
            status.request,
            title,
            resolution,
            datetime.now(UTC),
            self._links(interrupt_id),
            f"`{mrkdwn(interrupt_id)}` · answered in Slack",
        )
        await self._retried(self.api.update, message, title, blocks)

    async def _closed(
        self,
        status: InterruptStatus,
        message: SlackMessage | None,
        reply_to: str | None,
        said: str | None = None,
    ) -> None:
        """A click on a question answered elsewhere: say so to the person (``said``: the
        refusal naming who was first), show it in place."""
        assert status.resolution is not None
        await self._tell(reply_to, f"Not taken: {said or await self._closed_sentence(status)}")
        await self._answered(status, status.resolution, message)

    async def _closed_sentence(self, status: InterruptStatus) -> str:
        answered = status.resolution
        closed = await self._answered_already(status.workflow_id)
        if closed is not None:
            return closed
        who = answered.answered_by if answered and answered.answered_by else "someone"
        return f"{status.workflow_id} is already answered, by {who}"

    async def _tell(self, reply_to: str | None, text: str) -> None:
        """A message only the clicking person sees."""
        if reply_to:
            await self._retried(self.api.respond, reply_to, clip(text, 2_900))

    async def _retried(self, call: Callable[..., Any], *args: Any) -> None:
        """``call`` with backoff (a 429's ``Retry-After``); a last failure is logged, not raised:
        the answer is already taken."""
        delay = 0.5
        for attempt in range(1, SLACK_DOOR_ATTEMPTS + 1):
            try:
                await call(*args)
                return
            except AgentWorkflowError as err:
                if not err.retryable or attempt == SLACK_DOOR_ATTEMPTS:
                    log.warning("Slack door: %s", err)
                    return
                wait = err.next_retry_delay or timedelta(seconds=delay)
                await asyncio.sleep(wait.total_seconds())
                delay *= 2


def _after(task: Callable[..., Any], *args: Any) -> Response:
    """Slack's 200 at once; ``task`` runs after the response is sent."""
    return Response(status_code=200, background=BackgroundTask(task, *args))


def _form_error(text: str) -> Response:
    """The modal stays open with ``text`` under its free-text field."""
    return JSONResponse({"response_action": "errors", "errors": {FREE: clip(text, 1_000)}})


def _refused(status: int, text: str) -> Response:
    return PlainTextResponse(text + "\n", status_code=status)


def _json_object(raw: object) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _message(payload: Mapping[str, Any]) -> SlackMessage | None:
    """The clicked message (channel and ts)."""
    container = payload.get("container") if isinstance(payload.get("container"), dict) else {}
    channel = payload.get("channel") if isinstance(payload.get("channel"), dict) else {}
    assert isinstance(container, dict) and isinstance(channel, dict)
    found = container.get("channel_id") or channel.get("id")
    ts = container.get("message_ts") or (payload.get("message") or {}).get("ts")
    try:
        return SlackMessage(channel=found, ts=ts) if found and ts else None
    except ValidationError:
        return None


def _where(message: SlackMessage | None) -> dict[str, str]:
    return {"ch": message.channel, "ts": message.ts} if message else {}


def _stored_message(metadata: Mapping[str, Any]) -> SlackMessage | None:
    try:
        return SlackMessage(channel=metadata["ch"], ts=metadata["ts"])
    except (KeyError, ValidationError):
        return None
