"""OrchestratorWorkflow's input, state (the blackboard) and status query result."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from models.agent_types import AgentType
from models.base import WireModel
from models.contexts import CuratedContexts
from models.interrupt_events import InterruptRequestEvent
from models.interrupts import DEFAULT_INTERRUPT_TIMEOUT_SECONDS, TimeoutOutcome
from models.limits import MAX_GOAL_CHARS

DEFAULT_MAX_STEPS = 60


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
    """A curated context derived from a collector's result (spec 003 US3)."""


class HistoryEntry(WireModel):
    """One append-only blackboard entry."""

    node_id: str
    agent_type: AgentType
    kind: EntryKind
    context_id: str
    payload: dict[str, Any]
    route: str | None = None
    upstream_context_ids: list[str] = Field(default_factory=list)
    at: datetime


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
    agent_type: AgentType | None = None
    at: datetime


class NodeRef(WireModel):
    node_id: str
    agent_type: AgentType


class PendingStep(WireModel):
    """The next node to run and the request it consumes."""

    agent_type: AgentType
    request: dict[str, Any]
    upstream_context_ids: list[str] = Field(default_factory=list)
    interrupt_resolution: str | None = None
    """The question this node asked and its answer, when it resumes after an interrupt."""


class OrchestratorState(WireModel):
    """Everything the orchestrator knows; carried across continue-as-new."""

    goal: str
    phase: str = "DISCOVERY"
    max_steps: int
    interrupt_timeout_seconds: int | None = DEFAULT_INTERRUPT_TIMEOUT_SECONDS
    on_interrupt_timeout: TimeoutOutcome = TimeoutOutcome.ESCALATE_TO_AGENT_REVIEW
    steps_taken: int = 0
    next_seq: int = 1
    pending: PendingStep | None = None
    current: NodeRef | None = None
    pending_interrupt: PendingInterrupt | None = None
    interrupts_started: int = 0
    history: list[HistoryEntry] = Field(default_factory=list)
    events: list[GraphEvent] = Field(default_factory=list)
    """The newest events (at most ``MAX_EVENTS``)."""
    events_recorded: int = 0
    """Every event ever recorded, including those no longer kept."""
    stored_events: dict[str, InterruptRequestEvent] = Field(default_factory=dict)
    """Supervisor events by the node id they asked to interrupt; consumed by its interrupt."""
    curated: CuratedContexts = Field(default_factory=CuratedContexts)
    """The latest curated context of each phase, handed to the requests that take it."""
    processed_event_ids: list[str] = Field(default_factory=list)
    """Ids of the events taken (the newest ``MAX_REMEMBERED_EVENT_IDS``), so a supervisor's retry
    is not processed twice."""


class OrchestratorInput(WireModel):
    """Start input: ``{"goal": "..."}``; the other fields are optional."""

    goal: str = Field(
        max_length=MAX_GOAL_CHARS,
        description=f"What the agents should achieve (at most {MAX_GOAL_CHARS} characters).",
    )
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, ge=1, le=10_000)
    interrupt_timeout_seconds: int | None = Field(
        default=DEFAULT_INTERRUPT_TIMEOUT_SECONDS,
        ge=1,
        description="How long an interrupt waits for a person; null waits forever.",
    )
    on_interrupt_timeout: TimeoutOutcome = TimeoutOutcome.ESCALATE_TO_AGENT_REVIEW
    continue_as_new_every: int | None = Field(
        default=None,
        ge=1,
        description="Continue-as-new after this many steps per run; null: when the server says.",
    )
    carried_state: OrchestratorState | None = None

    @field_validator("goal")
    @classmethod
    def _goal_not_blank(cls, goal: str) -> str:
        if not goal.strip():
            raise ValueError('goal is empty: start the workflow with {"goal": "<what to achieve>"}')
        return goal.strip()


class PendingInterrupt(WireModel):
    """The interrupt the orchestrator is waiting on."""

    workflow_id: str
    origin_agent_type: AgentType
    reroute_to_agent_type: AgentType | None = None
    request: dict[str, Any]


class OrchestratorStatus(WireModel):
    """Result of the ``status`` query (DESIGN.md section 5)."""

    workflow_id: str
    phase: str
    current_node: NodeRef | None
    pending_interrupt: PendingInterrupt | None
    steps_taken: int
    max_steps: int
    history: list[HistoryEntry]
    events: list[GraphEvent]
    events_recorded: int
    """How many events were ever recorded; ``events`` holds the newest of them."""
    stored_events: dict[str, InterruptRequestEvent]
