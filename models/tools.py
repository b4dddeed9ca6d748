"""Workspaces and tool calls as they cross the activity boundary.

Only small things travel: the pinned commit, the tool calls a model asked for (name and
arguments) and their trace (sizes, hashes, latencies). Tool results never do: an agent activity
recomputes them from the pinned workspace, which is read-only, so they stay out of history.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from agent_interrupts.models.base import WireModel

MAX_TOOL_ARGUMENT_CHARS = 16_000
"""The arguments of one tool call as the model wrote them (JSON text); longer ones are cut (and
so refused as invalid JSON). Large enough for a ticket agent's file write."""


class WorkspaceSpec(WireModel):
    """Start input ``workspace``: a local directory or a git URL, and an optional ref."""

    source: str = Field(min_length=1, max_length=2_000, description="A local path or a git URL.")
    ref: str | None = Field(
        default=None, max_length=200, description="Branch, tag or commit; default: HEAD."
    )
    test_command: str | None = Field(
        default=None,
        max_length=500,
        description="The ticket agents' verification command (a shell line run in the "
        "sandbox); default: taken from the workspace (e.g. pytest).",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        return {"source": value} if isinstance(value, str) else value


class PinnedWorkspace(WireModel):
    """The workspace of a run, pinned to one commit (the pin activity's result, in history)."""

    source: str
    commit: str = Field(description="The full commit id every step of the run reads.")
    memory_key: str = Field(description="Names the episodic memory shared by runs of this source.")
    test_command: str | None = Field(
        default=None, description="The verification command; null: none found or given."
    )


class ToolRequest(WireModel):
    """One tool call a model asked for, as the next round's transcript needs it."""

    call_id: str = Field(max_length=200)
    tool: str = Field(max_length=100)
    arguments: str = Field(max_length=MAX_TOOL_ARGUMENT_CHARS)
    round: int = Field(default=0, ge=0, description="The model call of the step that asked.")
    over_budget: bool = False
    """Asked for after the step's budget was spent: answered with the budget message, not run."""


class ToolTrace(WireModel):
    """What one tool call did: enough to audit and export it, not its result."""

    call_id: str
    tool: str
    arguments: str
    result_bytes: int
    result_sha256: str
    latency_ms: float
    error: str | None = None
