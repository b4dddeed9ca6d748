"""Real receivers on 127.0.0.1 for notification tests and the bench: HTTP and SMTP."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword

from tests.cli.support import free_port


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float
    """``time.time()`` when it arrived."""

    def json(self) -> Any:
        return json.loads(self.body)


class HttpReceiver:
    """Records every POST; answers the scripted statuses first, then 200. ``hang``: never answers;
    ``reply_delay``: seconds between choosing a status (a delivery counts from then) and sending it.

    A real ``ThreadingHTTPServer`` in a thread, so it is independent of the test's event loop.
    """

    def __init__(
        self, statuses: Sequence[int] = (), *, hang: bool = False, reply_delay: float = 0.0
    ) -> None:
        self.requests: list[Received] = []
        self.answered: list[int] = []
        self._statuses = list(statuses)
        self._hang = hang
        self._stop = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver._record(Received(self.path, dict(self.headers), body, time.time()))
                if receiver._hang:
                    receiver._stop.wait()
                    return
                status = receiver._next_status()
                time.sleep(reply_delay)
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status < 400 else b"receiver says no")

            def log_message(self, *args: Any) -> None:
                """Quiet: the test reads ``requests`` instead."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def _record(self, received: Received) -> None:
        with self._lock:
            self.requests.append(received)

    def _next_status(self) -> int:
        with self._lock:
            status = self._statuses.pop(0) if self._statuses else 200
            self.answered.append(status)
            return status

    def delivered(self, path: str | None = None) -> list[Received]:
        """Requests answered 2xx, in order (a hanging receiver delivers none)."""
        with self._lock:
            pairs = list(zip(self.requests, self.answered, strict=False))
        return [r for r, s in pairs if s < 300 and (path is None or r.path == path)]

    @contextmanager
    def running(self) -> Iterator[HttpReceiver]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._server.shutdown()
            self._server.server_close()


class SmtpReceiver:
    """An aiosmtpd server on 127.0.0.1 that takes a login (``user``/``password``) and keeps
    every message."""

    def __init__(self, user: str = "notifier", password: str = "smtp-password") -> None:
        self.messages: list[Message] = []
        self.user, self.password = user, password
        self._controller = Controller(
            self,
            hostname="127.0.0.1",
            port=free_port(),
            authenticator=self._authenticate,
            auth_require_tls=False,
        )

    def _authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any):
        ok = isinstance(data, LoginPassword) and data == LoginPassword(
            self.user.encode(), self.password.encode()
        )
        return AuthResult(success=ok, handled=False)

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"

    @contextmanager
    def running(self) -> Iterator[SmtpReceiver]:
        self._controller.start()
        try:
            yield self
        finally:
            self._controller.stop()

    def url(self, password: str | None = None) -> str:
        secret = self.password if password is None else password
        return f"smtp://{self.user}:{secret}@127.0.0.1:{self._controller.port}"


async def until(check: Callable[[], bool], timeout: float = 30) -> None:
    """Poll ``check`` until it holds (the receivers run in other threads)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)
