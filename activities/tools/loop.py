"""One round of an agent's tool loop, on the activity side.

Where the loop lives: in the workflow (``workflows/supervised_call.py``), one ``run_agent``
activity per model call. A round's activity gets the step's earlier tool requests (names and
arguments only), *recomputes* their results from the pinned, read-only workspace (memory writes
are keyed by call id, so they happen once; a ticket agent's worktree is reset to the step's base
and its edits applied again in order, verification runs are cached by content), asks the model
once, and returns either the output or the next tool requests with the trace of the calls it ran
first. So a worker crash repeats at most
the one model call in flight, and tool results never enter history or workflow state.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_interrupts.activities.llm import ToolCallsRequested
from agent_interrupts.activities.tools import gitwork
from agent_interrupts.activities.tools.catalog import Tool, ToolContext, tools_for
from agent_interrupts.activities.tools.memory import MemoryStore, open_memory
from agent_interrupts.activities.tools.references import check_references
from agent_interrupts.activities.tools.results import ToolResultStore
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.transcript import (
    BUDGET_SPENT,
    in_rounds,
    spent,
    tool_transcript,
)
from agent_interrupts.activities.tools.workspace import ToolError, Workspace, checkout, served_here
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.errors import InvalidLlmReply, describe_validation_error
from agent_interrupts.models.team import Team
from agent_interrupts.models.tools import MAX_TOOL_ARGUMENT_CHARS, ToolRequest, ToolTrace


class Toolbox:
    """A worker's tools: its settings, workspaces and (opened on first use) memory store."""

    def __init__(self, settings: ToolSettings, memory: MemoryStore | None = None) -> None:
        self.settings = settings
        self._memory = memory
        self._results = ToolResultStore(settings.tool_results)

    def memory(self) -> MemoryStore:
        if self._memory is None:
            self._memory = open_memory(self.settings.memory, self.settings.recall_window)
        return self._memory

    async def round(self, call: AgentCall, team: Team) -> ToolRound:
        """This call's round: earlier rounds' results recomputed; no tools without a workspace.
        ``team``: the call's team (its agents' tools)."""
        if call.workspace is None:
            return ToolRound(call, None, [], self.memory, self.settings, self._results)
        if call.worktree is not None:  # a ticket agent's edits are applied again from its base
            await served_here(gitwork.reset, call.worktree)
            root = Path(call.worktree.path)
        else:
            root = await served_here(checkout, call.workspace, self.settings.workspace_cache)
        workspace = Workspace(root, call.workspace, self.settings)
        tools = tools_for(call.agent_type, writes=call.worktree is not None, team=team)
        step = ToolRound(call, workspace, tools, self.memory, self.settings, self._results)
        await step.replay()
        return step


@dataclass
class ToolRound:
    """The transcript of a step's earlier tool rounds, what to offer now, and the trace."""

    call: AgentCall
    workspace: Workspace | None
    tools: list[Tool]
    memory: Callable[[], MemoryStore]
    settings: ToolSettings
    results: ToolResultStore
    """Where each result text is kept by its hash, for the export."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """Assistant tool calls and tool results of the earlier rounds, then any budget notice."""
    trace: list[ToolTrace] = field(default_factory=list)
    """The calls of the newest round, which this activity ran first."""
    result_shas: list[str] = field(default_factory=list)
    """The SHA-256 of every result text in ``messages``, in order (kept in ``results``)."""

    @property
    def spent(self) -> int:
        return spent(self.call.tool_requests)

    @property
    def offer(self) -> dict[str, Any] | None:
        """The ``tools`` and ``tool_choice`` of this model call, or None."""
        if not self.tools:
            return None
        choice = "auto" if self.spent < self.settings.max_calls else "none"
        return {"tools": [t.schema for t in self.tools], "tool_choice": choice}

    async def replay(self) -> None:
        """Rebuild the transcript: run every earlier request again, tracing the newest round."""
        requests = in_rounds(self.call.tool_requests)
        newest = requests[-1].round if requests else -1
        by_name = {t.name: t for t in self.tools}
        texts = []
        for request in requests:
            text, trace = await self._run(by_name.get(request.tool), request)
            texts.append(text)
            self.result_shas.append(trace.result_sha256)
            if request.round == newest:
                self.trace.append(trace)
        self.messages = tool_transcript(requests, texts, self.settings.max_calls)

    def requested(self, asked: ToolCallsRequested) -> list[ToolRequest]:
        """The model's new tool calls as requests; those past the budget are marked."""
        if self.spent >= self.settings.max_calls:
            raise InvalidLlmReply(
                f"{self.call.agent_type}: the model {asked.model!r} kept calling tools after the "
                f"step's budget of {self.settings.max_calls} calls (AGENT_TOOL_CALLS) was spent "
                "and it was told to answer; choose a model that follows tool_choice (AGENT_MODEL)"
            )
        number = self.call.tool_requests[-1].round + 1 if self.call.tool_requests else 0
        left = self.settings.max_calls - self.spent
        return [
            ToolRequest(
                call_id=call_id[:200],
                tool=name[:100],
                arguments=arguments[:MAX_TOOL_ARGUMENT_CHARS],
                round=number,
                over_budget=i >= left,
            )
            for i, (call_id, name, arguments) in enumerate(asked.calls)
        ]

    def check(self, output: WireModel) -> None:
        """Check the output's file references against the pinned workspace (marks, in place)."""
        if self.workspace is not None:
            check_references(output, self.workspace)

    async def _run(self, tool: Tool | None, request: ToolRequest) -> tuple[str, ToolTrace]:
        started = time.perf_counter()
        error = None
        try:
            text = await asyncio.to_thread(self._execute, tool, request)
        except ToolError as err:
            error = str(err)
            text = f"error: {error}"
        except OSError as err:  # the file system refused: the model is told, the step goes on
            error = f"the file system refused: {err.strerror or err}"
            text = f"error: {error}"
        text = _cut(text, self.settings.result_bytes)
        sha = await asyncio.to_thread(self.results.put, text)
        return text, ToolTrace(
            call_id=request.call_id,
            tool=request.tool,
            arguments=request.arguments,
            result_bytes=len(text.encode()),
            result_sha256=sha,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
            error=error,
        )

    def _execute(self, tool: Tool | None, request: ToolRequest) -> str:
        if request.over_budget:
            raise ToolError(BUDGET_SPENT.format(limit=self.settings.max_calls))
        if tool is None or self.workspace is None:
            offered = ", ".join(t.name for t in self.tools)
            raise ToolError(f"there is no tool {request.tool!r}; use one of: {offered}")
        try:
            args = tool.args.model_validate(json.loads(request.arguments or "{}"))
        except (ValueError, ValidationError) as err:
            problem = (
                describe_validation_error(err) if isinstance(err, ValidationError) else str(err)
            )
            raise ToolError(f"invalid arguments for {tool.name}: {problem}") from None
        context = ToolContext(self.workspace, self.call, self.memory, request.call_id)
        return tool.run(context, args)


def _cut(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    note = f"\n[... cut at {limit:,} bytes (AGENT_TOOL_RESULT_BYTES): ask for less]"
    return data[:limit].decode(errors="ignore") + note
