"""OrchestratorWorkflow's input, state (the blackboard) and status query result."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from agent_interrupts.models.agent_types import AgentName
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.code import CodeState
from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.forks import ForkLink
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import (
    DEFAULT_INTERRUPT_TIMEOUT_SECONDS,
    InterruptResolution,
    TimeoutOutcome,
)
from agent_interrupts.models.limits import MAX_GOAL_CHARS
from agent_interrupts.models.team_spec import TEAM_NAME_PATTERN, TeamPin
from agent_interrupts.models.tools import PinnedWorkspace, ToolTrace, WorkspaceSpec
from agent_interrupts.teams.software.contexts import CuratedContexts

DEFAULT_MAX_STEPS = 60
DEFAULT_QUESTION_GATHER_SECONDS = 0.0
"""How long a dispatched agent's question, asked while others still run, waits for others that
ask at nearly the same moment; then a person sees it, whatever the others do.
0: at once (agents whose answers arrive together still share it); a 0.5 s wait made a person see
the question 1.2 s after it was asked instead of 0.2 s (``bench.question_visibility``)."""


class EntryKind(StrEnum):
    REQUEST = "REQUEST"
    """A node was scheduled with this request."""
    OUTPUT = "OUTPUT"
    """An agent's validated output (a Routing, or a dispatched agent's result)."""
    INTERRUPT = "INTERRUPT"
    """An interrupt request and the InterruptWorkflow that handles it."""
    RESOLUTION = "RESOLUTION"
    """The routing an interrupt resolution was translated into."""
    CONTEXT = "CONTEXT"
    """A curated context derived from a collector's result (agents US3)."""


class HistoryEntry(WireModel):
    """One append-only blackboard entry.

    ``payload`` is kept only for the newest entries (``workflows/blackboard.py``); every payload
    stays readable in the run chain's histories (the activity inputs and results).
    """

    index: int = 0
    """Position on the run chain's blackboard, from 0; paged queries start at an index."""
    node_id: str
    agent_type: AgentName
    kind: EntryKind
    context_id: str
    summary: str = ""
    """One short line: a result's summary, or where the entry routed."""
    payload: dict[str, Any] | None = None
    route: str | None = None
    upstream_context_ids: list[str] = Field(default_factory=list)
    at: datetime
    tool_calls: list[ToolTrace] = Field(default_factory=list)
    """An OUTPUT's tool calls (tool, arguments, result size and hash, latency), while its payload
    is kept; ``read_blackboard(payloads=True)`` reads older ones back from history."""
    tool_call_count: int = 0


class LastOutput(WireModel):
    """An agent type's latest output, compact: what its next attempt's prompt shows."""

    context_id: str
    route: str | None
    excerpt: str
    """The output as compact JSON, cut to a bounded length."""
    prior_context_ids: list[str] = Field(default_factory=list)


class EventKind(StrEnum):
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    INTERRUPT_STATUS = "INTERRUPT_STATUS"


class GraphEvent(WireModel):
    """Something worth telling an operator: progress, warnings, errors, interrupt status."""

    kind: EventKind
    message: str
    node_id: str | None = None
    agent_type: AgentName | None = None
    at: datetime


class NodeRef(WireModel):
    node_id: str
    agent_type: AgentName


class PendingStep(WireModel):
    """The next node to run and the request it consumes."""

    agent_type: AgentName
    request: dict[str, Any]
    upstream_context_ids: list[str] = Field(default_factory=list)
    interrupt_resolution: str | None = None
    """The question this node asked and its answer, when it resumes after an interrupt."""
    resolution: InterruptResolution | None = None
    """The answer itself, when it resumes after an interrupt (the merge applies it)."""
    held: list[HeldAgent] = Field(default_factory=list)
    """A dispatch node resuming after its interrupt: its fan-out, so finished agents are not run
    again and each agent that asked runs with its own answer (``workflows/lifting.py``)."""
    output_tokens_factor: int = 1
    """Times its configured output tokens the node's call may use (a person gave more)."""
    model: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The model the node's call uses instead of the worker's: set by a fork that runs the
    step again with another model (``docs/forks.md``); left out of the wire form while unset."""


class HandedOverQuestion(WireModel):
    """A question the orchestrator asked back from its InterruptWorkflow, unanswered, because its
    own history grew long while it waited (a flood of signals): the next run asks it again, under
    the same workflow id, continuing the wait (its deadline, reminders and events)."""

    child_id: str
    job: dict[str, Any]
    """The InterruptInput to ask it again with (its wire form, ``carried`` set)."""
    fan_out: list[HeldAgent] = Field(default_factory=list)
    """The asking dispatch node's agents as they were held (finished ones are not run again)."""
    requests: dict[AgentName, dict[str, Any]] = Field(default_factory=dict)
    """The newest request of each agent the answer may re-route to: the carried blackboard
    keeps few payloads."""


class OrchestratorState(WireModel):
    """Everything the orchestrator knows; carried across continue-as-new."""

    goal: str
    team: TeamPin | None = None
    """The team the run follows, pinned at its start (None: the software team, in runs recorded
    before teams were pinned)."""
    phase: str = "DISCOVERY"
    max_steps: int
    interrupt_timeout_seconds: int | None = DEFAULT_INTERRUPT_TIMEOUT_SECONDS
    on_interrupt_timeout: TimeoutOutcome = TimeoutOutcome.ESCALATE_TO_AGENT_REVIEW
    fail_on_invalid_replies: bool = False
    fail_on_step_limit: bool = False
    question_gather_seconds: float = DEFAULT_QUESTION_GATHER_SECONDS
    shadow_answers: bool = False
    controller_autonomy: bool = False
    step_budget: int | None = None
    """Steps a person grants at a time when the run uses up its budget (the start's maxSteps;
    None in runs recorded before a used-up budget asked a person)."""
    steps_taken: int = 0
    next_seq: int = 1
    pending: PendingStep | None = None
    current: NodeRef | None = None
    pending_interrupt: PendingInterrupt | None = None
    interrupts_started: int = 0
    history: list[HistoryEntry] = Field(default_factory=list)
    """This run's entries (and a few carried from the run before); payloads only for the newest."""
    entries_recorded: int = 0
    """Entries ever recorded on the run chain: the next entry's index."""
    last_outputs: dict[AgentName, LastOutput] = Field(default_factory=dict)
    interrupt_counts: dict[AgentName, int] = Field(default_factory=dict)
    """Interrupts raised per agent type in the run chain (the loop breaker reads it)."""
    agent_runs: dict[AgentName, int] = Field(default_factory=dict)
    """Agent calls per agent type in the run chain: a model's routes into a phase close when its
    entry agent ran LLM_MAX_PHASE_ROUNDS times (``activities/route_filter.closed_routes``)."""
    stuck_counts: dict[AgentName, int] = Field(default_factory=dict)
    """Questions asked because an agent could not finish its step, per agent type in the run
    chain: a later one offers another way out (``workflows/stuck_questions.py``)."""
    events: list[GraphEvent] = Field(default_factory=list)
    """The newest events (at most ``MAX_EVENTS``)."""
    events_recorded: int = 0
    """Every event ever recorded, including those no longer kept."""
    stored_events: dict[str, InterruptRequestEvent] = Field(default_factory=dict)
    """Supervisor events by the node id they asked to interrupt; consumed by its interrupt."""
    curated: CuratedContexts = Field(default_factory=CuratedContexts)
    """The latest curated context of each phase, handed to the requests that take it."""
    workspace: PinnedWorkspace | None = None
    """The run's workspace pinned to a commit (the pin activity's result), if it has one."""
    code: CodeState = Field(default_factory=CodeState)
    """The run's ticket branches, worktrees and merge."""
    processed_event_ids: list[str] = Field(default_factory=list)
    """Ids of the events taken (the newest ``MAX_REMEMBERED_EVENT_IDS``), so a supervisor's retry
    is not processed twice."""
    handed_over: HandedOverQuestion | None = None
    """The question the run before this one left unanswered when it continued as new."""
    open_questions: list[HandedOverQuestion] = Field(default_factory=list)
    """A dispatch node's questions the run before left open when it continued as new while
    they waited (``pending`` holds the node and its fan-out); the node asks them again."""
    fork: ForkLink | None = Field(default=None, exclude_if=lambda v: v is None)
    """The parent and point this run was forked from (``docs/forks.md``); None: not a fork.
    Left out of the wire form while unset, so carried states recorded before keep their JSON."""


class OrchestratorInput(WireModel):
    """Start input: ``{"goal": "..."}``; the other fields are optional."""

    goal: str = Field(
        max_length=MAX_GOAL_CHARS,
        description=f"What the agents should achieve (at most {MAX_GOAL_CHARS} characters).",
    )
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, ge=1, le=1_000_000)
    interrupt_timeout_seconds: int | None = Field(
        default=DEFAULT_INTERRUPT_TIMEOUT_SECONDS,
        ge=1,
        description="How long an interrupt waits for a person; null waits forever.",
    )
    on_interrupt_timeout: TimeoutOutcome = TimeoutOutcome.ESCALATE_TO_AGENT_REVIEW
    fail_on_invalid_replies: bool = Field(
        default=False,
        description="An agent whose replies stay invalid (InvalidLlmReply), or whose model call "
        "fails on every attempt (endpoint down or hanging, a reply too large), fails the run; "
        "false: a person is asked at that node instead.",
    )
    fail_on_step_limit: bool = Field(
        default=False,
        description="A run that takes maxSteps agent steps fails (StepLimitExceeded); "
        "false: a person is asked whether it gets maxSteps more or stops.",
    )
    question_gather_seconds: float = Field(
        default=DEFAULT_QUESTION_GATHER_SECONDS,
        ge=0,
        le=3600,
        description="When a dispatched agent asks while others still run, how long its question "
        "waits for others that ask at nearly the same moment before a person sees it.",
    )
    shadow_answers: bool = Field(
        default=False,
        description="Every question a person answers is also answered by the controller model "
        "(CONTROLLER_MODEL) in the background, recorded beside the person's answer and never "
        "acted on; agents stats shows how often the two agree.",
    )
    controller_autonomy: bool = Field(
        default=False,
        description="The controller model answers a question itself when the worker's "
        "AGENT_AUTONOMY_POLICY names its kind and its shadow answers agreed with people's often "
        "enough; marked CONTROLLER_AUTONOMY, and a person may still overrule it.",
    )
    continue_as_new_every: int | None = Field(
        default=None,
        ge=1,
        description="Continue-as-new after this many steps per run; null: when the server says.",
    )
    team: str | None = Field(
        default=None,
        pattern=TEAM_NAME_PATTERN,
        description="The team that does the work: one a worker serves (AGENTS_TEAMS, or shipped "
        "in the package); null: the software team.",
    )
    workspace: WorkspaceSpec | None = Field(
        default=None,
        description="A local git directory or a git URL (and ref) the agents may read; "
        "null: agents run without tools.",
    )
    carried_state: OrchestratorState | None = None
    fork: ForkLink | None = Field(default=None, exclude_if=lambda v: v is None)
    """Set by ``agents fork`` / ``client.fork``: the run starts from ``carriedState``, its
    parent's state at ``fork.point`` (``docs/forks.md``)."""

    @field_validator("goal")
    @classmethod
    def _goal_not_blank(cls, goal: str) -> str:
        if not goal.strip():
            raise ValueError('goal is empty: start the workflow with {"goal": "<what to achieve>"}')
        return goal.strip()


class PendingInterrupt(WireModel):
    """The interrupt the orchestrator is waiting on."""

    workflow_id: str
    origin_agent_type: AgentName
    reroute_to_agent_type: AgentName | None = None
    request: dict[str, Any]


class OrchestratorStatus(WireModel):
    """Result of the ``status`` query: a public shape that clients and tests read."""

    workflow_id: str
    phase: str
    current_node: NodeRef | None
    pending_interrupt: PendingInterrupt | None
    steps_taken: int
    max_steps: int
    history: list[HistoryEntry]
    """The newest entries; older ones come from the ``history_page`` query."""
    entries_recorded: int = 0
    """How many entries the run chain's blackboard holds in all."""
    interrupt_counts: dict[AgentName, int] = Field(default_factory=dict)
    events: list[GraphEvent]
    events_recorded: int
    """How many events were ever recorded; ``events`` holds the newest of them."""
    stored_events: dict[str, InterruptRequestEvent]
    code: CodeState | None = None
    """The run's ticket branches, worktrees on disk (kept when it fails) and merge."""
    team: TeamPin | None = None
    """The declared team the run follows, as pinned at its start; None: the software team."""
    fork: ForkLink | None = Field(default=None, exclude_if=lambda v: v is None)
    """The parent and point this run was forked from; None (left out): not a fork."""


class HistoryPageRequest(WireModel):
    """Argument of the ``history_page`` query."""

    start: int = Field(default=0, ge=0, description="Index of the first entry wanted.")
    limit: int = Field(default=100, ge=1, le=500)


class HistoryPage(WireModel):
    """Entries ``start`` .. of the blackboard that this run still holds."""

    entries: list[HistoryEntry]
    first_held: int
    """The lowest index this run holds; older entries are in earlier runs of the chain."""
    total: int
    """``entriesRecorded``: the index the next entry will get."""
