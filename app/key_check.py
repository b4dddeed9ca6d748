"""At a worker's start: do the open runs of its task queue hold payloads under keys it lacks?
Turning encryption off (or dropping a key) while such runs are in flight is refused in one line
naming the setting and the key id, before the worker takes a task it could not decode."""

from __future__ import annotations

import asyncio

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import GetWorkflowExecutionHistoryRequest
from temporalio.client import Client
from temporalio.service import RPCError

from agent_interrupts.app.codec import ENCODING_KEY, ENCRYPTED, KEY_ID_KEY
from agent_interrupts.app.encryption_keys import KEYS_SETTING, KeyRing

KEY_CHECK_RUNS = 20
"""How many of the newest open runs of the task queue a starting worker looks at (one history
page of one event each)."""


async def missing_key_problem(
    client: Client, task_queue: str, ring: KeyRing | None, runs: int = KEY_CHECK_RUNS
) -> str | None:
    """One line when one of the ``runs`` newest open runs on ``task_queue`` started with an input
    encrypted under a key id ``ring`` does not hold (no ring: any key id); else None. A server
    that does not answer the look-up is no problem here (the worker's connection says so)."""
    query = f"TaskQueue = '{task_queue}' AND ExecutionStatus = 'Running'"
    try:
        open_runs = [run async for run in client.list_workflows(query, limit=runs)]
        ids = await asyncio.gather(*(_start_key_id(client, r.id, r.run_id) for r in open_runs))
    except RPCError:
        return None
    known = set(ring.ids) if ring else set()
    for run, key_id in zip(open_runs, ids, strict=True):
        if key_id is None or key_id in known:
            continue
        if ring is None:
            return (
                f"open run {run.id} is encrypted (key id {key_id!r}) and {KEYS_SETTING} is not "
                f"set: set it to the keys the runs were written under (docs/encryption.md)"
            )
        return (
            f"open run {run.id} is encrypted under key id {key_id!r}, which {KEYS_SETTING} "
            f"does not hold: keep that key in the setting while such runs are open"
        )
    return None


async def _start_key_id(client: Client, workflow_id: str, run_id: str | None) -> str | None:
    """The key id of the run's start input, if it is encrypted."""
    response = await client.workflow_service.get_workflow_execution_history(
        GetWorkflowExecutionHistoryRequest(
            namespace=client.namespace,
            execution=WorkflowExecution(workflow_id=workflow_id, run_id=run_id or ""),
            maximum_page_size=1,
        )
    )
    for event in response.history.events[:1]:
        for payload in event.workflow_execution_started_event_attributes.input.payloads:
            if payload.metadata.get(ENCODING_KEY) == ENCRYPTED:
                return payload.metadata.get(KEY_ID_KEY, b"").decode(errors="replace")[:40]
    return None
