"""Who may use the inbox: the token off loopback, the inbox's own Host names on loopback, and no
state-changing request from another site. A signed answer link's page (``/answer/TOKEN``) needs
neither the token nor a Host name of the inbox: its token is its credential (``links.py``).
Every response carries headers that keep what a model wrote from running as code and keep the
token out of referrers.

Who is answering: the name of the request's token (``NAME=TOKEN``), or the header an
authenticating proxy sets (``AGENTS_INBOX_USER_HEADER``, trusted only when set), else the inbox's
own person (``AGENTS_USER`` or the login name). It is kept in ``request.state.person`` for the
answer to carry (``answeredBy``)."""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp

from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.people import checked_name

COOKIE = "agents_inbox_token"
LINK_PATH = "/answer/"
"""A signed answer link's page (``links.py``): its token is its credential."""
LINK_STYLE = "/static/inbox.css"
LOCAL_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAME_SITE = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of a request the inbox's own page (or the person) made."""
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Guard(BaseHTTPMiddleware):
    """Refuses, in one line, a request without the token, for a foreign Host, or cross-site."""

    def __init__(self, app: ASGIApp, settings: InboxSettings) -> None:
        super().__init__(app)
        self.settings = settings

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if _is_link(request):  # the link names its addressee; the inbox's people play no part
            response = self._refusal(request) or await call_next(request)
        else:
            response = (
                self._login(request)
                or self._refusal(request)
                or self._unnamed(request)
                or await call_next(request)
            )
        response.headers.update(HEADERS)
        return response

    def _login(self, request: Request) -> Response | None:
        """``?token=`` of the link ``agents inbox`` printed: a cookie, then the page without it."""
        given = request.query_params.get("token")
        if not self.settings.needs_token or given is None:
            return None
        if not self._known(given):
            return _refused(
                401, "wrong token: open the link `agents inbox` printed, with your token"
            )
        response = RedirectResponse(request.url.path, status_code=303)
        response.set_cookie(COOKIE, given, httponly=True, samesite="strict")
        return response

    def _known(self, given: str | None) -> bool:
        """Whether ``given`` is the inbox's token or one of its named tokens."""
        return self._holder(given) is not None

    def _holder(self, given: str | None) -> tuple[str | None] | None:
        """``(name,)`` of the named token ``given``, ``(None,)`` for the plain token, None for
        no token of this inbox. Every token is compared, in constant time."""
        found: tuple[str | None] | None = None
        if self.settings.token is not None and _same(given, self.settings.token):
            found = (None,)
        for token, name in self.settings.people.items():
            if _same(given, token):
                found = (name,)
        return found

    def _unnamed(self, request: Request) -> Response | None:
        """Name the person answering (``request.state.person``); refuse a request without the
        proxy's header when the inbox is told to trust one."""
        header = self.settings.user_header
        if header is not None:
            given = request.headers.get(header)
            if given is None:
                return _refused(
                    401,
                    f"refused: no {header} header (this inbox takes people's "
                    "names from the proxy in front of it)",
                )
            try:
                request.state.person = checked_name(given, f"the {header} header")
            except ValueError as err:
                return _refused(400, f"refused: {err}")
            return None
        holder = self._holder(request.cookies.get(COOKIE)) or self._holder(_bearer(request))
        request.state.person = (holder[0] if holder else None) or self.settings.person
        return None

    def _refusal(self, request: Request) -> Response | None:
        if _is_link(request):  # signed: no inbox token, any Host name
            pass
        elif not self.settings.needs_token:
            host = urlsplit(f"//{request.headers.get('host', '')}").hostname or ""
            bound = self.settings.host
            if host not in LOCAL_NAMES | {bound}:  # another name resolving here (DNS rebinding)
                shown = f"[{bound}]" if ":" in bound else bound
                return _refused(
                    403, f"this inbox answers at http://{shown}:{self.settings.port}/ only"
                )
        elif not (self._known(request.cookies.get(COOKIE)) or self._known(_bearer(request))):
            return _refused(
                401, "this inbox needs its token: open the link `agents inbox` printed (?token=)"
            )
        if request.method not in SAFE_METHODS and cross_site(request):
            return _refused(403, "refused: a request from another site may not answer questions")
        return None


def vouched_for(request: Request, settings: InboxSettings) -> bool:
    """Whether ``request`` carries one of the inbox's tokens (its cookie or a Bearer header), or
    the trusted proxy's header when the inbox takes names from one. An inbox with neither
    vouches for nobody (the codec server decodes for a token holder only)."""
    if settings.user_header is not None:
        return bool(request.headers.get(settings.user_header))
    tokens = [t for t in (settings.token, *settings.people) if t is not None]
    given = [request.cookies.get(COOKIE), _bearer(request)]
    return any(_same(g, t) for g in given for t in tokens)


def cross_site(request: Request) -> bool:
    """Whether the browser says the request comes from another site (Sec-Fetch-Site, Origin)."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in SAME_SITE:
        return True
    origin = request.headers.get("origin")
    if origin == "null" and fetch_site == "same-origin":  # a form under no-referrer: the
        return False  # browser withholds the origin; Sec-Fetch-Site, which pages cannot set, says
    return origin is not None and urlsplit(origin).netloc != request.headers.get("host")


def _is_link(request: Request) -> bool:
    """A signed link's page, or the style sheet it uses."""
    return request.url.path.startswith(LINK_PATH) or request.url.path == LINK_STYLE


def _bearer(request: Request) -> str | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value if scheme.lower() == "bearer" else None


def _same(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def _refused(status: int, message: str) -> Response:
    return PlainTextResponse(message + "\n", status_code=status)
