"""Keep secrets out of every text that leaves the LLM layer: messages, logs, events, history.

``redact`` replaces the configured secrets (``OPENAI_API_KEY``, ``TEMPORAL_API_KEY`` and any value
passed to ``add_secret``) and anything shaped like a credential (bearer tokens, ``sk-...`` keys,
``api_key=...`` pairs, passwords in URLs) with ``[REDACTED]``. ``install_log_redaction`` puts a
filter on the loggers that may carry such text, so their records are redacted for every handler.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping

REDACTED = "[REDACTED]"
SECRET_ENV_VARS = ("OPENAI_API_KEY", "TEMPORAL_API_KEY")
"""Environment variables whose values are secrets wherever they appear."""
MIN_SECRET_LENGTH = 6
"""Shorter configured values (e.g. a local server's ``x``) would blank out ordinary words."""

LOGGER_FAMILIES = ("openai", "httpx2", "httpcore2", "temporalio", "agent_interrupts")
"""Packages whose log records may quote LLM replies, HTTP errors or connection settings."""

_SHAPES = (
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {REDACTED}"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), REDACTED),
    (
        re.compile(
            r"(?i)([\"']?(?:api[_-]?key|authorization|x-api-key|password|secret|token)[\"']?"
            r"\s*[:=]\s*[\"']?)(?!bearer\b|basic\b)[^\s\"',;}]{8,}"
        ),
        rf"\1{REDACTED}",
    ),
    (re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), rf"\1{REDACTED}@"),
)
"""Credential shapes: bearer/basic tokens, OpenAI-style keys, key=value pairs, URL passwords."""

_lock = threading.Lock()
_secrets: frozenset[str] = frozenset()


def add_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on (in this process)."""
    global _secrets
    if value and len(value) >= MIN_SECRET_LENGTH:
        with _lock:
            _secrets = _secrets | {value}


def redact(text: str, env: Mapping[str, str] = os.environ) -> str:
    """``text`` with every configured secret and credential-shaped value replaced."""
    for secret in sorted(_configured(env), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text


def _configured(env: Mapping[str, str]) -> set[str]:
    from_env = (env.get(name) for name in SECRET_ENV_VARS)
    return set(_secrets) | {v for v in from_env if v and len(v) >= MIN_SECRET_LENGTH}


class RedactingFilter(logging.Filter):
    """Redacts a record's message, arguments and traceback in place; drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments that do not fit the format: keep both
            message = f"{record.msg} {record.args!r}"
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


_FILTER = RedactingFilter()


def install_log_redaction(families: Iterable[str] = LOGGER_FAMILIES) -> None:
    """Add the redacting filter to each family's logger and its existing children (idempotent).

    A logger's filters see only the records made on that logger, so every child counts; the
    libraries have created theirs by the time a worker is built.
    """
    existing = list(logging.root.manager.loggerDict)
    for family in families:
        for name in [family, *(n for n in existing if n.startswith(family + "."))]:
            logger = logging.getLogger(name)
            if _FILTER not in logger.filters:
                logger.addFilter(_FILTER)
