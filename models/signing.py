"""Signed answer tokens: who a notice was sent to may answer its question with one click or one
reply, and nobody else can make one up.

A token says which question (its interrupt id), which answer it stands for (``Grant.answer``:
``accept``, ``choice:ID:KEY``, ``confirm:ID:yes``, or ``reply`` for the email door), who it was
sent to and until when. It is the JSON of those four, base64url, a dot, and the base64url
HMAC-SHA256 of that text under ``AGENTS_SIGNING_SECRET``. The signature is checked in constant
time before anything in the token is read; a token signed for one question names that question
alone, so it never answers another. Pure: the secret and the time are given.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from agent_interrupts.models.errors import AgentWorkflowError

VERSION = 1
DOMAIN = b"agent-interrupts answer token v1."
"""Prefixed to what is signed: a signature made for something else never checks here."""
MIN_SECRET_CHARS = 32
MAX_TOKEN_CHARS = 2_048
"""A token longer than this is refused before it is decoded."""
SECRET_SETTING = "AGENTS_SIGNING_SECRET"
ACCEPT = "accept"
REPLY = "reply"


class TokenRefused(AgentWorkflowError, ValueError):
    """A token that is malformed, forged, or expired: it answers nothing."""


@dataclass(frozen=True)
class Grant:
    """What a valid token allows: ``to`` may give ``answer`` to ``question`` until ``expires``."""

    question: str
    answer: str
    to: str
    expires: datetime


def sign(secret: str, grant: Grant) -> str:
    """The token of ``grant``."""
    body = {
        "v": VERSION,
        "q": grant.question,
        "a": grant.answer,
        "to": grant.to,
        "exp": int(grant.expires.timestamp()),
    }
    text = _b64(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode())
    return f"{text}.{_b64(_mac(secret, text))}"


def verify(secret: str, token: str, now: datetime) -> Grant:
    """The grant ``token`` carries; TokenRefused (one line) when it is malformed, not signed
    with ``secret`` or past its expiry at ``now``."""
    if len(token) > MAX_TOKEN_CHARS or token.count(".") != 1:
        raise TokenRefused("this link is not one of ours (malformed); use a link from a notice")
    text, signature = token.split(".")
    try:
        given = _unb64(signature)
    except ValueError:
        given = b""
    if not hmac.compare_digest(given, _mac(secret, text)):
        raise TokenRefused(
            "this link's signature does not check (forged, altered, or signed with another "
            f"{SECRET_SETTING}); use a link from a notice"
        )
    try:
        body = json.loads(_unb64(text))
        grant = Grant(
            question=_text(body["q"]),
            answer=_text(body["a"]),
            to=_text(body["to"]),
            expires=datetime.fromtimestamp(int(body["exp"]), UTC),
        )
    except (ValueError, KeyError, TypeError, OverflowError):
        raise TokenRefused(
            "this link is not one of ours (unreadable); use a link from a notice"
        ) from None
    if body.get("v") != VERSION:
        raise TokenRefused("this link is of another version; use a link from a newer notice")
    if now >= grant.expires:
        raise TokenRefused(
            f"this link expired at {grant.expires:%Y-%m-%d %H:%M} UTC; answer in the inbox or "
            "with `agents resolve`"
        )
    return grant


def secret_problem(secret: str | None, door: str) -> str | None:
    """Why ``door`` cannot start with ``secret`` (one line naming the setting), else None."""
    if not secret:
        return f"{door} needs {SECRET_SETTING}: set it (the same value on workers and the inbox)"
    if len(secret) < MIN_SECRET_CHARS:
        return f"{SECRET_SETTING} must be at least {MIN_SECRET_CHARS} characters (a random one)"
    return None


def form_key(secret: str, token: str) -> str:
    """The value the confirming form of ``token`` carries back: only a page this inbox served
    for that token has it."""
    return _b64(hmac.new(secret.encode(), b"form." + token.encode(), hashlib.sha256).digest())


def _mac(secret: str, text: str) -> bytes:
    return hmac.new(secret.encode(), DOMAIN + text.encode(), hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def _text(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("not a text")
    return value
