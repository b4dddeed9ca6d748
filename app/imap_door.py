"""The email door's second way in: ``agents inbox`` polls an IMAP mailbox for replies to notices.

Where no SMTP server of ours can be reached from outside, the notices' Reply-To is a mailbox at
any mail provider, and this poller reads it (``AGENTS_IMAP_*``) with the standard library's
``imaplib``, in a thread off the event loop. Every unseen message is handled by the same
``MailDoor.receive`` as a reply the SMTP door takes (token, sender, answer rules, the reply
email), then marked ``\\Seen``, so no reply is answered twice: a message is read with
``BODY.PEEK[]`` (which leaves it unseen) and marked only once handled; one whose mark failed is
remembered and not handled again by this process. A failed poll (the server down, a refused
login) is logged in one line without the password and tried again with backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.policy
import imaplib
import logging
import re
import ssl
from collections.abc import Awaitable, Callable
from email import message_from_bytes
from typing import Any

from agent_interrupts.activities.redaction import add_secret, install_log_redaction, redact
from agent_interrupts.app.config import ImapSettings
from agent_interrupts.app.mail_door import MailDoor
from agent_interrupts.models.limits import clip
from agent_interrupts.models.policies import (
    IMAP_MESSAGES_PER_POLL,
    IMAP_RETRY_FIRST,
    IMAP_RETRY_MAX,
    IMAP_SESSION_TIMEOUT,
    MAIL_REPLY_BYTES,
)

RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "To", "Cc")
"""Where a polled message says whom it was sent to (a reply token may be in a ``+TOKEN@``)."""
_SIZE = re.compile(r"RFC822\.SIZE (\d+)")

log = logging.getLogger("agents.mail.imap")


class ImapDoor:
    """Polls one mailbox: ``run`` forever (until cancelled), ``poll`` once."""

    def __init__(
        self,
        door: MailDoor,
        settings: ImapSettings,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        add_secret(settings.password)
        install_log_redaction(("agents.mail",))
        self.door, self.settings, self._sleep = door, settings, sleep
        self._handled: set[tuple[str, str]] = set()
        """(UIDVALIDITY, UID) of messages handled whose ``\\Seen`` mark failed."""
        self.failures = 0

    async def run(self) -> None:
        """Poll every ``seconds``; after a failure, again after a doubling delay."""
        while True:
            try:
                await self.poll()
            except (OSError, imaplib.IMAP4.error, ValueError) as err:
                self.failures += 1
                delay = min(
                    IMAP_RETRY_FIRST.total_seconds() * 2 ** (self.failures - 1),
                    IMAP_RETRY_MAX.total_seconds(),
                )
                log.warning(
                    "the email door could not read %s: %s; trying again in %.0f s",
                    self.settings.where,
                    clip(redact(" ".join(str(err).split()) or type(err).__name__), 300),
                    delay,
                )
                await self._sleep(delay)
                continue
            self.failures = 0
            await self._sleep(self.settings.seconds)

    async def poll(self) -> int:
        """Handle the mailbox's unseen messages (at most IMAP_MESSAGES_PER_POLL); how many."""
        imap = await asyncio.to_thread(self._open)
        try:
            validity, uids = await asyncio.to_thread(self._unseen, imap)
            self._handled = {seen for seen in self._handled if seen[0] == validity}
            handled = 0
            for uid in uids[:IMAP_MESSAGES_PER_POLL]:
                if (validity, uid) not in self._handled:
                    raw = await asyncio.to_thread(self._fetch, imap, uid)
                    if raw is None:
                        log.warning(
                            "the email door skipped message %s of %s: larger than %d bytes",
                            uid,
                            self.settings.where,
                            MAIL_REPLY_BYTES,
                        )
                    else:
                        await self.door.receive(raw, _recipients(raw))
                    self._handled.add((validity, uid))
                    handled += 1
                await asyncio.to_thread(self._mark_seen, imap, uid)
                self._handled.discard((validity, uid))
            return handled
        finally:
            await asyncio.to_thread(_close, imap)

    def _open(self) -> imaplib.IMAP4:
        settings = self.settings
        timeout = IMAP_SESSION_TIMEOUT.total_seconds()
        imap: imaplib.IMAP4
        if settings.security == "ssl":
            context = ssl.create_default_context()
            imap = imaplib.IMAP4_SSL(
                settings.host, settings.port, ssl_context=context, timeout=timeout
            )
        else:
            imap = imaplib.IMAP4(settings.host, settings.port, timeout=timeout)
        try:
            if settings.security == "starttls":
                imap.starttls(ssl.create_default_context())
            imap.login(settings.user, settings.password)
            _ok(imap.select(_quoted(settings.mailbox)), f"select {settings.mailbox}")
        except BaseException:
            _close(imap)
            raise
        return imap

    def _unseen(self, imap: imaplib.IMAP4) -> tuple[str, list[str]]:
        """The mailbox's UIDVALIDITY and its unseen messages' UIDs, oldest first."""
        validity = _text((imap.response("UIDVALIDITY")[1] or [b""])[0])
        found = _ok(imap.uid("SEARCH", "UNSEEN"), "search")
        return validity, [uid for line in found for uid in _text(line).split()]

    def _fetch(self, imap: imaplib.IMAP4, uid: str) -> bytes | None:
        """The message ``uid`` as it was sent (left unseen); None when larger than the door
        takes."""
        sized = _ok(imap.uid("FETCH", uid, "(RFC822.SIZE)"), "fetch")
        size = next((_SIZE.search(_text(line)) for line in sized if line), None)
        if size is None or int(size[1]) > MAIL_REPLY_BYTES:
            return None
        for part in _ok(imap.uid("FETCH", uid, "(BODY.PEEK[])"), "fetch"):
            if isinstance(part, tuple) and len(part) == 2:
                return bytes(part[1])
        return None

    def _mark_seen(self, imap: imaplib.IMAP4, uid: str) -> None:
        _ok(imap.uid("STORE", uid, "+FLAGS", "(\\Seen)"), "store")


def _ok(reply: tuple[str, list[Any]], command: str) -> list[Any]:
    """A command's data; imaplib.IMAP4.error naming it when the server said NO or BAD."""
    kind, data = reply
    if kind != "OK":
        said = " ".join(_text(d) for d in data if isinstance(d, bytes))
        raise imaplib.IMAP4.error(f"{command} refused: {clip(said, 200)}")
    return list(data)


def _text(line: object) -> str:
    """A reply line as text (imaplib gives bytes, tuples, None)."""
    if isinstance(line, bytes):
        return line.decode(errors="replace")
    return "" if line is None else str(line) if isinstance(line, str) else ""


def _quoted(mailbox: str) -> str:
    return f'"{mailbox}"'


def _recipients(raw: bytes) -> list[str]:
    """The addresses a polled message was sent to, from its headers."""
    message = message_from_bytes(raw, policy=email.policy.default)
    return [str(value) for name in RECIPIENT_HEADERS for value in message.get_all(name) or []]


def _close(imap: imaplib.IMAP4) -> None:
    """Log out, ignoring a connection already gone."""
    with contextlib.suppress(OSError, imaplib.IMAP4.error):
        imap.logout()
