"""Heartbeat while awaiting something slow: cancellation reaches the activity promptly, and a
worker that dies is noticed within the heartbeat timeout.

An attempt that follows a lost one (its worker died) also clears its run's sticky queue: that
worker most likely ran the run's last workflow task too, and the run's next one would otherwise
wait ``AGENTS_WORKER_STICKY_SECONDS`` for a worker that is gone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from temporalio import activity
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import ResetStickyTaskQueueRequest
from temporalio.service import RPCError

from agent_interrupts.activities.attempts import beat as send_beat
from agent_interrupts.activities.attempts import tally
from agent_interrupts.models.policies import STICKY_RESET_TIMEOUT


def follows_a_lost_attempt(attempt: int, counted_failures: int) -> bool:
    """Whether an earlier attempt ended without a counted failure: its worker was lost."""
    return attempt - 1 > counted_failures


async def _unstick_the_run() -> None:
    """Send the run's next workflow task to any worker, not to the dead one's sticky queue."""
    info = activity.info()
    if info.workflow_id is None or not follows_a_lost_attempt(info.attempt, sum(tally().values())):
        return
    request = ResetStickyTaskQueueRequest(
        namespace=info.namespace,
        execution=WorkflowExecution(
            workflow_id=info.workflow_id, run_id=info.workflow_run_id or ""
        ),
    )
    try:
        await activity.client().workflow_service.reset_sticky_task_queue(
            request, timeout=STICKY_RESET_TIMEOUT
        )
    except RPCError as error:  # the run then waits out the sticky queue: slower, never wrong
        activity.logger.warning("could not clear the run's sticky queue: %s", error.message)


@asynccontextmanager
async def heartbeating(interval: timedelta) -> AsyncIterator[None]:
    """Send a heartbeat every ``interval`` while the block runs, the first one ``interval`` after
    it starts: the server first looks for a heartbeat one heartbeat timeout after the start, and
    a beat that came just after the start moves that deadline less than a second past its timer,
    which the server then checks a second late (a worker killed then was noticed after 4 s, not
    3 s)."""

    async def beat() -> None:
        while True:
            await asyncio.sleep(interval.total_seconds())
            send_beat()

    task = asyncio.create_task(beat())
    try:
        await _unstick_the_run()  # before the work: a reply that comes at once must not outrun it
        yield
    finally:
        task.cancel()
