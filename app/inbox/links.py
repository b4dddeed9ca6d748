"""Signed answer links: ``GET /answer/TOKEN`` shows the question and the answer the link gives,
with one button; only that button's ``POST`` answers, as the link's addressee, through the SDK's
validated update (the same as every door).

A GET never answers (a link preview or a mail scanner fetches links). An expired, forged or
malformed token, a POST without the page's form key, a question already answered, and a question
the link's addressee may not answer (the answer rules) are each refused in one line on the page,
with no button, and nothing changes. The token is the credential: these two
routes need no inbox token (``access.Guard``), and a POST from another site is still refused.
"""

from __future__ import annotations

import hmac
from datetime import UTC, datetime
from urllib.parse import parse_qsl

from jinja2 import Environment
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from temporalio.client import WorkflowQueryFailedError
from temporalio.service import RPCError

from agent_interrupts.app.sdk import (
    QUESTION_QUERY_TIMEOUT,
    AgentWorkflowClient,
    ResolutionRejected,
    accepted,
    decisions,
)
from agent_interrupts.models.door_answers import from_door, link_resolution
from agent_interrupts.models.errors import describe_validation_error
from agent_interrupts.models.interrupt_flow import InterruptStatus
from agent_interrupts.models.interrupts import Door, InterruptResolution
from agent_interrupts.models.signing import Grant, TokenRefused, form_key, verify

DOOR = Door.LINK
MAX_FORM_BYTES = 4 * 1024
"""The confirming form holds one key."""


class AnswerLinks:
    """The handler of ``/answer/{token}``: GET shows, POST answers."""

    def __init__(
        self, agents: AgentWorkflowClient, secret: str | None, templates: Environment
    ) -> None:
        self.agents, self.secret, self.templates = agents, secret, templates

    async def handle(self, request: Request) -> Response:
        token = request.path_params["token"]
        if self.secret is None:
            return self._page(
                {"problem": "this inbox checks no links: start it with AGENTS_SIGNING_SECRET"},
                404,
            )
        try:
            grant = verify(self.secret, token, datetime.now(UTC))
        except TokenRefused as err:
            return self._page({"problem": str(err)}, 403)
        closed = await self._closed(grant.question)
        if closed is not None:
            return self._page({"problem": closed, "to": grant.to}, 409)
        status = await self._status(grant.question)
        if isinstance(status, str):
            return self._page({"problem": status}, 503)
        resolution = link_resolution(grant.answer, status.request)
        context: dict[str, object] = {
            "request": status.request,
            "origin": status.origin,
            "interrupt_id": grant.question,
            "to": grant.to,
            "token": token,
        }
        if resolution is None:
            problem = "the question was asked again without this answer: answer it in the inbox"
            return self._page({**context, "problem": problem}, 409)
        context["answer_lines"] = decisions(status.request, from_door(resolution, grant.to, DOOR))
        if status.answerers is not None and (
            refusal := status.answerers.refusal(grant.to, how=False)
        ):
            return self._page({**context, "problem": f"This link cannot answer: {refusal}"}, 403)
        if request.method != "POST":
            return self._page(
                {**context, "confirm": True, "form_key": form_key(self.secret, token)}
            )
        given = await _form_key(request)
        if given is None or not hmac.compare_digest(given, form_key(self.secret, token)):
            problem = "this answer did not come from this link's page: open the link again"
            return self._page({**context, "problem": problem}, 403)
        return await self._answer(grant, status, resolution, context)

    async def _answer(
        self,
        grant: Grant,
        status: InterruptStatus,
        resolution: InterruptResolution,
        context: dict[str, object],
    ) -> Response:
        try:
            signed = from_door(resolution, grant.to, DOOR)
            ack = await self.agents.resolve(grant.question, signed)
        except ValidationError as err:
            return self._page({**context, "problem": describe_validation_error(err)}, 422)
        except (ValueError, ResolutionRejected) as err:
            return self._page({**context, "problem": str(err)}, 409)
        except RPCError as err:
            return self._page({**context, "problem": f"Temporal said: {err.message}"}, 503)
        return self._page({**context, "taken": accepted(ack.message, status)})

    async def _closed(self, interrupt_id: str) -> str | None:
        """Who answered a closed question (the link is used up), else None."""
        try:
            return await self.agents.answered_already(interrupt_id)
        except RPCError as err:
            return f"{interrupt_id[:200]} cannot be answered: {err.message}"

    async def _status(self, interrupt_id: str) -> InterruptStatus | str:
        try:
            return await self.agents.interrupt_status(interrupt_id, QUESTION_QUERY_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError, ValueError) as err:
            return f"the question could not be read now ({err}); open the link again later"

    def _page(self, context: dict[str, object], status: int = 200) -> Response:
        page = self.templates.get_template("link.html").render(**{**_BLANK, **context})
        return HTMLResponse(page, status)


_BLANK: dict[str, object] = {
    "problem": None,
    "taken": None,
    "request": None,
    "answer_lines": [],
    "confirm": False,
    "to": "",
}


async def _form_key(request: Request) -> str | None:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    return dict(parse_qsl(body.decode(errors="replace"))).get("form")
