"""An interrupt's notifications: they never block the wait nor fail the interrupt.

``Notifier`` asks the worker which channels are enabled (a local activity), then starts one
``notify`` activity per channel and notice without awaiting it: a task watches it and records a
WARNING event when the receiver stayed down for the whole retry policy. The final notice
(resolved, or timed out and failing) is delivered by a ``NotificationWorkflow`` child that is
abandoned when the interrupt closes, so the run goes on while it is delivered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import Priority, RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, WorkflowAlreadyStartedError
from temporalio.workflow import ActivityHandle, ParentClosePolicy

from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.notifications import (
    Channel,
    Delivery,
    Notice,
    NoticeKind,
    NotificationInput,
    NotificationPlan,
    Question,
    Reminder,
    SlackMessage,
    reminder_delay,
)
from agent_interrupts.models.policies import (
    NOTICE_PRIORITY,
    NOTIFY_PLAN_TIMEOUT,
    NOTIFY_RETRY,
    NOTIFY_SCHEDULE_TO_CLOSE,
    NOTIFY_START_TO_CLOSE,
)
from agent_interrupts.models.state import EventKind
from agent_interrupts.workflows.patches import NOTICES_LAST, SPREAD_REMINDERS

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.notify import NotificationActivities

Record = Callable[[EventKind, str], None]
ZERO = timedelta(0)


class Notifier:
    """Raises one interrupt's notices through the channels the worker's settings enable."""

    def __init__(self, record: Record) -> None:
        self._record = record
        self._plan = NotificationPlan(channels=[], reminders=[])
        self._watchers: list[asyncio.Task[None]] = []
        self._final: asyncio.Task[None] | None = None
        self._slack_message: SlackMessage | None = None
        """The question's Slack message once posted: later notices update it or reply to it."""

    @property
    def enabled(self) -> bool:
        return bool(self._plan.channels)

    async def start(self, job: InterruptInput, deadline: datetime | None, *, ask: bool) -> None:
        """Read the plan, then send the question (``ask``: not after a continue-as-new); a plan
        that cannot be read turns notifications off."""
        try:
            self._plan = await workflow.execute_local_activity_method(
                NotificationActivities.plan,
                start_to_close_timeout=NOTIFY_PLAN_TIMEOUT,
                retry_policy=RetryPolicy(maximum_attempts=1),
            )
        except (ActivityError, ValueError) as err:  # ValueError: a worker without the activity
            self._record(EventKind.WARNING, f"notifications are off: {failure_message(err)}")
            return
        if ask:
            self.send(NoticeKind.QUESTION, job, deadline)

    def reminders(
        self, start: datetime, timeout: timedelta | None
    ) -> list[tuple[Reminder, datetime]]:
        """Each reminder and when it is due: the plan's fractions of the time to the deadline."""
        if not self.enabled or timeout is None:
            return []
        fractions = self._plan.reminders
        if not fractions:
            return []
        spread = workflow.patched(SPREAD_REMINDERS)
        question_id = workflow.info().workflow_id

        def due(fraction: float) -> datetime:
            after = timeout * fraction
            later = reminder_delay(question_id, after, timeout - after) if spread else ZERO
            return start + after + later

        return [
            (Reminder(number=n, of=len(fractions), fraction=f), due(f))
            for n, f in enumerate(fractions, start=1)
        ]

    def send(
        self,
        kind: NoticeKind,
        job: InterruptInput,
        deadline: datetime | None,
        reminder: Reminder | None = None,
    ) -> None:
        """Start the notice's deliveries and return; their outcome becomes an event."""
        if not self.enabled:
            return
        notice = _notice(kind, job, deadline, reminder=reminder, slack=self._slack_message)
        for channel in self._plan.channels:
            handle = start_delivery(Delivery(channel=channel, notice=notice))
            self._watchers.append(asyncio.create_task(self._watch(handle, channel, notice)))

    def settle(
        self,
        kind: NoticeKind,
        job: InterruptInput,
        deadline: datetime | None,
        resolution: InterruptResolution | None,
    ) -> None:
        """Start the final notice's workflow, which outlives the interrupt."""
        if self.enabled and self._final is None:
            notice = _notice(kind, job, deadline, resolution=resolution, slack=self._slack_message)
            self._final = asyncio.create_task(self._start_final(notice))

    async def settled(self) -> None:
        """Wait until the final notice's workflow has started (not until it is delivered)."""
        if self._final is not None:
            await self._final

    async def _watch(
        self, handle: ActivityHandle[SlackMessage | None], channel: Channel, notice: Notice
    ) -> None:
        label = notice.delivery_id.rsplit("/", 1)[-1]
        try:
            posted = await handle
        except ActivityError as err:
            self._record(
                EventKind.WARNING,
                f"{label} notice not delivered by {channel}, retries exhausted: "
                f"{failure_message(err)}",
            )
            return
        if posted is not None and notice.kind is NoticeKind.QUESTION:
            self._slack_message = posted
        self._record(EventKind.INFO, f"{label} notice delivered by {channel}")

    async def _start_final(self, notice: Notice) -> None:
        try:
            await workflow.start_child_workflow(
                NotificationWorkflow.run,
                NotificationInput(channels=self._plan.channels, notice=notice),
                id=f"{notice.interrupt_id}-notify-{notice.kind}",
                parent_close_policy=ParentClosePolicy.ABANDON,
                static_summary=f"{notice.kind} notice of {notice.interrupt_id}",
            )
        except WorkflowAlreadyStartedError as err:
            self._record(EventKind.WARNING, f"{notice.kind} notice not sent: {err}")


@workflow.defn
class NotificationWorkflow:
    """Delivers an interrupt's final notice to every channel; fails naming those that failed."""

    @workflow.run
    async def run(self, job: NotificationInput) -> None:
        handles = [start_delivery(Delivery(channel=c, notice=job.notice)) for c in job.channels]
        outcomes = await asyncio.gather(*handles, return_exceptions=True)
        failed = [
            f"{channel}: {failure_message(outcome)}"
            for channel, outcome in zip(job.channels, outcomes, strict=True)
            if isinstance(outcome, BaseException)
        ]
        if failed:
            raise ApplicationError(
                f"{job.notice.kind} notice not delivered by " + "; ".join(failed),
                type="NotificationFailed",
                non_retryable=True,
            )


def start_delivery(delivery: Delivery) -> ActivityHandle[SlackMessage | None]:
    """One channel's delivery of one notice, retried for a bounded time."""
    last = workflow.patched(NOTICES_LAST)
    return workflow.start_activity_method(
        NotificationActivities.notify,
        delivery,
        start_to_close_timeout=NOTIFY_START_TO_CLOSE,
        schedule_to_close_timeout=NOTIFY_SCHEDULE_TO_CLOSE,
        retry_policy=NOTIFY_RETRY,
        summary=f"{delivery.notice.kind} notice by {delivery.channel}",
        priority=Priority(priority_key=NOTICE_PRIORITY) if last else Priority.default,
    )


def _notice(
    kind: NoticeKind,
    job: InterruptInput,
    deadline: datetime | None,
    *,
    reminder: Reminder | None = None,
    resolution: InterruptResolution | None = None,
    slack: SlackMessage | None = None,
) -> Notice:
    interrupt_id = workflow.info().workflow_id
    suffix = f"{kind}-{reminder.number}" if reminder is not None else kind
    return Notice(
        delivery_id=f"{interrupt_id}/{suffix}",
        kind=kind,
        interrupt_id=interrupt_id,
        orchestrator_id=job.orchestrator_id,
        origin=job.origin,
        reroute_to=job.reroute_to,
        question=Question.of(job.request),
        deadline=deadline,
        on_timeout=job.on_timeout,
        reminder=reminder,
        resolution=resolution,
        at=workflow.now(),
        slack_message=slack,
    )
