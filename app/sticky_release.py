"""A stopping worker hands its cached runs to any worker: ``ResetStickyTaskQueue`` for each.

A worker keeps the runs it served in its cache, and the server sends each run's next workflow
task to that worker's sticky queue first (``AGENTS_WORKER_STICKY_SECONDS``). The SDK tells the
server when a worker stops gracefully (sdk-core's ``ShutdownWorker`` call, with the sticky queue's
name), and Temporal 1.32 then adds the task to the normal queue; but its history still schedules
the task on the sticky queue and times it out after the sticky wait when no worker took it by
then, and a server without that call holds the task for the whole wait. Clearing each cached run's
stickiness after the worker stopped polling sends the next task to the normal queue on every
server, with a history that says so.

What the worker caches is read when the stop begins (the SDK empties its cache while it stops);
the release is bounded by ``STICKY_RELEASE_TIMEOUT`` and never fails the stop: a run it did not
reach waits as it did before, at most the sticky wait, once. A crash (SIGKILL, a lost machine)
releases nothing.
"""

from __future__ import annotations

import asyncio
import logging

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import ResetStickyTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.worker import Worker

from agent_interrupts.models.policies import (
    STICKY_RELEASE_TIMEOUT,
    STICKY_RELEASES_AT_ONCE,
    STICKY_RESET_TIMEOUT,
)

logger = logging.getLogger(__name__)


def cached_runs(worker: Worker) -> list[WorkflowExecution]:
    """The runs ``worker`` holds in its workflow cache (workflow id and run id), oldest first;
    none when the SDK keeps its cache elsewhere (read through the SDK's private names, so a
    later SDK that moves them releases nothing rather than failing the stop)."""
    workflows = getattr(worker, "_workflow_worker", None)
    running = getattr(workflows, "_running_workflows", None)
    if not isinstance(running, dict):
        return []
    return [
        WorkflowExecution(workflow_id=str(getattr(each, "workflow_id", "")), run_id=run_id)
        for run_id, each in list(running.items())
        if getattr(each, "workflow_id", "")
    ]


async def release_sticky(client: Client, runs: list[WorkflowExecution]) -> int:
    """Clear the stickiness of each of ``runs`` (their next workflow task goes to any worker of
    the normal queue): at most ``STICKY_RELEASES_AT_ONCE`` calls at a time, all within
    ``STICKY_RELEASE_TIMEOUT``; how many were cleared. Never raises: a run that ended meanwhile,
    or a server that does not answer in time, leaves that run to the sticky wait."""
    gate = asyncio.Semaphore(STICKY_RELEASES_AT_ONCE)
    cleared = 0

    async def one(run: WorkflowExecution) -> None:
        nonlocal cleared
        request = ResetStickyTaskQueueRequest(namespace=client.namespace, execution=run)
        async with gate:
            try:
                await client.workflow_service.reset_sticky_task_queue(
                    request, timeout=STICKY_RESET_TIMEOUT
                )
            except RPCError:  # ended, or not found: nothing to release
                return
            except Exception as error:  # the stop goes on whatever this raises
                logger.warning("could not clear %s's sticky queue: %s", run.workflow_id, error)
                return
        cleared += 1

    try:
        async with asyncio.timeout(STICKY_RELEASE_TIMEOUT.total_seconds()):
            await asyncio.gather(*(one(run) for run in runs))
    except TimeoutError:
        logger.warning(
            "released %d of %d cached runs' sticky queues within %g s; the rest wait out "
            "AGENTS_WORKER_STICKY_SECONDS once",
            cleared,
            len(runs),
            STICKY_RELEASE_TIMEOUT.total_seconds(),
        )
    return cleared
