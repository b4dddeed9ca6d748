"""A fork's link to its parent: where it branched off, what it changed there, who forked, when.

A fork is a new OrchestratorWorkflow run (its own id) that starts from the state its parent held
at one past decision (``docs/forks.md``). Its start input and its state carry a ``ForkLink``;
its start sets the ``AgentForkOf`` search attribute to the parent's workflow id, so a
visibility query lists a run's forks. Every text here is size-capped at the door.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.limits import MAX_ID_CHARS, MAX_MODEL_CHARS, Id, PersonName, Text

FORK_OF_ATTRIBUTE = "AgentForkOf"
"""The Keyword search attribute a fork is started with: its parent's workflow id
(``AgentForkOf='<parent id>'`` lists a run's forks; forks of a fork name the fork)."""

FORK_MEMO = "fork"
"""The memo key a fork is started with: its ``ForkLink``'s wire form, so a list of forks reads
each one's point and answer without a query."""

ModelName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_MODEL_CHARS)]


class ForkPointKind(StrEnum):
    """What a fork branches off at."""

    QUESTION = "QUESTION"
    """A question of the parent (its InterruptWorkflow's id), answered another way."""
    STEP = "STEP"
    """An agent step of the parent (its node id), run again, perhaps with another model or
    guidance."""


class ForkPoint(WireModel):
    """The decision a fork branches off at: a question or an agent step of the parent."""

    kind: ForkPointKind
    question_id: Id | None = None
    """The question's InterruptWorkflow id (``<run id>-interrupt-<n>``), for a QUESTION."""
    step: Id | None = None
    """The agent step's node id (``wf-<run>/<AGENT>/<seq>...``, as ``agents status`` lists it),
    for a STEP."""
    agent_type: Annotated[str, StringConstraints(max_length=MAX_ID_CHARS)] | None = None
    """The agent that asked (a QUESTION's origin) or that runs (a STEP), when known."""
    at: datetime | None = Field(default=None, exclude_if=lambda v: v is None)
    """When the parent was at the point (the time of the last event of its history the fork's
    state is read from: the question's InterruptWorkflow started, or the step's agent call was
    scheduled). The fork's agents recall the memories retained before it, and those their own
    run chain retained since. None (links made before it was kept; left out of the wire form):
    they recall as any run does."""

    @model_validator(mode="after")
    def _one_place(self) -> ForkPoint:
        wanted = self.question_id if self.kind is ForkPointKind.QUESTION else self.step
        other = self.step if self.kind is ForkPointKind.QUESTION else self.question_id
        if wanted is None or other is not None:
            field = "questionId" if self.kind is ForkPointKind.QUESTION else "step"
            raise ValueError(f"a {self.kind.value} fork point names its {field} and nothing else")
        return self

    def label(self) -> str:
        """How a person reads the point: the question's id or the step's node id."""
        return self.question_id or self.step or "?"


class ForkParent(WireModel):
    """The run a fork branched off: its workflow id and the run of its chain (continue-as-new
    starts new runs under the same id) whose history holds the point."""

    workflow_id: Id
    run_id: Id


class StepChanges(WireModel):
    """What a STEP fork changes in the step it runs again (nothing: the same step again)."""

    model: ModelName | None = None
    """The model the agent's call uses instead of the worker's."""
    guidance: Text | None = None
    """Added to the agent's prompt as a person's guidance."""


class ForkLink(WireModel):
    """A fork's link to its parent, carried in its start input and its state (it survives its
    own continue-as-new) and in its memo (``FORK_MEMO``)."""

    parent: ForkParent
    point: ForkPoint
    answer: InterruptResolution | None = None
    """The answer the fork gives the question (a QUESTION fork)."""
    changes: StepChanges | None = None
    """What the step runs with (a STEP fork)."""
    forked_by: PersonName | None = None
    """Who forked (the CLI's ``--as`` / ``AGENTS_USER``, the SDK's ``forked_by``)."""
    forked_at: datetime
    carried_bytes: int = Field(default=0, ge=0)
    """The size of the state the fork was started with (JSON bytes)."""

    @model_validator(mode="after")
    def _fits_its_point(self) -> ForkLink:
        if self.point.kind is ForkPointKind.QUESTION and self.changes is not None:
            raise ValueError("a QUESTION fork takes an answer, not step changes")
        if self.point.kind is ForkPointKind.STEP and self.answer is not None:
            raise ValueError("a STEP fork takes step changes (model, guidance), not an answer")
        return self


def fork_memo(link: ForkLink) -> dict[str, object]:
    """The memo entries a fork is started with (beside the goal)."""
    return {FORK_MEMO: link.to_wire()}


class ListedFork(WireModel):
    """One of a run's forks, as ``client.forks(...)`` lists them (visibility and memo, no
    query)."""

    workflow_id: str
    status: str
    """The fork's execution status (RUNNING, COMPLETED, FAILED ...)."""
    link: ForkLink | None
    """Its link, read from its memo; None when the memo cannot be read."""
