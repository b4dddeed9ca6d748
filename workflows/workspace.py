"""Pin the run's workspace once, at the start: the commit is the activity's result in history,
so retries, replays and later steps read the same code."""

from __future__ import annotations

from temporalio import workflow

from agent_interrupts.models.policies import (
    AGENT_HEARTBEAT_TIMEOUT,
    WORKSPACE_PIN_RETRY,
    WORKSPACE_PIN_TIMEOUT,
)
from agent_interrupts.models.tools import PinnedWorkspace, WorkspaceSpec

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.tools.workspace import WorkspaceActivities


async def pin_workspace(spec: WorkspaceSpec) -> PinnedWorkspace:
    """The pinned workspace; raises the activity's failure (a bad source or ref fails at once)."""
    return await workflow.execute_activity_method(
        WorkspaceActivities.pin_workspace,
        spec,
        start_to_close_timeout=WORKSPACE_PIN_TIMEOUT,
        heartbeat_timeout=AGENT_HEARTBEAT_TIMEOUT,
        retry_policy=WORKSPACE_PIN_RETRY,
        summary=f"pin workspace {spec.source}"[:200],
    )
