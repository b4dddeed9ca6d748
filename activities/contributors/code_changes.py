"""The write tools' guidance: the ticket agent's own worktree, what is committed, what is
checked."""

from __future__ import annotations

import typing

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.team import Team


class CodeChangesContributor(PromptContributor):
    """How a code-writing agent (the team's ``write_tools``) changes code, and what the system
    records of it."""

    name = "code-changes"
    title = "Changing code"
    order = 13

    def __init__(self, settings: ToolSettings) -> None:
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
        declared = records_code_commit(ctx.output_model)
        return (
            ("You do your request's work" if declared else "You implement the ticket")
            + f" in your own worktree on branch `{ctx.worktree.branch}` "
            f"(from commit {ctx.worktree.base_commit[:12]}); the read tools read it with your "
            "edits. Change files with `write_file`, `replace_snippet` (exact text that occurs "
            "once), `replace_lines` and `delete_file`; paths are relative to the worktree. "
            f"{tests}: run it after your edits and fix what fails.\n"
            + (
                "When you answer, the system commits the worktree (your `commitMessage`, else "
                "your `summary`, is the subject) and records in your result's `codeCommit` what "
                "git and the test run found: the branch, the commit, the files and the test "
                "outcomes."
                if declared
                else "When you answer, the system commits the worktree (your commit message is "
                "the subject) and fills `filesModified`, `commit`, `testResults` and "
                "`verificationStatus` from git and the test run: what you write there is "
                "replaced."
            )
        )


def records_code_commit(output_model: type[WireModel]) -> bool:
    """Whether the agent's result has a ``codeCommit`` the system fills (a declared
    code-writing agent's), rather than the software ticket agent's claims it replaces."""
    result = output_model.model_fields.get("result")
    kinds = typing.get_args(result.annotation) if result is not None else ()
    return any(
        isinstance(k, type) and "code_commit" in getattr(k, "model_fields", {}) for k in kinds
    )
