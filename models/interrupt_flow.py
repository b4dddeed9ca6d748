"""Inputs, outputs and status of InterruptWorkflow and its activities."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from pydantic import Field

from agent_interrupts.models.agent_call import CallRecord
from agent_interrupts.models.agent_types import AgentName
from agent_interrupts.models.answer_rules import Answerers
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import (
    DEFAULT_INTERRUPT_TIMEOUT_SECONDS,
    InterruptResolution,
    OptionKey,
    TimeoutOutcome,
)
from agent_interrupts.models.state import GraphEvent
from agent_interrupts.models.team_spec import TeamPin
from agent_interrupts.teams.software.questions import AnyInterruptRequest

RESOLVE_SIGNAL = "resolve"
"""InterruptWorkflow's signal that carries a resolution (Temporal UI / CLI)."""
HAND_OVER_SIGNAL = "__hand_over"
"""Sent by the orchestrator whose history grew long while its question waited: an unanswered
question ends (failure type ``QuestionHandedOver``, its details the job to continue waiting with)
and the orchestrator's next run asks it again under the same id. Not listed in the UI: it is not
for people."""
HANDED_OVER = "QuestionHandedOver"


class InterruptState(StrEnum):
    """InterruptStatusEvent values (handler FR-012)."""

    REQUESTED = "REQUESTED"
    WAITING = "WAITING"
    """Waiting for a person's answer."""
    TIMED_OUT = "TIMED_OUT"
    ESCALATED = "ESCALATED"
    """A reviewing LLM is answering (AGENT_REVIEW, or after the deadline); a person's valid answer
    that arrives before the reviewer's still wins."""
    RESOLVED = "RESOLVED"
    HANDED_OVER = "HANDED_OVER"
    """Handed back unanswered to its run, which asks it again under the same id."""


class InterruptCarried(WireModel):
    """What a waiting InterruptWorkflow carries when it continues as new (its history grew long,
    e.g. under a flood of signals): the question stays the same, so does its deadline."""

    deadline: datetime | None
    hooks_applied: list[str]
    events: list[GraphEvent]
    events_recorded: int


class InterruptInput(WireModel):
    """Everything the unified handler needs; built by the orchestrator."""

    orchestrator_id: str
    goal: str
    request: AnyInterruptRequest
    origin: AgentName
    origin_node_id: str
    origin_request: dict[str, Any]
    reroute_to: AgentName | None = None
    event: InterruptRequestEvent | None = None
    """The supervisor's event that asked for this interrupt, if any (handler US3)."""
    timeout_seconds: int | None = DEFAULT_INTERRUPT_TIMEOUT_SECONDS
    on_timeout: TimeoutOutcome = TimeoutOutcome.ESCALATE_TO_AGENT_REVIEW
    carried: InterruptCarried | None = None
    """Set by the workflow itself when it continues as new while waiting."""
    shadow: bool = False
    """A person's answer is also put to the controller model, recorded, never acted on."""
    autonomy: bool = False
    """The controller may answer itself, where the worker's policy and its record allow."""
    hand_over: bool = False
    """The orchestrator may ask for the question back while it waits (``HAND_OVER_SIGNAL``):
    set only by an orchestrator that asks it again; any other such signal is ignored."""
    answers_in_parts: bool = False
    """A combined question whose agents may be answered one at a time (``unanswered_parts``):
    the orchestrator asks the rest again at once."""
    team: TeamPin | None = None
    """The team of the run that asks (None: the software team): its routes and questions."""
    answerers: Answerers | None = Field(default=None, exclude_if=lambda v: v is None)
    """Who may answer (the worker's answer rules, read when the question started); None:
    anybody. The validator refuses an answer whose ``answeredBy`` is not one of them."""

    def deadline_from(self, now: datetime) -> datetime | None:
        """When the question times out if it starts waiting at ``now``: the deadline carried
        from the run before, else ``timeoutSeconds`` after ``now``; None without a timeout."""
        if self.carried is not None:
            return self.carried.deadline
        if self.timeout_seconds:
            return now + timedelta(seconds=self.timeout_seconds)
        return None


STOP_ROUTE = "stopRun"
"""An outcome's ``route`` when the person stopped the run: no routing, the orchestrator stops."""


class InterruptOutcome(WireModel):
    """The translated InterruptRouting (camelCase JSON) and how it was reached."""

    routing: dict[str, Any]
    route: str
    resolution: InterruptResolution
    timed_out: bool = False
    call: CallRecord | None = None
    """The translation's LLM call (null in outcomes recorded before calls were)."""
    untranslated: str | None = None
    """Why the translator could not write the routing: it is then the allowed route with the
    origin's last request and the answer as guidance, not a model's answer."""


class InterruptStatus(WireModel):
    """Result of InterruptWorkflow's ``status`` query."""

    workflow_id: str
    state: InterruptState
    origin: AgentName
    reroute_to: AgentName | None
    request: AnyInterruptRequest
    resolution: InterruptResolution | None
    deadline: datetime | None
    hooks_applied: list[str]
    events: list[GraphEvent]
    events_recorded: int = 0
    """How many events were ever recorded; ``events`` holds the newest of them."""
    continues_at: AgentName | None = None
    """The agent the run continues at once answered: the one the chosen supervisor's option
    leads to, else the supervisor's re-route target, else the agent that asked (None from a
    worker of an earlier version)."""
    answers_in_parts: bool = False
    """Each agent's part of this combined question may be answered on its own."""
    team: TeamPin | None = None
    """The asking run's declared team (its agents, routes and question types); None: the
    software team."""
    answerers: Answerers | None = Field(default=None, exclude_if=lambda v: v is None)
    """Who may answer (``InterruptInput.answerers``); None: anybody (left out of the wire form,
    so a client of an earlier version reads the status of a question anybody may answer)."""


class ResolveAck(WireModel):
    """What the validated update answers."""

    accepted: bool
    message: str


class TranslationInput(WireModel):
    goal: str
    request: AnyInterruptRequest
    resolution: InterruptResolution
    origin: AgentName
    origin_request: dict[str, Any]
    allowed_route: str | None
    """The one route the reply may set; None: every route is offered (no route leads back)."""
    shadow_id: str | None = None
    """A person's answer to shadow: the translation also starts the controller's
    ``ShadowAnswerWorkflow`` with this id, without waiting for it."""
    team: TeamPin | None = None
    """The run's team (None: the software team): its handler routing is the reply's schema."""


class ReviewInput(WireModel):
    """An interrupt for a reviewing LLM to answer (AGENT_REVIEW, or escalation on timeout)."""

    goal: str
    request: AnyInterruptRequest
    origin_request: dict[str, Any]


class ShadowInput(WireModel):
    """A question a person answered, for the controller model to answer in their shadow."""

    origin: AgentName
    """The agent type the question is typed as: agreement is counted per agent type."""
    review: ReviewInput
    person: InterruptResolution


class AutonomyQuestion(WireModel):
    """A question of a run that lets the controller earn autonomy."""

    origin: AgentName
    request: AnyInterruptRequest


class KindAgreement(WireModel):
    """The controller's recorded agreement with people on one kind of one agent's questions."""

    agent_type: AgentName
    question_kind: str
    agreed: int
    compared: int
    allowed: bool = Field(description="The policy names this kind.")


class AutonomyDecision(WireModel):
    """Whether the controller answers a question itself, and the figures that decided it."""

    delegate: bool
    reason: str
    figures: list[KindAgreement] = Field(default_factory=list)
    min_answers: int = 0
    min_agreement: float = 0.0


class ShadowAnswer(WireModel):
    """The controller model's answer to a question a person answered: recorded, never acted on.
    Its ``call`` holds the model, latency and tokens."""

    answer: InterruptResolution | None = None
    error: str | None = Field(default=None, description="Why there is no answer.")


class ChoiceDecision(WireModel):
    choice_id: str
    option: OptionKey
    custom_input: str | None


class ConfirmationDecision(WireModel):
    confirmation_id: str
    answer: bool


class AgentReviewDecision(WireModel):
    """The reviewing LLM's structured answer."""

    decisions: list[ChoiceDecision]
    confirmations: list[ConfirmationDecision]
    rationale: str
