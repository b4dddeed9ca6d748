"""Size limits at the door, and clipping of every text that enters workflow state or an event.

Temporal refuses payloads over 2 MB (the servers we start: ``SERVER_PAYLOAD_BYTES``) and warns at
256 KB; a value that is copied into state, events and activity inputs must be bounded where it
enters. The limits are documented in the README
("Bad input"); what is over them is rejected with a message naming the limit.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import AfterValidator, StringConstraints

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
reply with more is sent back to the model naming this limit."""

MAX_OUTPUT_TOKENS_FACTOR = 8
"""How many times its configured output tokens a person may give a stuck agent's re-run
(doubled per answer that asks for more)."""
MAX_REMEMBERED_EVENT_IDS = 500
"""Supervisor event ids remembered for idempotency (the newest ones)."""

MAX_NAME_CHARS = 100
"""A person's name on an answer (``answeredBy``): what the inbox, the CLI or the SDK says."""
MAX_MODEL_CHARS = 200
"""A model name given to one agent call (a fork that runs a step again on another model)."""
MAX_SLACK_ID_CHARS = 100
"""A Slack channel id or message ``ts`` (``C0123ABC``, ``1700000000.000100``) kept in a notice."""

MAX_WAITING_PAGE = 1000
"""The most waiting questions one page of ``agents list --waiting`` or the inbox lists (the
visibility store's own page limit)."""
MAX_PAGE_TOKEN_CHARS = 4096
"""The longest page token a listing takes back (the server's are about 100 characters)."""

MAX_QUESTION_MEMO_BYTES = 1_792
"""The most compact JSON a waiting question's card takes in its InterruptWorkflow's memo
(``models/question_card.py``): its longest texts, the reason among them, are cut to fit, each
saying how much it lost. Sealed by the payload codec it stays under the 2 KiB at which the SDK and
the server warn of a large memo; a listing returns every row's memo, so a page of 100 carries at
most about 200 KB of them."""

Id = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
Answer = Annotated[str, StringConstraints(max_length=MAX_ANSWER_CHARS)]


def _one_line(name: str) -> str:
    if not name.isprintable():
        raise ValueError("a name is one line of printable text")
    return name


PersonName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_CHARS),
    AfterValidator(_one_line),
]
"""Who answered, as they were told apart: untrusted text, one line, at most 100 characters
(pages escape it like any other text)."""


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


MAX_PAYLOAD_BYTES = 256 * 1024
"""The largest signal or update payload a workflow takes (Temporal warns from 256 KB); our clients
refuse a larger one before sending it. The README names it."""
AGENT_OUTPUT_BYTES = 256 * 1024
"""The most compact JSON an agent's output (or a question) keeps in the run; its longest texts are
cut to fit. The whole reply stays in the activity's result in history. Requests are made of
outputs, so this bounds what activity inputs, questions and continue-as-new carry."""
AGENT_REQUEST_BYTES = 384 * 1024
"""The most compact JSON the request of one agent call (or a question's origin) may take: with a
fan-out of ``MAX_FAN_OUT`` a workflow task stays under Temporal's 2 MB payload and 4 MB message
limits."""
MAX_RENDERED_TEMPLATE_CHARS = 100_000
"""The most text a declared team's template may render to (its agent's system prompt before the
contributors' sections); a render that passes it fails the agent's step in one line."""
TEMPLATE_RENDER_MEMORY_BYTES = 512 * 1024 * 1024
"""The address space a declared team's template's render process may use."""
GRPC_MESSAGE_BYTES = 4 * 1024 * 1024
"""Temporal's gRPC message limit: the server refuses a larger request at once ("grpc: received
message larger than max"), and terminates a run whose workflow task's answer is larger
(``GrpcMessageTooLarge``)."""
TASK_ROOM_BYTES = AGENT_REQUEST_BYTES + AGENT_OUTPUT_BYTES + MAX_PAYLOAD_BYTES + 64 * 1024
"""What a workflow task's own commands may take beside the echo of an update the workflow refuses:
an InterruptWorkflow's largest, the translation's input (the question's origin request, the
question, the answer, and 64 KiB for the goal, ids and the rest), 960 KiB."""
SERVER_PAYLOAD_BYTES = GRPC_MESSAGE_BYTES - TASK_ROOM_BYTES
"""The payload limit the servers we start run with (``limit.blobSize.error``; Temporal's default is
2 MiB), 3 MiB and 64 KiB. Temporal's update protocol echoes an update's request in the worker's
answer, and the worker fails a workflow task with a payload over this limit (TMPRL1103): an update
over it can be neither accepted nor refused, and its workflow tasks fail until the server drops it
(about 20 s). Under it the workflow refuses any update over ``MAX_PAYLOAD_BYTES`` in one line, and
the echo leaves ``TASK_ROOM_BYTES`` of the gRPC message to the task's own commands."""
CODEC_BODY_BYTES = 64 * 1024 * 1024
"""The largest request the codec server reads (``app/inbox/codec_server.py``): the payloads of a
page of history the Web UI or ``temporal workflow show`` asks it to decode, in JSON."""
CURATED_CONTEXT_BYTES = 8 * 1024
"""The most compact JSON a declared team's curated context (a collector's chosen result fields)
keeps: its longest texts are cut, then its longest lists lose their last items."""
MAX_REQUEST_CONTEXTS = 4
"""Curated contexts one request of a declared team carries: its team's newest collectors' (with
``CURATED_CONTEXT_BYTES`` each, a fan-out of ``MAX_FAN_OUT`` adds at most 512 KiB to a task)."""
CUT_FLOOR_CHARS = 400
"""Strings are never cut shorter than this (ids and choices are shorter: never cut)."""


def json_bytes(value: object) -> int:
    """The size of ``value`` as compact UTF-8 JSON."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def fit_strings(value: Any, max_bytes: int) -> Any:
    """JSON data ``value`` with its longest strings cut, each saying how much it lost, so that its
    compact JSON takes at most ``max_bytes``; ``value`` itself when it fits. Strings are cut to one
    length, the longest that fits, never below ``CUT_FLOOR_CHARS``: data made of very many short
    strings may stay over (the caller checks with ``json_bytes``). Keys are never cut."""
    size = json_bytes(value)
    if size <= max_bytes:
        return value
    lengths = sorted((len(s) for s in _strings(value)), reverse=True)
    if not lengths or lengths[0] <= CUT_FLOOR_CHARS:
        return value
    low, high = CUT_FLOOR_CHARS, lengths[0]
    while low < high:  # the longest cut length whose saving (in characters) is enough
        middle = (low + high + 1) // 2
        if sum(n - middle for n in lengths if n > middle) >= size - max_bytes:
            low = middle
        else:
            high = middle - 1
    cap = low
    while True:  # characters are not bytes: shorten until the bytes fit too
        fitted = _cut(value, cap)
        if cap == CUT_FLOOR_CHARS or json_bytes(fitted) <= max_bytes:
            return fitted
        cap = max(CUT_FLOOR_CHARS, cap * 3 // 4)


_NOTE_CHARS = 40
"""Room kept for the note a cut string ends with (``... [cut: N more characters]``)."""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _cut(value: Any, cap: int) -> Any:
    if isinstance(value, str):
        if len(value) <= cap:
            return value
        kept = cap - _NOTE_CHARS
        return f"{value[:kept]}... [cut: {len(value) - kept} more characters]"
    if isinstance(value, dict):
        return {k: _cut(v, cap) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut(v, cap) for v in value]
    return value
