"""Reading a workflow's history for the server's own event times, as the benches do, and
for its activities, rounds and continue-as-new chain.

Event times are stamped by the Temporal server, so a span between two events excludes the
client's polling and the return trips of its RPCs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHandle

WORKFLOW_STARTED = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED
SIGNALED = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
WORKFLOW_TASK_COMPLETED = EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
ACTIVITY_SCHEDULED = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
ACTIVITY_STARTED = EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
ACTIVITY_COMPLETED = EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
ACTIVITY_CANCEL_REQUESTED = EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED
CHILD_COMPLETED = EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED
WORKFLOW_COMPLETED = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED
WORKFLOW_TASK_FAILED = EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
CONTINUED_AS_NEW = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
AGENT_ACTIVITY = "run_agent"
"""The activity type of one agent step."""


async def fetch_history(handle: WorkflowHandle[Any, Any]) -> list[HistoryEvent]:
    """Every event of the workflow's history so far, in order."""
    return [event async for event in handle.fetch_history_events()]


def event_time(event: HistoryEvent) -> datetime:
    """When the server recorded ``event``."""
    return event.event_time.ToDatetime()


def seconds_between(start: HistoryEvent, end: HistoryEvent) -> float:
    """Seconds from ``start`` to ``end`` by the server's event times."""
    return (event_time(end) - event_time(start)).total_seconds()


def first_event(
    events: Sequence[HistoryEvent],
    event_type: EventType.ValueType,
    *,
    after: int = 0,
    where: Callable[[HistoryEvent], bool] = lambda _: True,
    what: str = "",
) -> HistoryEvent:
    """The first event of ``event_type`` with an id above ``after`` for which ``where`` holds.

    Raises ``RuntimeError`` naming ``what`` (else the event type) when there is none.
    """
    for event in events:
        if event.event_id > after and event.event_type == event_type and where(event):
            return event
    raise RuntimeError(f"no {what or EventType.Name(event_type)} event in the history")


def signal_event(events: Sequence[HistoryEvent], signal_name: str) -> HistoryEvent:
    """The first ``WorkflowExecutionSignaled`` event of the signal ``signal_name``."""
    return first_event(
        events,
        SIGNALED,
        where=lambda e: e.workflow_execution_signaled_event_attributes.signal_name == signal_name,
        what=f"{signal_name} WorkflowExecutionSignaled",
    )


def child_completed_event(events: Sequence[HistoryEvent], child_id: str) -> HistoryEvent:
    """The parent's ``ChildWorkflowExecutionCompleted`` event of the child ``child_id``."""
    return first_event(
        events,
        CHILD_COMPLETED,
        where=lambda e: (
            e.child_workflow_execution_completed_event_attributes.workflow_execution.workflow_id
            == child_id
        ),
        what=f"ChildWorkflowExecutionCompleted of {child_id}",
    )


def activity_event(
    events: Sequence[HistoryEvent], event_type: EventType.ValueType, scheduled: HistoryEvent
) -> HistoryEvent:
    """The ``ActivityTaskStarted`` or ``ActivityTaskCompleted`` event of the activity that
    ``scheduled`` (its ``ActivityTaskScheduled`` event) scheduled."""
    if event_type not in (ACTIVITY_STARTED, ACTIVITY_COMPLETED):
        raise ValueError(f"not an activity started/completed event type: {event_type}")

    def belongs(event: HistoryEvent) -> bool:
        attrs = (
            event.activity_task_started_event_attributes
            if event_type == ACTIVITY_STARTED
            else event.activity_task_completed_event_attributes
        )
        return attrs.scheduled_event_id == scheduled.event_id

    return first_event(
        events,
        event_type,
        after=scheduled.event_id,
        where=belongs,
        what=f"{EventType.Name(event_type)} of event {scheduled.event_id}",
    )


async def fetch_chain(
    client: Client, workflow_id: str, first_run_id: str
) -> list[list[HistoryEvent]]:
    """The history of every run of a continue-as-new chain, from ``first_run_id`` on."""
    runs: list[list[HistoryEvent]] = []
    run_id = first_run_id
    while run_id:
        events = await fetch_history(client.get_workflow_handle(workflow_id, run_id=run_id))
        runs.append(events)
        last = events[-1] if events else None
        run_id = (
            last.workflow_execution_continued_as_new_event_attributes.new_execution_run_id
            if last is not None and last.event_type == CONTINUED_AS_NEW
            else ""
        )
    return runs


def scheduled_ids(events: Sequence[HistoryEvent], activity_type: str) -> set[int]:
    """Event ids of the ``ActivityTaskScheduled`` events of ``activity_type``."""
    return {
        e.event_id
        for e in events
        if e.event_type == ACTIVITY_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_type.name == activity_type
    }


def rounds(events: Sequence[HistoryEvent], activity_type: str = AGENT_ACTIVITY) -> list[int]:
    """How many ``activity_type`` activities each workflow task scheduled, in order: the
    workflow's sequential rounds and the fan-out of each."""
    widths: dict[int, int] = {}
    for e in events:
        attrs = e.activity_task_scheduled_event_attributes
        if e.event_type == ACTIVITY_SCHEDULED and attrs.activity_type.name == activity_type:
            task = attrs.workflow_task_completed_event_id
            widths[task] = widths.get(task, 0) + 1
    return list(widths.values())
