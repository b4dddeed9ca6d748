"""The code tools' guidance: what they are for, when to use them, their limits."""

from __future__ import annotations

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.models.team import Team


class CodeToolsContributor(PromptContributor):
    """How to use the code tools, and their limits."""

    name = "code-tools"
    title = "Code tools"
    order = 12

    def __init__(self, settings: ToolSettings) -> None:
        self.settings = settings

    def applies(self, agent: str, team: Team) -> bool:
        """The run's team says which of its agents get these tools."""
        return agent in team.read_tools

    def contribute(self, ctx: PromptContext) -> str | None:
        if ctx.workspace is None:
            return None
        return (
            f"You can read the workspace: {ctx.workspace.source} at commit "
            f"{ctx.workspace.commit[:12]} (read-only). Look before you claim: `search` for the "
            "goal's words and names, `list_files` to see a directory, `read_file` to read the "
            "lines you will cite. Every file reference in your output must name a path that "
            "exists and lines inside that file: references are checked against this commit and "
            "invalid ones are dropped from what later agents see.\n"
            f"Limits: {self.settings.max_calls} tool calls in this step; results are cut at "
            f"{self.settings.result_bytes:,} bytes; files over {self.settings.max_file_bytes:,} "
            "bytes and binary files cannot be read. When the budget is spent you are told to "
            "answer: then answer with what you found."
        )
