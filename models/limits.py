"""Size limits at the door, and clipping of every text that enters workflow state or an event.

Temporal refuses payloads over 2 MB and warns at 256 KB; a value that is copied into state, events
and activity inputs must be bounded where it enters. The limits are documented in the README
("Bad input"); what is over them is rejected with a message naming the limit.
"""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import StringConstraints

MAX_GOAL_CHARS = 8_000
"""The start input's ``goal``."""
MAX_TEXT_CHARS = 8_000
"""Free text of an answer, an event's ``reason`` and ``contextForDecision``."""
MAX_ANSWER_CHARS = 4_000
"""One ``customInputs`` answer."""
MAX_ID_CHARS = 200
"""Ids: ``eventId``, ``nodeId``, ``choiceId``, ``confirmationId``."""
MAX_ITEMS = 50
"""Entries of one answer's maps (choices, custom inputs, confirmations) and an event's lists."""

ECHO_CHARS = 200
"""How much of a caller's value an error or event quotes."""
EVENT_MESSAGE_CHARS = 2_000
"""The longest event message kept in state."""
MAX_EVENTS = 200
"""Events kept in a workflow's state; older ones are dropped (the count of dropped is kept)."""
MAX_EVENT_LOG_BYTES = 64 * 1024
"""The most JSON the kept events may take, so ``status`` answers stay small."""

MAX_FAN_OUT = 16
"""Agents one dispatch node runs in parallel: the schema's ``maxItems`` of its ``requests``, and a
reply with more is sent back to the model naming this limit (issue 18)."""

MAX_REMEMBERED_EVENT_IDS = 500
"""Supervisor event ids remembered for idempotency (the newest ones)."""

Id = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
Answer = Annotated[str, StringConstraints(max_length=MAX_ANSWER_CHARS)]


PREVIOUS_OUTPUT_CHARS = 900
"""An agent's previous output is kept (and shown to its next attempt) as compact JSON this long."""


def compact_json(value: object, limit: int = PREVIOUS_OUTPUT_CHARS) -> str:
    """Compact JSON, cut to ``limit`` characters with a note saying how much was left out."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [cut: {len(text) - limit} more characters]"


def clip(value: object, limit: int = ECHO_CHARS) -> str:
    """``value`` as text of at most ``limit`` characters, saying how much was cut."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """``repr``-style quote of a caller's value for a message, clipped to ``limit``."""
    return clip(repr(value), limit)
