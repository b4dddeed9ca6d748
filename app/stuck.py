"""Runs the current workers cannot continue: never silently stuck.

When a deploy's code cannot replay a run's history (a non-determinism error), or the run's
workflow task fails for any other reason, the server retries the task forever and the run stays
Running. The server marks such an execution with the system search attribute
``TemporalReportedProblems`` (``workflows.visibility.dev_server_args`` enables it for the local
stack and the tests; a cluster sets the same dynamic config). This module
reads that mark: ``agents list`` and ``list --waiting`` show it, ``agents status`` explains it with
the rollback, and the worker's watch sends a notice to the webhook and Slack receivers.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import httpx2
from temporalio.api.enums.v1 import EventType, WorkflowTaskFailedCause
from temporalio.client import Client, WorkflowExecution

from agent_interrupts.app.data_converter import failure_text

PROBLEMS = "TemporalReportedProblems"
NON_DETERMINISM = "cause=WorkflowTaskFailedCauseNonDeterministicError"
if TYPE_CHECKING:  # the worker's notices load where they are sent (``agents list`` starts fast)
    from agent_interrupts.activities.notify import NotifySettings

STUCK_CHECK_SECONDS = 30.0
"""How often a worker looks for stuck runs on its task queue (AGENTS_STUCK_CHECK_SECONDS)."""
ROLLBACK = (
    "roll back: stop the new workers and start workers of the version that started the run "
    "(git checkout <that version> && python worker.py) on the same task queue; the run goes on "
    "where it stopped. Then guard the change with workflow.patched, its id registered in "
    "workflows/patches.py (docs/deploys.md)"
)
STUCK_QUERY = f"ExecutionStatus = 'Running' AND {PROBLEMS} IS NOT NULL"

log = logging.getLogger("agents.stuck")


def problem_of(execution: WorkflowExecution) -> str | None:
    """One line: why this Running execution makes no progress, or None."""
    reported: Any = execution.search_attributes.get(PROBLEMS) or []
    if not reported:
        return None
    if NON_DETERMINISM in reported:
        return (
            "STUCK: the current workers cannot replay it (a non-determinism error after a deploy)"
        )
    return "STUCK: its workflow task keeps failing (" + ", ".join(map(str, reported)) + ")"


async def stuck_ids(client: Client, ids: Sequence[str] = ()) -> dict[str, str]:
    """Stuck Running executions (of ``ids`` only, when given): workflow id -> problem."""
    query = STUCK_QUERY
    if ids:
        query += " AND WorkflowId IN (" + ", ".join(f"'{i}'" for i in ids) + ")"
    found = {}
    async for execution in client.list_workflows(query):
        problem = problem_of(execution)
        if problem is not None:
            found[execution.id] = problem
    return found


async def explain(client: Client, workflow_id: str) -> str | None:
    """For ``agents status``: what happened to a stuck run, its last task failure and the
    rollback; None when the run is not stuck."""
    described = await client.get_workflow_handle(workflow_id).describe()
    problem = problem_of(described)
    if problem is None:
        return None
    failure = ""
    async for event in client.get_workflow_handle(workflow_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
            attributes = event.workflow_task_failed_event_attributes
            cause = WorkflowTaskFailedCause.Name(attributes.cause)
            failure = f"\nlast failed task (event {event.event_id}, {cause}): "
            message = await failure_text(client.data_converter, attributes.failure)
            failure += (message.splitlines() or [""])[0][:300]
    return f"{workflow_id}: {problem}{failure}\n{ROLLBACK}"


class StuckRunWatch:
    """A worker's watch: every ``interval`` seconds, each newly stuck run on its task queue is
    logged as an error and announced to the webhook and Slack receivers, once per run."""

    def __init__(
        self, client: Client, task_queue: str, notify: NotifySettings, interval: float
    ) -> None:
        self._client = client
        self._task_queue = task_queue
        self._notify = notify
        self._interval = interval
        self._told: set[str] = set()

    async def run(self) -> None:
        while True:
            try:
                await self.check()
            except Exception as err:  # a watch that fails must not stop the worker
                log.warning("could not look for stuck runs: %s", err)
            await asyncio.sleep(self._interval)

    async def check(self) -> list[str]:
        """Announce the stuck runs not announced yet; their ids."""
        query = f"{STUCK_QUERY} AND TaskQueue = '{self._task_queue}'"
        new = []
        async for execution in self._client.list_workflows(query):
            problem = problem_of(execution)
            key = f"{execution.id}/{execution.run_id}"
            if problem is None or key in self._told:
                continue
            self._told.add(key)
            new.append(execution.id)
            log.error("%s: %s; %s", execution.id, problem, ROLLBACK)
            await self._announce(execution, problem)
        return new

    async def _announce(self, execution: WorkflowExecution, problem: str) -> None:
        notice = {
            "kind": "RUN_STUCK",
            "deliveryId": f"{execution.id}/{execution.run_id}/RUN_STUCK",
            "workflowId": execution.id,
            "runId": execution.run_id,
            "workflowType": execution.workflow_type,
            "problem": problem,
            "rollback": ROLLBACK,
        }
        from agent_interrupts.activities.notify_channels import (
            SIGNATURE_HEADER,
            USER_AGENT,
            signature,
        )

        body = json.dumps(notice).encode()
        headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
        posts: list[tuple[str, bytes, dict[str, str]]] = []
        settings = self._notify
        if settings.webhook_url:
            signed = dict(headers)
            if settings.webhook_secret:
                signed[SIGNATURE_HEADER] = signature(settings.webhook_secret, body)
            posts.append((settings.webhook_url, body, signed))
        if settings.slack_url:
            text = f"Run {execution.id} is stuck. {problem}. {ROLLBACK}"
            posts.append((settings.slack_url, json.dumps({"text": text}).encode(), headers))
        timeout = settings.request_timeout.total_seconds()
        async with httpx2.AsyncClient(timeout=timeout, follow_redirects=False) as http:
            for url, content, sent_headers in posts:
                try:
                    response = await http.post(url, content=content, headers=sent_headers)
                    response.raise_for_status()
                except httpx2.HTTPError as err:
                    log.warning(
                        "the stuck-run notice for %s was not delivered to %s: %s",
                        execution.id,
                        "Slack" if url == settings.slack_url else "the webhook",
                        type(err).__name__,
                    )
