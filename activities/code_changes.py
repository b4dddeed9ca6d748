"""Activities of the agents' code changes: a ticket's worktree, its commit, the review's
diffs, the run's merge and the clean-up. Each is idempotent (``activities/tools/gitwork.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from temporalio import activity

from agent_interrupts.activities.heartbeat import heartbeating
from agent_interrupts.activities.tools import gitwork
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.verification import verify
from agent_interrupts.models.code import (
    CommitRequest,
    FinishRequest,
    MergeOutcome,
    MergeRequest,
    PrepareRequest,
    ReviewMaterialRequest,
    TicketChange,
    TicketCommit,
    WorktreeRef,
)
from agent_interrupts.models.errors import AgentWorkflowError
from agent_interrupts.models.policies import AGENT_HEARTBEAT_INTERVAL


class CodeChangeActivities:
    """Git work of a run, on the worker that holds its state directory."""

    def __init__(self, settings: ToolSettings) -> None:
        self._settings = settings

    @activity.defn
    async def prepare_worktree(self, request: PrepareRequest) -> WorktreeRef:
        """The ticket step's worktree on ``agents/<run>/<ticket>`` (made once)."""
        return await _git_work(
            gitwork.prepare,
            request.workspace,
            request.run_id,
            request.ticket_id,
            request.node_id,
            self._settings,
        )

    @activity.defn
    async def commit_ticket(self, request: CommitRequest) -> TicketCommit:
        """Verify the worktree (cached) and commit it once for its node."""
        return await _git_work(self._commit, request)

    def _commit(self, request: CommitRequest) -> TicketCommit:
        path = Path(request.worktree.path)
        tests = verify(path, request.test_command, self._settings)
        sha = gitwork.commit(request, self._settings)
        done = gitwork.ticket_commit(request.worktree, sha)
        return done.model_copy(update={"tests": tests})

    @activity.defn
    async def review_material(self, request: ReviewMaterialRequest) -> list[TicketChange]:
        """Each ticket's diff (capped, with its stat) and its test status."""
        return await _git_work(self._material, request)

    def _material(self, request: ReviewMaterialRequest) -> list[TicketChange]:
        repo = gitwork.run_repository(request.workspace, self._settings)
        return [
            TicketChange(
                ticket_id=t.ticket_id,
                branch=t.branch,
                head=t.head,
                verification=t.verification,
                diff=gitwork.diff(repo, t.base, t.head, request.diff_chars),
            )
            for t in request.tickets
        ]

    @activity.defn
    async def merge_tickets(self, request: MergeRequest) -> MergeOutcome:
        """Merge the ticket branches into the run branch; verify and (if set) push it."""
        return await _git_work(self._merge, request)

    def _merge(self, request: MergeRequest) -> MergeOutcome:
        outcome, path = gitwork.merge(request, self._settings)
        if outcome.conflict_ticket is None:
            outcome.tests = verify(path, request.test_command, self._settings)
            remote = self._settings.push_remote
            if remote:
                gitwork.push(path, outcome.run_branch, remote)
                outcome.pushed_to = remote
        return outcome

    @activity.defn
    async def finish_code(self, request: FinishRequest) -> list[str]:
        """Remove the run's worktrees; the paths removed."""
        return await _git_work(
            gitwork.remove_worktrees, request.run_id, request.workspace, self._settings
        )


P = ParamSpec("P")
T = TypeVar("T")


async def _git_work(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    try:
        async with heartbeating(AGENT_HEARTBEAT_INTERVAL):
            return await asyncio.to_thread(work, *args, **kwargs)
    except AgentWorkflowError as err:
        raise err.to_application_error() from None
