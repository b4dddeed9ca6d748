"""Input and output of the agent activity."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field

from agent_interrupts.models.agent_types import AgentName
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.code import WorktreeRef
from agent_interrupts.models.limits import MAX_MODEL_CHARS, MAX_OUTPUT_TOKENS_FACTOR
from agent_interrupts.models.team_spec import TeamPin
from agent_interrupts.models.tools import PinnedWorkspace, ToolRequest, ToolTrace

SUPERVISOR_MESSAGE_PREFIX = "[interrupt requested]"
"""Start of the user message that asks a running agent to interrupt (research R5 step 2)."""


class ContextItem(WireModel):
    """A curated piece of upstream context shown to an agent, with the id it came from."""

    context_id: str
    agent_type: AgentName
    summary: str


class HistoryDigestEntry(WireModel):
    """One blackboard entry without its payload: what prompt contributors may look at."""

    node_id: str
    agent_type: AgentName
    kind: str
    route: str | None = None
    context_id: str


class PreviousContext(WireModel):
    """What an agent did the last time it ran in this workflow (FR-016..018)."""

    context_id: str
    output_excerpt: str = Field(description="The previous output as compact JSON, cut short.")
    route: str | None
    outcome: str = Field(
        description="Why the agent runs again: routed back, interrupted, asked to interrupt ..."
    )
    prior_context_ids: list[str] = Field(default_factory=list)


class AgentCall(WireModel):
    """Run one agent: render its prompt, call the LLM, validate, stamp ids."""

    node_id: str
    agent_type: AgentName
    result_id: str = Field(description="Context id stamped on any result the agent produces.")
    goal: str
    request: dict[str, Any]
    upstream_context_ids: list[str] = Field(default_factory=list)
    context: list[ContextItem] = Field(default_factory=list)
    ask_when_stuck: bool = Field(
        default=False,
        description="Replies that stay invalid come back as ``AgentReply.stuck`` for a person, "
        "instead of failing the call (InvalidLlmReply).",
    )
    user_messages: list[str] = Field(
        default_factory=list, description="Extra user messages appended after the prompt."
    )
    interrupt_resolution: str | None = Field(
        default=None, description="This node's earlier question and its answer, if any."
    )
    previous: PreviousContext | None = Field(
        default=None, description="This agent's previous attempt; null on its first run."
    )
    interrupts_here: int = Field(
        default=0, description="Interrupts this agent type raised so far in the run chain."
    )
    agent_runs: dict[AgentName, int] = Field(
        default_factory=dict,
        description="Calls of each agent type in the run chain before this one: the model may "
        "not route into a phase whose entry agent ran LLM_MAX_PHASE_ROUNDS times.",
    )
    recent: list[HistoryDigestEntry] = Field(
        default_factory=list,
        description="The newest blackboard entries without payloads (most recent last, capped).",
    )
    workspace: PinnedWorkspace | None = Field(
        default=None, description="The run's pinned workspace; null: no tools."
    )
    tool_requests: list[ToolRequest] = Field(
        default_factory=list,
        description="Tool calls the model asked for in earlier rounds of this step, in order.",
    )
    worktree: WorktreeRef | None = Field(
        default=None, description="A ticket agent's own worktree; null: no write tools."
    )
    team: TeamPin | None = Field(
        default=None,
        description="The run's declared team, as pinned at its start; null: the software team.",
    )
    output_tokens_factor: int = Field(
        default=1,
        ge=1,
        le=MAX_OUTPUT_TOKENS_FACTOR,
        description="Times the configured output tokens (LLM_MAX_OUTPUT_TOKENS) this call may "
        "use: a person gave a stuck agent more.",
    )
    model: str | None = Field(
        default=None,
        max_length=MAX_MODEL_CHARS,
        exclude_if=lambda v: v is None,
        description="The model this call uses instead of the worker's (a fork that runs the "
        "step again with another model); null, and left out of the wire form: the worker's.",
    )
    memories_as_of: datetime | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="In a fork, its point's time: recall leaves out the memories retained after "
        "it, but those the fork's own run chain retained; null, and left out of the wire form: "
        "not a fork (or one forked before its point's time was kept).",
    )

    @property
    def workspace_key(self) -> str:
        """The memory space of the run's workspace."""
        return self.workspace.memory_key if self.workspace is not None else ""

    @property
    def supervised(self) -> bool:
        """Whether a supervisor's event asks this call to interrupt (its message is among the
        user messages)."""
        return any(m.startswith(SUPERVISOR_MESSAGE_PREFIX) for m in self.user_messages)


class CallRecord(WireModel):
    """How one LLM call went: enough to price it and to prove an exported example's messages.

    The messages themselves are not stored: they are rendered again from the activity's input
    (recorded in history) with the same templates, and ``messages_sha256`` proves they match.
    """

    model: str
    attempts: int = Field(description="Validation attempts; 1 when the first reply was valid.")
    prompt_tokens: int | None = Field(description="Summed over attempts; null: not reported.")
    completion_tokens: int | None
    latency_ms: int = Field(description="Time spent waiting for the model, all attempts.")
    schema_name: str = Field(description="The structured output's name (its model class).")
    schema_version: str
    messages_sha256: str = Field(description="Fingerprint of the first attempt's messages.")
    template_version: str = Field(description="The prompt template set that rendered them.")
    controller: bool = Field(
        default=False, description="The CONTROLLER_MODEL answered (AGENT_REVIEW, escalations)."
    )


class AgentReply(WireModel):
    """The agent's validated output (camelCase JSON) and how it was obtained."""

    model_config = ConfigDict(extra="ignore")
    """Replies recorded before ``call`` existed carry ``attempts`` and ``model``; ignored."""

    output: dict[str, Any]
    route: str | None
    call: CallRecord | None = Field(
        default=None, description="The LLM call; null in replies recorded before calls were."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="Problems that did not stop the call (a failed contributor).",
    )
    tool_requests: list[ToolRequest] = Field(
        default_factory=list,
        description="Tool calls the model asks for: run another round (``output`` is empty).",
    )
    tool_trace: list[ToolTrace] = Field(
        default_factory=list, description="The tool calls this step ran, in order."
    )
    tool_results: list[str] = Field(
        default_factory=list,
        description="The SHA-256 of each tool result text the answering model call saw, in the "
        "transcript's order: the export reads the texts by them.",
    )
    stuck: str | None = Field(
        default=None,
        description="The replies stayed invalid after every validation attempt, or the prompt did "
        "not fit the model with all optional context dropped: what the model answered and why "
        "it was refused, or the endpoint's refusal (``output`` is empty; a person is asked).",
    )
