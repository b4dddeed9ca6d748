"""Slack's side of Socket Mode for the Slack door's tests: a real websocket server on 127.0.0.1.

Slack's protocol (https://api.slack.com/apis/socket-mode): the app calls
``apps.connections.open`` with its app-level token and gets a ``wss://`` URL (``FakeSlack``
answers with this server's ``ws://`` one); on connecting, Slack sends ``{"type": "hello"}``; then
each interaction as an envelope, ``{"envelope_id", "type": "interactive", "payload",
"accepts_response_payload": true}``, which the app acknowledges with ``{"envelope_id",
"payload"?}`` within 3 s. The websocket (RFC 6455) is written here with the standard library:
the opening handshake (``Sec-WebSocket-Accept``), text, ping/pong and close frames, the client's
frames masked, the server's not.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from tests.cli.support import free_port

APP_TOKEN = "xapp-1-socket-mode-DISTINCTIVE-3f9a1c"
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class FakeSocketMode:
    """Accepts the app's websocket connections; ``send`` an interaction, read ``acks``."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/link/?ticket=test"
        self.acks: dict[str, dict[str, Any]] = {}
        self.connections = 0
        self._client: socket.socket | None = None
        self._lock = threading.Lock()
        self._closing = False
        self._listener = socket.create_server(("127.0.0.1", self.port))

    def send(self, payload: Mapping[str, Any], kind: str = "interactive") -> str:
        """Send ``payload`` as an envelope of ``kind`` to the connected app; its envelope id."""
        envelope_id = str(uuid.uuid4())
        message = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": dict(payload),
            "accepts_response_payload": kind == "interactive",
        }
        self._send(TEXT, json.dumps(message).encode())
        return envelope_id

    def connected(self) -> bool:
        return self._client is not None

    def _send(self, opcode: int, data: bytes) -> None:
        with self._lock:
            assert self._client is not None, "no app is connected"
            self._client.sendall(_frame(opcode, data))

    def _serve(self) -> None:
        self._listener.settimeout(0.1)  # a closed listener does not wake a blocked accept
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            threading.Thread(target=self._connection, args=(client,), daemon=True).start()

    def _connection(self, client: socket.socket) -> None:
        reader = client.makefile("rb")
        try:
            request = b""
            while not request.endswith(b"\r\n\r\n"):
                line = reader.readline()
                if not line:
                    return
                request += line
            key = next(
                line.split(b":", 1)[1].strip().decode()
                for line in request.split(b"\r\n")
                if line.lower().startswith(b"sec-websocket-key:")
            )
            accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
            client.sendall(
                b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept.encode() + b"\r\n\r\n"
            )
            with self._lock:
                self._client = client
                self.connections += 1
            self._send(TEXT, json.dumps({"type": "hello", "num_connections": 1}).encode())
            while True:
                opcode, data = _read_frame(reader)
                if opcode == PING:
                    self._send(PONG, data)
                elif opcode == TEXT:
                    ack = json.loads(data)
                    if "envelope_id" in ack:
                        self.acks[ack["envelope_id"]] = ack
                elif opcode == CLOSE:
                    return
        except (OSError, ValueError, StopIteration):
            return
        finally:
            with self._lock:
                if self._client is client:
                    self._client = None
            client.close()

    @contextmanager
    def running(self) -> Iterator[FakeSocketMode]:
        thread = threading.Thread(target=self._serve, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._closing = True
            self._listener.close()
            with self._lock:
                if self._client is not None:
                    self._client.close()
            thread.join(10)

    def ack(self, envelope_id: str, timeout: float = 30) -> dict[str, Any]:
        """The app's acknowledgement of ``envelope_id`` (waiting for it)."""
        deadline = time.monotonic() + timeout
        while envelope_id not in self.acks:
            assert time.monotonic() < deadline, f"no acknowledgement of {envelope_id}"
            time.sleep(0.02)
        return self.acks[envelope_id]


def _frame(opcode: int, data: bytes) -> bytes:
    """A server's frame: final, unmasked."""
    head = bytes([0x80 | opcode])
    if len(data) < 126:
        return head + bytes([len(data)]) + data
    if len(data) < 1 << 16:
        return head + bytes([126]) + struct.pack("!H", len(data)) + data
    return head + bytes([127]) + struct.pack("!Q", len(data)) + data


def _read_frame(reader: Any) -> tuple[int, bytes]:
    """A client's frame (masked), unmasked; fragments joined."""
    opcode, payload = 0, b""
    while True:
        first, second = _exactly(reader, 2)
        opcode = opcode or first & 0x0F
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", _exactly(reader, 2))[0]
        elif length == 127:
            length = struct.unpack("!Q", _exactly(reader, 8))[0]
        mask = _exactly(reader, 4) if second & 0x80 else b"\0\0\0\0"
        data = _exactly(reader, length)
        payload += bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        if first & 0x80:
            return opcode, payload


def _exactly(reader: Any, n: int) -> bytes:
    data = reader.read(n)
    if len(data) < n:
        raise OSError("the app closed the connection")
    return bytes(data)
