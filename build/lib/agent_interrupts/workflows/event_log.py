"""The bounded event log both workflows keep in state (and echo to the workflow logger)."""

from __future__ import annotations

from temporalio import workflow

from agent_interrupts.models.limits import (
    EVENT_MESSAGE_CHARS,
    MAX_EVENT_LOG_BYTES,
    MAX_EVENTS,
    clip,
)
from agent_interrupts.models.state import EventKind, GraphEvent


def record_event(events: list[GraphEvent], recorded: int, event: GraphEvent) -> int:
    """Append ``event`` (message clipped); keep the newest ``MAX_EVENTS`` that fit in
    ``MAX_EVENT_LOG_BYTES`` of JSON; return the new total.

    The total counts every event ever recorded, so readers can tell how many were dropped. The
    byte bound matters for text that JSON makes bigger (emoji, control characters).
    """
    event.message = clip(event.message, EVENT_MESSAGE_CHARS)
    events.append(event)
    del events[:-MAX_EVENTS]
    sizes = [len(e.model_dump_json()) for e in events]
    total = sum(sizes)
    drop = 0
    while total > MAX_EVENT_LOG_BYTES and drop < len(events) - 1:
        total -= sizes[drop]
        drop += 1
    del events[:drop]
    return recorded + 1


def log_event(event: GraphEvent) -> None:
    """Echo an event to the workflow logger (WARNING and ERROR as warnings)."""
    log = (
        workflow.logger.warning
        if event.kind in (EventKind.WARNING, EventKind.ERROR)
        else workflow.logger.info
    )
    log("%s %s", event.kind, event.message)
