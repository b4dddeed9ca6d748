"""A worktree's verification: the run's test command in the sandbox, once per content.

A run is keyed by the worktree's content (a git tree id) and the command, and kept under
``<state>/workspaces/verify/``: a step's later rounds, a retried activity and the commit all read
the same run instead of running the tests again. What a run writes in the worktree (caches,
reports) is undone after it, so only the agent's edits are committed.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

from agent_interrupts.activities.tools.gitwork import restore, snapshot
from agent_interrupts.activities.tools.sandbox import run_verification
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.models.code import TestRun


def verify(worktree: Path, command: str | None, settings: ToolSettings) -> TestRun:
    """The verification run of the worktree as it is now (from the cache when it ran before)."""
    if not command:
        return TestRun(
            command="",
            exit_code=None,
            problem="the run has no test command: pass one (agents run --test-command, start "
            "input workspace.testCommand) or declare [tool.agents] test-command in pyproject.toml",
        )
    tree = snapshot(worktree)
    key = hashlib.sha256(f"{command}\0{tree}".encode()).hexdigest()
    cached = settings.workspace_cache / "verify" / f"{key}.json"
    if cached.is_file():
        return TestRun.model_validate_json(cached.read_text())
    try:
        run = run_verification(command, worktree, settings)
    finally:
        restore(worktree, tree)
    if run.problem is None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        staging = cached.with_name(f"{key}.{uuid.uuid4().hex}.tmp")
        staging.write_text(run.model_dump_json())
        staging.replace(cached)
    return run


def describe(run: TestRun) -> str:
    """A verification run as the agent reads it."""
    if run.problem is not None:
        return f"verification did not run: {run.problem}"
    ending = (
        "killed at the time limit"
        if run.timed_out
        else f"exit status {run.exit_code}, {run.passed} passed, {run.failed} failed"
    )
    return (
        f"$ {run.command}\n{ending} ({run.status.value}, {run.duration_ms} ms)\n"
        f"--- output (end) ---\n{run.output_tail}"
    )
