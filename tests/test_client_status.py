"""``client.py status`` against a configured server whose run has no worker: one line at once,
naming the queue and the worker to start (``agents up`` refuses there, so it is not advised)."""

from __future__ import annotations

import time

from temporalio.client import Client

from tests.support.cli import client_py


async def test_status_without_a_worker_says_so_at_once(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    await client.start_workflow(
        "OrchestratorWorkflow", {"goal": "add caching"}, id=workflow_id, task_queue=task_queue
    )
    start = time.monotonic()
    done = await client_py(client, "status", workflow_id)
    took = time.monotonic() - start

    assert done.returncode == 1
    line = done.stderr.strip()
    assert f"no worker serves task queue {task_queue!r} of {workflow_id}" in line
    assert f"TEMPORAL_TASK_QUEUE={task_queue} python worker.py" in line
    assert "agents up" not in line
    assert took < 20, f"{took:.1f} s: it waited for a query no worker answers"
