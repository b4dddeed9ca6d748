"""A local OpenAI-compatible Chat Completions server for tests (stdlib only).

It listens on 127.0.0.1 on an ephemeral port, serves ``POST /v1/chat/completions``, records every
request (path, headers, JSON body) and answers from a script of replies played in order:

- ``"valid"``: the offline model's deterministic ``chat.completion``
  (``activities.offline_model.OfflineModel().completion``): its tool calls while tools are offered
  and it has some, else the answer for the requested ``json_schema``;
- ``"invalid"``: a ``chat.completion`` whose content is JSON that validates against no output
  model (it carries only an unknown field, ``INVALID_FIELD``);
- ``"huge"``: a ``"valid"`` reply with one text field padded past Temporal's 2 MiB payload limit;
- ``"hang"``: no answer until the server stops (clients see their own request timeout);
- ``"cut"``: the first half of the ``"valid"`` content, ``finish_reason`` "length" (a reply
  that reached the request's ``max_completion_tokens``);
- ``"context"``: HTTP 400 ``context_length_exceeded``, as OpenAI refuses a prompt too long;
- an HTTP status code such as ``"500"``, ``"429"`` or ``"401"``: an OpenAI-style error body with
  that status. Every error body echoes the key and the ``Authorization`` header it received, as a
  careless server might, so tests can check that no error text carries the key anywhere.

Every answer reports token usage derived from the request and the reply (``usage_for``), and the
server keeps each request's raw bytes and each reply's content, so tests can compare what a run
recorded and exported with exactly what the endpoint received and answered.

When the script is exhausted every request is answered ``then`` (``"valid"`` unless told:
``then="invalid"`` is a model that never writes a valid reply). ``hold(n)`` keeps the n-th
completion request waiting (``holding`` is set when it arrives) until ``release_hold()``;
``slow(seconds)`` makes every completion request take that long (a slow model).
Use it as a context manager::

    with ScriptedOpenAIServer(["500"]) as server:
        settings = LlmSettings(api_key="sk-...", base_url=server.base_url, model="m")
        ...
        assert server.replies == ["500", "valid", ...]

Each connection carries one request and is closed after the reply, and ``stop`` joins every
handler thread, so the server shuts down cleanly.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario, chat_completion

VALID = "valid"
INVALID = "invalid"
HUGE = "huge"
HANG = "hang"
CUT = "cut"
CONTEXT = "context"
HUGE_BYTES = 5 * 2**20 // 2
"""Padding of a ``"huge"`` reply: 2.5 MiB, over Temporal's 2 MiB payload limit."""
INVALID_FIELD = "notInAnyOutputSchema"
"""The only field of an ``"invalid"`` reply; every output model forbids unknown fields."""
INVALID_CONTENT = json.dumps({INVALID_FIELD: "this reply ignores the schema"})
"""The content of every ``"invalid"`` reply."""
COMPLETIONS_PATH = "/v1/chat/completions"

_ERRORS = {
    400: ("invalid_request_error", "bad_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "forbidden"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
}


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the server received it. Header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes = b""
    """The request body exactly as it arrived."""

    @property
    def schema_name(self) -> str:
        """``response_format.json_schema.name``, or "" when absent."""
        fmt = self.body.get("response_format") or {}
        return str((fmt.get("json_schema") or {}).get("name", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])


class ScriptedOpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1 that plays a script of replies and faults."""

    def __init__(
        self,
        script: Iterable[str] = (),
        scenario: OfflineScenario | None = None,
        pages: dict[str, dict[str, Any]] | None = None,
        then: str = VALID,
    ) -> None:
        self._then = then
        """The reply to every request once the script is exhausted."""
        self._pages = pages or {}
        """Other endpoints' JSON answers by path (``/props``, ``/api/show``): what a server of a
        given kind says about its model."""
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._script: deque[str] = deque()
        self._received: list[ReceivedRequest] = []
        self._replies: list[str] = []
        self._contents: dict[int, str] = {}
        self._model = OfflineModel(scenario)
        self._hold_at: int | None = None
        self.holding = threading.Event()
        """Set when the held request has arrived."""
        self._hold_released = threading.Event()
        self._delay = 0.0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.play(*script)

    # -- script and records -------------------------------------------------------------------

    def play(self, *replies: str) -> None:
        """Append replies to the script: "valid", "invalid", "huge", "hang" or an HTTP status."""
        for reply in replies:
            known = reply in (VALID, INVALID, HUGE, HANG, CUT, CONTEXT)
            if not known and not (reply.isdigit() and len(reply) == 3):
                raise ValueError(f"unknown scripted reply {reply!r}")
        with self._lock:
            self._script.extend(replies)

    def hold(self, n: int) -> None:
        """Keep the ``n``-th completion request (1-based) waiting until ``release_hold``."""
        self._hold_at = n

    def slow(self, seconds: float) -> None:
        """Answer every completion request ``seconds`` after it arrived (a slow model)."""
        self._delay = seconds

    def release_hold(self) -> None:
        self._hold_released.set()

    @property
    def received(self) -> list[ReceivedRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._received)

    @property
    def replies(self) -> list[str]:
        """What was played for each received request, in the same order as ``received``."""
        with self._lock:
            return list(self._replies)

    @property
    def contents(self) -> dict[int, str]:
        """The content of each chat.completion answered, by the index of its request."""
        with self._lock:
            return dict(self._contents)

    @property
    def completions(self) -> list[ReceivedRequest]:
        """The received requests to the chat completions endpoint."""
        return [r for r in self.received if r.path == COMPLETIONS_PATH]

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not running; use it as a context manager")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """What to give the openai SDK as ``base_url``."""
        return self.url + "/v1"

    def start(self) -> ScriptedOpenAIServer:
        if self._httpd is not None:
            raise RuntimeError("the server is already running")
        self._released.clear()
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-openai-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, thread = self._httpd, self._thread
        self._httpd = self._thread = None
        if httpd is None:
            return
        self._released.set()  # "hang" handlers give up, so the handler threads can be joined
        self._hold_released.set()
        httpd.shutdown()
        httpd.server_close()  # joins the handler threads (block_on_close)
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- request handling (called on handler threads) -----------------------------------------

    def _respond(self, request: ReceivedRequest) -> tuple[int, dict[str, Any]] | None:
        """The status and body to send, or None to close the connection without an answer."""
        if request.path in self._pages:
            with self._lock:
                self._received.append(request)
                self._replies.append("200")
            return 200, self._pages[request.path]
        if request.method != "POST" or request.path != COMPLETIONS_PATH:
            with self._lock:
                self._received.append(request)
                self._replies.append("404")
            return 404, _error(404, f"this server serves only POST {COMPLETIONS_PATH}")
        with self._lock:
            reply = self._script.popleft() if self._script else self._then
            index = len(self._received)
            self._received.append(request)
            self._replies.append(reply)
            held = sum(r.path == COMPLETIONS_PATH for r in self._received) == self._hold_at
        if held:
            self.holding.set()
            self._hold_released.wait()
        if self._delay:
            self._released.wait(self._delay)
        body = request.body
        model = str(body.get("model", ""))
        if reply == VALID:
            completion = self._model.completion(body)
            content = completion["choices"][0]["message"].get("content") or ""
            with self._lock:
                self._contents[index] = content
            return 200, {**completion, "usage": usage_for(request, content)}
        if reply in (HUGE, INVALID):
            fmt = body.get("response_format") or {}
            spec = fmt.get("json_schema") or {}
            content = self._model.answer(
                str(spec.get("name", "")), spec.get("schema") or {}, request.messages
            )
            content = {HUGE: _padded(content), INVALID: INVALID_CONTENT}[reply]
            with self._lock:
                self._contents[index] = content
            return 200, {**chat_completion(model, content), "usage": usage_for(request, content)}
        if reply == CUT:
            completion = self._model.completion(body)
            whole = completion["choices"][0]["message"].get("content") or ""
            content = whole[: len(whole) // 2]
            with self._lock:
                self._contents[index] = content
            cut = chat_completion(model, content)
            cut["choices"][0]["finish_reason"] = "length"
            return 200, {**cut, "usage": usage_for(request, content)}
        if reply == CONTEXT:
            error = _error(400, "This model's maximum context length is 8192 tokens")
            error["error"]["code"] = "context_length_exceeded"
            return 400, error
        if reply == HANG:
            self._released.wait()
            return None
        status = int(reply)
        header = request.headers.get("authorization", "")
        token = header.removeprefix("Bearer ")
        echo = f"key {token} (Authorization: {header})"
        return status, _error(status, f"scripted failure: HTTP {status} for {echo}")


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    owner: ScriptedOpenAIServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    timeout = 10  # a client that connects and sends nothing cannot hold shutdown forever

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        request = ReceivedRequest(
            method=self.command,
            path=self.path.split("?", 1)[0],
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body if isinstance(body, dict) else {"_body": body},
            raw=raw,
        )
        answer = self.server.owner._respond(request)
        if answer is None:
            self.close_connection = True
            return
        status, payload = answer
        data = json.dumps(payload).encode()
        with contextlib.suppress(OSError):  # the client gave up (its timeout) before the reply
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the records are on the server object."""


def usage_for(request: ReceivedRequest, content: str) -> dict[str, int]:
    """Token usage as this server reports it: one token per 4 bytes of request and reply."""
    prompt, completion = len(request.raw) // 4, len(content.encode()) // 4
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _padded(content: str) -> str:
    """``content`` with its first text value grown by HUGE_BYTES: still valid, far too large."""
    value = json.loads(content)

    def grow(node: Any) -> bool:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in items:
            if isinstance(item, str):
                node[key] = item + " and more" * (HUGE_BYTES // 9)
                return True
            if isinstance(item, dict | list) and grow(item):
                return True
        return False

    grow(value)
    return json.dumps(value)


def _error(status: int, message: str) -> dict[str, Any]:
    kind, code = _ERRORS.get(status, ("server_error", None))
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
