"""The bounded event log both workflows keep in state (and echo to the workflow logger)."""

from __future__ import annotations

from temporalio import workflow

from models.limits import EVENT_MESSAGE_CHARS, MAX_EVENTS, clip
from models.state import EventKind, GraphEvent


def record_event(events: list[GraphEvent], recorded: int, event: GraphEvent) -> int:
    """Append ``event`` (message clipped), keep the newest ``MAX_EVENTS``; return the new total.

    The total counts every event ever recorded, so readers can tell how many were dropped.
    """
    event.message = clip(event.message, EVENT_MESSAGE_CHARS)
    events.append(event)
    del events[:-MAX_EVENTS]
    return recorded + 1


def log_event(event: GraphEvent) -> None:
    """Echo an event to the workflow logger (WARNING and ERROR as warnings)."""
    log = (
        workflow.logger.warning
        if event.kind in (EventKind.WARNING, EventKind.ERROR)
        else workflow.logger.info
    )
    log("%s %s", event.kind, event.message)
