"""The tools agents are offered, grouped with the prompt contributor each group registers.

A tool is its strict argument model (the function schema the model sees), the agent types that
get it, and a function from a ``ToolContext`` and its arguments to the result text. A group's
contributor applies to exactly the group's agents and speaks only when the call has a workspace,
so guidance is present exactly when the tool is (agents FR-002, SC-009).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent_interrupts.activities.contributors.base import PromptContributor
from agent_interrupts.activities.contributors.code_changes import CodeChangesContributor
from agent_interrupts.activities.contributors.code_tools import CodeToolsContributor
from agent_interrupts.activities.contributors.episodic_memory import EpisodicMemoryContributor
from agent_interrupts.activities.tools import code_tools, write_tools
from agent_interrupts.activities.tools.memory import AsOf, Memory, MemoryStore
from agent_interrupts.activities.tools.settings import LIST_ENTRIES, SEARCH_HITS, ToolSettings
from agent_interrupts.activities.tools.verification import describe, verify
from agent_interrupts.activities.tools.workspace import ToolError, Workspace
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.ids import parse_context_id
from agent_interrupts.models.team import Team


@dataclass
class ToolContext:
    """What a tool call may use: the workspace, the memory, and the agent call it serves."""

    workspace: Workspace
    call: AgentCall
    memory_store: Callable[[], MemoryStore]
    call_id: str = ""

    @cached_property
    def memory(self) -> MemoryStore:
        return self.memory_store()

    @property
    def key(self) -> str:
        """Idempotency key of a write: the step's result id and the model's tool call id."""
        return f"{self.call.result_id}/{self.call_id}"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListFilesArgs(_Args):
    glob: str | None = Field(description="A glob such as 'src/**/*.py'; null lists every file.")


class ReadFileArgs(_Args):
    path: str = Field(description="A path relative to the workspace root, as list_files shows.")
    start_line: int | None = Field(description="First line (1-based); null: the first.")
    end_line: int | None = Field(description="Last line (inclusive); null: the last.")


class SearchArgs(_Args):
    pattern: str = Field(description="A regular expression (case-insensitive), or literal text.")
    literal: bool = Field(description="true: match the pattern as plain text.")
    glob: str | None = Field(description="Only files matching this glob, e.g. '*.py'; or null.")


class WriteFileArgs(_Args):
    path: str = Field(description="A path relative to the worktree root; made if missing.")
    content: str = Field(description="The file's whole new content.")


class ReplaceSnippetArgs(_Args):
    path: str = Field(description="A file of the worktree.")
    old: str = Field(description="Exact text that occurs exactly once in the file.")
    new: str = Field(description="The text that replaces it.")


class ReplaceLinesArgs(_Args):
    path: str = Field(description="A file of the worktree.")
    start_line: int = Field(description="First line replaced (1-based).")
    end_line: int = Field(description="Last line replaced (inclusive); start_line - 1 inserts.")
    new: str = Field(description="The lines that replace them (may be empty).")


class DeleteFileArgs(_Args):
    path: str = Field(description="The file to delete.")


class RunVerificationArgs(_Args):
    pass


class RecallArgs(_Args):
    query: str = Field(description="Words describing what you want to remember.")


class RetainArgs(_Args):
    content: str = Field(description="The finding or decision, and why it matters.")
    files: list[str] = Field(description="Workspace paths it concerns (may be empty).")
    context_ids: list[str] = Field(description="Context ids it came from (may be empty).")


class ReflectArgs(_Args):
    memory_ids: list[int] = Field(description="Ids of the memories this insight connects.")
    insight: str = Field(description="What connects them: confirms, contradicts, explains ...")


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[_Args]
    run: Callable[[ToolContext, Any], str]

    @cached_property
    def schema(self) -> dict[str, Any]:
        """The strict OpenAI function tool for this tool."""
        import openai  # loaded where a call needs it: a CLI command need not load the SDK

        return dict(
            openai.pydantic_function_tool(self.args, name=self.name, description=self.description)
        )


def _list_files(ctx: ToolContext, a: ListFilesArgs) -> str:
    return code_tools.list_files(ctx.workspace, a.glob)


def _read_file(ctx: ToolContext, a: ReadFileArgs) -> str:
    return code_tools.read_file(ctx.workspace, a.path, a.start_line, a.end_line)


def _search(ctx: ToolContext, a: SearchArgs) -> str:
    return code_tools.search(ctx.workspace, a.pattern, a.literal, a.glob)


def _write_file(ctx: ToolContext, a: WriteFileArgs) -> str:
    return write_tools.write_file(ctx.workspace, a.path, a.content)


def _replace_snippet(ctx: ToolContext, a: ReplaceSnippetArgs) -> str:
    return write_tools.replace_snippet(ctx.workspace, a.path, a.old, a.new)


def _replace_lines(ctx: ToolContext, a: ReplaceLinesArgs) -> str:
    return write_tools.replace_lines(ctx.workspace, a.path, a.start_line, a.end_line, a.new)


def _delete_file(ctx: ToolContext, a: DeleteFileArgs) -> str:
    return write_tools.delete_file(ctx.workspace, a.path)


def _run_verification(ctx: ToolContext, a: RunVerificationArgs) -> str:
    command = ctx.call.workspace.test_command if ctx.call.workspace else None
    return describe(verify(ctx.workspace.root, command, ctx.workspace.settings))


def recall_bounds(call: AgentCall) -> tuple[float | None, AsOf | None]:
    """What a step's recall sees: memories retained before the step was scheduled (its context
    id's time), so a recomputed recall (next round, a retry) gives the same answer although this
    step and its siblings retain meanwhile; in a fork (``memories_as_of``), of those only the
    ones retained before its point or by its own run chain (the run its context id names)."""
    try:
        run, _, _, at = parse_context_id(call.result_id)
    except ValueError:
        return None, None
    point = call.memories_as_of
    return at.timestamp(), AsOf(point.timestamp(), run) if point is not None else None


def _recall(ctx: ToolContext, a: RecallArgs) -> str:
    """The memories a step sees (``recall_bounds``) that best match the query."""
    before, as_of = recall_bounds(ctx.call)
    found = ctx.memory.recall(ctx.call.workspace_key, a.query, before=before, as_of=as_of)
    if not found.memories:
        return f"no memories match {a.query!r}"
    lines = [_memory_line(m) for m in found.memories]
    if found.linked:
        lines += ["linked memories:", *(_memory_line(m) for m in found.linked)]
    return "\n".join(lines)


def _memory_line(m: Memory) -> str:
    files = f" files: {', '.join(m.files)}" if m.files else ""
    links = f" linked: {', '.join(map(str, m.linked))}" if m.linked else ""
    return f"#{m.id} [{m.kind} by {m.agent} at {m.node_id}]{files}{links}: {m.content}"


def _retain(ctx: ToolContext, a: RetainArgs) -> str:
    if not a.content.strip():
        raise ToolError("retain needs non-empty content")
    memory_id = ctx.memory.retain(
        ctx.key,
        ctx.call.workspace_key,
        a.content,
        agent=str(ctx.call.agent_type),
        node_id=ctx.call.node_id,
        context_ids=[*a.context_ids, ctx.call.result_id],
        files=a.files,
    )
    return json.dumps({"retained": memory_id})


def _reflect(ctx: ToolContext, a: ReflectArgs) -> str:
    try:
        insight = ctx.memory.reflect(
            ctx.key,
            ctx.call.workspace_key,
            a.memory_ids,
            a.insight,
            agent=str(ctx.call.agent_type),
            node_id=ctx.call.node_id,
            context_ids=[ctx.call.result_id],
        )
    except ValueError as err:
        raise ToolError(str(err)) from None
    return json.dumps({"insight": insight, "linked": sorted(set(a.memory_ids))})


CODE_TOOLS = (
    Tool(
        "list_files",
        f"List files of the workspace (a git commit, read-only) matching a glob; at most "
        f"{LIST_ENTRIES} paths.",
        ListFilesArgs,
        _list_files,
    ),
    Tool(
        "read_file",
        "Read a line range of a text file of the workspace, with line numbers.",
        ReadFileArgs,
        _read_file,
    ),
    Tool(
        "search",
        f"Search the workspace's files (ripgrep): matching lines as path:line: text; at most "
        f"{SEARCH_HITS} hits.",
        SearchArgs,
        _search,
    ),
)
WRITE_TOOLS = (
    Tool("write_file", "Create or overwrite a file of your worktree.", WriteFileArgs, _write_file),
    Tool(
        "replace_snippet",
        "Replace text that occurs exactly once in a file of your worktree.",
        ReplaceSnippetArgs,
        _replace_snippet,
    ),
    Tool(
        "replace_lines",
        "Replace a line range of a file of your worktree (or insert before a line).",
        ReplaceLinesArgs,
        _replace_lines,
    ),
    Tool("delete_file", "Delete a file of your worktree.", DeleteFileArgs, _delete_file),
    Tool(
        "run_verification",
        "Run the run's test command on your worktree in a sandbox; exit status, counts and the "
        "end of the output.",
        RunVerificationArgs,
        _run_verification,
    ),
)
MEMORY_TOOLS = (
    Tool(
        "memory_recall",
        "Recall episodes and insights of earlier steps and runs on this workspace.",
        RecallArgs,
        _recall,
    ),
    Tool(
        "memory_retain",
        "Retain a finding or decision with its files and context ids.",
        RetainArgs,
        _retain,
    ),
    Tool(
        "memory_reflect",
        "Link memories with an insight (the knowledge-graph step).",
        ReflectArgs,
        _reflect,
    ),
)


@dataclass(frozen=True)
class ToolGroup:
    """Tools and the prompt contributor they register (which agents get them: ``tools_for``)."""

    tools: tuple[Tool, ...]
    contributor: PromptContributor


def tool_groups(settings: ToolSettings) -> tuple[ToolGroup, ...]:
    """The tool groups, each with the prompt contributor it registers."""
    return (
        ToolGroup(MEMORY_TOOLS, EpisodicMemoryContributor()),
        ToolGroup(CODE_TOOLS, CodeToolsContributor(settings)),
        ToolGroup(WRITE_TOOLS, CodeChangesContributor(settings)),
    )


def tools_for(agent: str, *, writes: bool = False, team: Team) -> list[Tool]:
    """The tools ``agent`` of ``team`` is offered when its run has a workspace: the read tools
    to the team's ``read_tools``, the write tools to its ``write_tools`` (``tools = ["write"]``
    in a team file) only with a worktree of their own (``writes``)."""
    groups: list[tuple[tuple[Tool, ...], Collection[str]]] = [
        (CODE_TOOLS, team.read_tools),
        (MEMORY_TOOLS, team.nodes),
    ]
    if writes:
        groups.append((WRITE_TOOLS, team.write_tools))
    return [tool for tools, agents in groups if agent in agents for tool in tools]
