"""The codec server: Temporal's codec server contract (``POST /encode``, ``POST /decode``, each
also under the namespace, ``/{namespace}/decode``), so the Web UI and ``temporal workflow show
--codec-endpoint`` show the payloads the workers encrypted, to the holders of an inbox token.

Served by ``agents inbox`` (beside its pages) and by ``agents codec`` alone. A request without
one of the inbox's tokens (its cookie, ``Authorization: Bearer``) or, behind an authenticating
proxy, its header (``AGENTS_INBOX_USER_HEADER``) gets a 401 and nothing decodes; an inbox without
any token decodes for nobody. The Web UI calls from its own origin: the UI's origin (the local
stack's UI, or ``TEMPORAL_UI_URL``) gets the CORS headers it needs, credentials included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from temporalio.api.common.v1 import Payload, Payloads

from agent_interrupts.app.codec import EncryptionCodec
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.inbox.access import HEADERS, vouched_for
from agent_interrupts.models.errors import PayloadKeyError
from agent_interrupts.models.limits import CODEC_BODY_BYTES

Code = Callable[[Sequence[Payload]], list[Payload]]
ALLOWED_HEADERS = "Content-Type, X-Namespace, Authorization"
"""What the Web UI and the CLI send: the JSON, the namespace, the token."""


class CodecServer:
    """``/encode`` and ``/decode`` for ``namespace`` with ``codec``'s keys, for the holders of
    ``settings``' tokens; ``ui_origins``: the origins whose pages may call it (CORS)."""

    def __init__(
        self,
        codec: EncryptionCodec,
        settings: InboxSettings,
        namespace: str,
        ui_origins: frozenset[str] = frozenset(),
    ) -> None:
        self.codec = codec
        self.settings = settings
        self.namespace = namespace
        self.ui_origins = ui_origins

    def routes(self) -> list[Route]:
        routes = []
        for prefix in ("", f"/{self.namespace}"):
            routes.append(Route(f"{prefix}/decode", self.decode, methods=["POST", "OPTIONS"]))
            routes.append(Route(f"{prefix}/encode", self.encode, methods=["POST", "OPTIONS"]))
        return routes

    async def decode(self, request: Request) -> Response:
        return await self._coded(request, self.codec.decode_now)

    async def encode(self, request: Request) -> Response:
        return await self._coded(request, self.codec.encode_now)

    async def _coded(self, request: Request, code: Code) -> Response:
        if request.method == "OPTIONS":  # the browser's preflight: no credentials in it
            return self._cors(request, Response(status_code=204))
        return self._cors(request, await self._answer(request, code))

    async def _answer(self, request: Request, code: Code) -> Response:
        if not vouched_for(request, self.settings):
            if not (self.settings.needs_token or self.settings.user_header):
                return _refused(
                    401,
                    "this codec server has no token, so it decodes for nobody: start it with "
                    "--token (or AGENTS_INBOX_TOKEN)",
                )
            return _refused(
                401,
                "the codec server needs an inbox token: send Authorization: Bearer TOKEN "
                "(temporal --codec-auth 'Bearer TOKEN'), or open the inbox's link first",
            )
        asked = request.headers.get("x-namespace")
        if asked and asked != self.namespace:
            return _refused(404, f"this codec server serves namespace {self.namespace!r} only")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > CODEC_BODY_BYTES:
                return _refused(413, f"the request is over {CODEC_BODY_BYTES} bytes: ask for less")
        payloads = Payloads()
        try:
            json_format.Parse(body or b"{}", payloads)
        except json_format.ParseError:
            return _refused(400, 'send JSON: {"payloads": [{"metadata": {...}, "data": "..."}]}')
        try:
            done = code(payloads.payloads)
        except PayloadKeyError as err:
            return _refused(400, str(err))
        return Response(
            json_format.MessageToJson(Payloads(payloads=done), indent=None),
            media_type="application/json",
        )

    def _cors(self, request: Request, response: Response) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and origin in self.ui_origins:
            response.headers.update(
                {
                    "Access-Control-Allow-Origin": origin,
                    "Access-Control-Allow-Credentials": "true",
                    "Access-Control-Allow-Methods": "POST, OPTIONS",
                    "Access-Control-Allow-Headers": ALLOWED_HEADERS,
                    "Access-Control-Max-Age": "600",
                    "Vary": "Origin",
                }
            )
        response.headers.update(
            {k: v for k, v in HEADERS.items() if k != "Content-Security-Policy"}
        )
        return response


def ui_origins(*urls: str | None) -> frozenset[str]:
    """The origins of the Web UI's addresses (the loopback ones under both names)."""
    found = set()
    for url in urls:
        if not url:
            continue
        parts = urlsplit(url)
        if not parts.scheme or not parts.netloc:
            continue
        found.add(f"{parts.scheme}://{parts.netloc}")
        for local, other in (("127.0.0.1", "localhost"), ("localhost", "127.0.0.1")):
            if parts.hostname == local:
                found.add(f"{parts.scheme}://{parts.netloc.replace(local, other, 1)}")
    return frozenset(found)


def codec_app(server: CodecServer) -> Starlette:
    """The codec server alone (``agents codec``)."""
    return Starlette(routes=server.routes())


def _refused(status: int, message: str) -> Response:
    return PlainTextResponse(message + "\n", status_code=status)
