"""A Slack-shaped server for the Slack door's tests and bench, and Slack's side of a click.

``FakeSlack`` is a real starlette app under uvicorn on 127.0.0.1 (a thread of its own, so it is
independent of the test's event loop). It answers the Web API methods the bot calls as Slack does
(https://api.slack.com/methods): ``POST /api/chat.postMessage`` and ``/api/chat.update`` (JSON
body; reply ``{"ok": true, "channel", "ts"}``), ``/api/views.open`` (JSON body with
``trigger_id`` and ``view``), ``/api/apps.connections.open`` (the app-level token; reply
``{"ok": true, "url"}``: Socket Mode's websocket, ``socket_url``), ``/api/users.info`` (form
or query ``user``; reply
``{"ok": true, "user": {"profile": {"real_name"}}}``), and a click's ``response_url``
(``POST /respond/<n>``, JSON). ``statuses`` scripts the first replies of a method (500, or 429
with ``Retry-After: 1``) before it answers 200.

``signed_post`` is Slack's side of an interaction: the payload JSON form-encoded as
``payload=...``, ``X-Slack-Request-Timestamp`` and ``X-Slack-Signature`` = ``v0=`` + hex
HMAC-SHA256 of ``v0:<timestamp>:<body>`` with the signing secret
(https://api.slack.com/authentication/verifying-requests-from-slack). ``block_actions`` and
``view_submission`` build the payloads Slack sends for a button click and a modal's submission
(https://api.slack.com/reference/interaction-payloads).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.cli.support import free_port
from tests.support.slack_socket import APP_TOKEN

SIGNING_SECRET = "slack-signing-DISTINCTIVE-8e1f37"
BOT_TOKEN = "xoxb-slack-bot-DISTINCTIVE-5d20c4"
CHANNEL = "C0AGENTS"
USER = {"id": "U0ADA", "username": "ada.l", "name": "ada.l", "team_id": "T0TEAM"}
PROFILE_NAME = "Ada Lovelace"


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    status: int
    at: float


@dataclass
class FakeSlack:
    statuses: Mapping[str, Sequence[int]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    socket_url: str | None = None
    """What ``apps.connections.open`` gives the app-level token ``APP_TOKEN`` (Socket Mode,
    ``tests/support/slack_socket.py``); None: Socket Mode is off."""

    def __post_init__(self) -> None:
        self._scripted = {k: list(v) for k, v in self.statuses.items()}
        self._ts = itertools.count(1)
        self._lock = threading.Lock()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        app = Starlette(
            routes=[
                Route("/api/{method}", self._api, methods=["GET", "POST"]),
                Route("/respond/{n}", self._respond, methods=["POST"]),
            ]
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self._server = uvicorn.Server(config)

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/"

    def response_url(self) -> str:
        return f"{self.url}/respond/{next(self._ts)}"

    def of(self, method: str) -> list[Call]:
        """The calls of ``method`` that Slack took (2xx), in order."""
        with self._lock:
            return [c for c in self.calls if c.method == method and c.status < 300]

    def _status(self, method: str) -> int:
        with self._lock:
            scripted = self._scripted.get(method) or []
            return scripted.pop(0) if scripted else 200

    def _record(self, method: str, args: dict[str, Any], status: int) -> None:
        with self._lock:
            self.calls.append(Call(method, args, status, time.time()))

    async def _api(self, request: Request) -> Response:
        method = request.path_params["method"]
        body = await request.body()
        args: dict[str, Any] = dict(request.query_params)
        if request.headers.get("content-type", "").startswith("application/json"):
            args.update(json.loads(body or b"{}"))
        else:
            args.update(parse_qsl(body.decode()))
        if method == "apps.connections.open":
            self._record(method, args, 200)
            if self.socket_url and request.headers.get("authorization") == f"Bearer {APP_TOKEN}":
                return JSONResponse({"ok": True, "url": self.socket_url})
            return JSONResponse({"ok": False, "error": "invalid_auth"})
        if request.headers.get("authorization") != f"Bearer {BOT_TOKEN}":
            self._record(method, args, 200)
            return JSONResponse({"ok": False, "error": "invalid_auth"})
        status = self._status(method)
        self._record(method, args, status)
        if status == 429:
            return JSONResponse(
                {"ok": False, "error": "ratelimited"}, 429, headers={"Retry-After": "1"}
            )
        if status >= 400:
            return Response("upstream trouble", status)
        match method:
            case "chat.postMessage":
                ts = f"{int(time.time())}.{next(self._ts):06d}"
                args["_ts"] = ts  # the recorded call keeps the ts Slack gave it
                return JSONResponse({"ok": True, "channel": args["channel"], "ts": ts})
            case "chat.update":
                return JSONResponse({"ok": True, "channel": args["channel"], "ts": args["ts"]})
            case "users.info":
                profile = {"real_name": PROFILE_NAME, "display_name": "ada"}
                return JSONResponse({"ok": True, "user": {"id": args["user"], "profile": profile}})
            case "views.open":
                return JSONResponse({"ok": True, "view": {"id": "V0VIEW", **args["view"]}})
        return JSONResponse({"ok": False, "error": "unknown_method"})

    async def _respond(self, request: Request) -> Response:
        self._record("response_url", json.loads(await request.body()), 200)
        return Response("ok")

    @contextmanager
    def running(self) -> Iterator[FakeSlack]:
        thread = threading.Thread(target=self._server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            assert time.monotonic() < deadline, "the fake Slack did not start"
            time.sleep(0.02)
        try:
            yield self
        finally:
            self._server.should_exit = True
            thread.join(10)


def signature(secret: str, timestamp: str, body: bytes) -> str:
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signed(
    payload: Mapping[str, Any], *, secret: str = SIGNING_SECRET, at: float | None = None
) -> tuple[bytes, dict[str, str]]:
    """The body and headers Slack sends for ``payload``."""
    body = urlencode({"payload": json.dumps(payload)}).encode()
    timestamp = str(int(time.time() if at is None else at))
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": signature(secret, timestamp, body),
    }
    return body, headers


async def signed_post(
    http: httpx.AsyncClient, payload: Mapping[str, Any], **kw: Any
) -> httpx.Response:
    body, headers = signed(payload, **kw)
    return await http.post("/slack/actions", content=body, headers=headers)


def buttons(blocks: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """A message's buttons by their text."""
    found = {}
    for block in blocks:
        for element in block.get("elements", []) if block.get("type") == "actions" else []:
            if element.get("type") == "button":
                found[element["text"]["text"]] = element
    return found


def block_actions(
    message: Call, button: Mapping[str, Any], response_url: str, user: Mapping[str, str] = USER
) -> dict[str, Any]:
    """The payload of a click on ``button`` of the posted ``message`` (a chat.postMessage)."""
    ts = message_ts(message)
    return {
        "type": "block_actions",
        "user": dict(user),
        "api_app_id": "A0APP",
        "token": "verification-token-unused",
        "container": {
            "type": "message",
            "message_ts": ts,
            "channel_id": CHANNEL,
            "is_ephemeral": False,
        },
        "trigger_id": f"trigger-{ts}",
        "team": {"id": "T0TEAM", "domain": "agents"},
        "channel": {"id": CHANNEL, "name": "agents"},
        "message": {"type": "message", "ts": ts, "text": message.args["text"]},
        "response_url": response_url,
        "actions": [
            {
                "type": "button",
                "block_id": "b",
                "action_id": button["action_id"],
                "text": button["text"],
                "value": button.get("value", ""),
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }


def view_submission(view: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The payload of submitting the modal ``view`` (as views.open got it) with ``values``
    (``view.state.values``: block id -> action id -> the element's state)."""
    return {
        "type": "view_submission",
        "team": {"id": "T0TEAM", "domain": "agents"},
        "user": dict(USER),
        "api_app_id": "A0APP",
        "view": {
            "id": "V0VIEW",
            "type": "modal",
            "callback_id": view["callback_id"],
            "private_metadata": view["private_metadata"],
            "state": {"values": values},
            "hash": "1700000000.abcdef",
        },
    }


def message_ts(message: Call) -> str:
    """The ts chat.postMessage gave ``message``: read back from the fake's reply."""
    return str(message.args["_ts"])


async def until(predicate: Any, timeout: float = 60) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)
