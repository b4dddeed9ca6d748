"""A page of waiting questions: the visibility query a listing sends and its page token as text.

``agents list --waiting`` and the inbox ask the server for one page of questions at a time,
narrowed on the server (by the start of a run's id, by the agent that asked), never by reading
every waiting question: the first page costs the same with 100 or 10,000 waiting. The server's
page token is opaque bytes; people and addresses carry it as URL-safe base64.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from agent_interrupts.models.limits import MAX_PAGE_TOKEN_CHARS, MAX_WAITING_PAGE
from agent_interrupts.workflows import visibility

INTERRUPT_TYPE = "InterruptWorkflow"
WAITING_QUERY = (
    f"WorkflowType = '{INTERRUPT_TYPE}' AND "
    f"{visibility.INTERRUPT_STATE.name} = '{visibility.WAITING}' AND "
    "ExecutionStatus = 'Running'"
)
"""The visibility query of ``list --waiting``: questions waiting for a person."""

_FILTER_VALUE = re.compile(r"[A-Za-z0-9_.:@/+=-]{1,200}")
"""What a filter may hold: the characters of workflow ids and agent names, never a quote that
would end the query's string."""


class WaitingFilterError(ValueError):
    """A filter or page token that cannot go into a query; the message says what to give."""


@dataclass(frozen=True)
class WaitingFilter:
    """What a listing is narrowed to on the server: runs whose id starts with ``run`` (a
    question's id is ``<run id>-interrupt-<n>``), questions ``agent`` asked (``InterruptOrigin``,
    the asking agent or dispatch node, any case as given)."""

    run: str = ""
    agent: str = ""

    def query(self) -> str:
        """The visibility query of this filter's waiting questions."""
        parts = [WAITING_QUERY]
        if self.run:
            parts.append(f"WorkflowId STARTS_WITH '{_checked('run', self.run)}'")
        if self.agent:
            origin = _checked("agent", self.agent)
            parts.append(f"{visibility.INTERRUPT_ORIGIN.name} = '{origin}'")
        return " AND ".join(parts)


def _checked(name: str, value: str) -> str:
    if not _FILTER_VALUE.fullmatch(value):
        raise WaitingFilterError(
            f"the {name} filter {value[:60]!r} may hold only letters, digits and _.:@/+=- "
            "(up to 200): give a run id or an agent name as listed"
        )
    return value


def page_size(limit: int) -> int:
    """``limit`` as a page size the server takes: 1 to ``MAX_WAITING_PAGE``."""
    if not 1 <= limit <= MAX_WAITING_PAGE:
        raise WaitingFilterError(f"--limit must be from 1 to {MAX_WAITING_PAGE}, not {limit}")
    return limit


def token_text(token: bytes | None) -> str | None:
    """The server's page token as text for a command line or an address (None: last page)."""
    return base64.urlsafe_b64encode(token).decode().rstrip("=") if token else None


def token_bytes(text: str | None) -> bytes | None:
    """``token_text``'s inverse; None or "" for the first page."""
    if not text:
        return None
    if len(text) > MAX_PAGE_TOKEN_CHARS:
        raise WaitingFilterError(
            f"the page token is longer than {MAX_PAGE_TOKEN_CHARS} characters: copy it whole "
            "from the listing's 'next page' line"
        )
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise WaitingFilterError(
            "the page token is not one a listing gave: copy it whole from its 'next page' line"
        ) from None
