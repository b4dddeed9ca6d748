"""The write tools' guidance: the ticket agent's own worktree, what is committed, what is
checked."""

from __future__ import annotations

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.models.team import Team


class CodeChangesContributor(PromptContributor):
    """How a ticket agent changes code, and what the system records of it."""

    name = "code-changes"
    title = "Changing code"
    order = 13

    def __init__(self, agents: frozenset[str], settings: ToolSettings) -> None:
        self.applies_to = agents
        self.settings = settings

    def applies(self, agent: str, team: Team) -> bool:
        """The run's team says which of its agents get these tools."""
        return agent in team.write_tools

    def contribute(self, ctx: PromptContext) -> str | None:
        if ctx.worktree is None:
            return None
        command = ctx.workspace.test_command if ctx.workspace else None
        tests = (
            f"`run_verification` runs `{command}` in a sandbox (no network, "
            f"{self.settings.test_timeout} s, {self.settings.test_memory_mb} MB)"
            if command
            else "the run has no test command, so `run_verification` cannot check your work"
        )
        return (
            f"You implement the ticket in your own worktree on branch `{ctx.worktree.branch}` "
            f"(from commit {ctx.worktree.base_commit[:12]}); the read tools read it with your "
            "edits. Change files with `write_file`, `replace_snippet` (exact text that occurs "
            "once), `replace_lines` and `delete_file`; paths are relative to the worktree. "
            f"{tests}: run it after your edits and fix what fails.\n"
            "When you answer, the system commits the worktree (your commit message is the "
            "subject) and fills `filesModified`, `commit`, `testResults` and "
            "`verificationStatus` from git and the test run: what you write there is replaced."
        )
