"""Agent results: versioned, with an id and the upstream context ids they used (FR-014, FR-019,
FR-020): the base every team's results share, the orchestrators' and collectors' templates, and
the records code changes write. The software team's own results are in
``teams/software/results.py``.

Fields wrapped in ``SkipJsonSchema`` are stamped or computed by the system after the LLM
answers (ids, links, deduplications, execution orders); the model never writes them.

``Assignment`` and ``InputReference`` name an agent of the software team: their ``AgentType``
is filled in by the team's package when it loads (``teams/software/agents.py``), so this module
imports no team.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.base import WireModel

if TYPE_CHECKING:
    from agent_interrupts.teams.software.agents import AgentType

SCHEMA_VERSION = "1.0"
LEGACY_NEEDS_INPUT = "needsInput"
"""The question field dispatched agents' results had before they asked typed questions (version
83c9b6c)."""


class InvalidReference(WireModel):
    """A file reference that the pinned workspace does not bear out."""

    path: str
    start_line: int | None = None
    end_line: int | None = None
    reason: str


class ReferenceCheck(WireModel):
    """File references of a result checked against the run's pinned commit."""

    commit: str
    checked: int
    invalid: list[InvalidReference] = Field(default_factory=list)


class AgentResult(WireModel):
    """Base of every result. The id fields are stamped by the system, never written by the model."""

    schema_version: SkipJsonSchema[str] = SCHEMA_VERSION
    result_id: SkipJsonSchema[str] = ""
    upstream_context_ids: SkipJsonSchema[list[str]] = Field(default_factory=list)
    reference_check: SkipJsonSchema[ReferenceCheck | None] = None
    """Set when the run has a workspace: how many file references were checked, which failed."""


# --- building blocks -----------------------------------------------------------------------


class FileReference(WireModel):
    path: str
    start_line: int
    end_line: int
    relevance: float = Field(description="0 (unrelated) to 1 (central to the goal)")
    note: str
    valid: SkipJsonSchema[bool] = True
    """False when the pinned workspace has no such file or lines; kept, never curated."""


class Assignment(WireModel):
    agent_type: AgentType
    task: str


class InputReference(WireModel):
    """A typed reference to a result a collector consumed."""

    result_id: str
    agent_type: AgentType


class Metric(WireModel):
    name: str
    value: float


class DecisionType(StrEnum):
    ADVANCE = "ADVANCE"
    ROUTE_BACK = "ROUTE_BACK"
    STOP = "STOP"
    INTERRUPT = "INTERRUPT"
    CONTEXT = "CONTEXT"


# --- delegation template (FR-024..026) -----------------------------------------------------


class Delegation(AgentResult):
    """Every orchestrator's standard output: why, who, what, and which context to pass."""

    goal: SkipJsonSchema[str] = ""
    delegation_rationale: str
    assignments: list[Assignment]
    task_decomposition: list[str]
    context_to_pass: list[str]


# --- consolidation template (FR-027..029) --------------------------------------------------


class Consolidation(AgentResult):
    """Every collector's standard fields; the ``SkipJsonSchema`` ones are computed."""

    merge_strategy: str
    conflict_resolutions: list[str]
    decision_rationale: str
    input_references: SkipJsonSchema[list[InputReference]] = Field(default_factory=list)
    aggregated_metrics: SkipJsonSchema[list[Metric]] = Field(default_factory=list)
    decision_type: SkipJsonSchema[DecisionType | None] = None
    derived_curation_ids: SkipJsonSchema[list[str]] = Field(default_factory=list)


# --- dispatched agents, dispatch nodes, declared teams -------------------------------------


class DispatchedResult(AgentResult):
    """Base of a dispatched agent's result."""

    @model_validator(mode="before")
    @classmethod
    def _drop_legacy_needs_input(cls, data: Any) -> Any:
        """Results recorded by 83c9b6c carried a ``needsInput`` text; a dispatched agent now
        asks with its own typed interrupt request instead (runs in flight still read them)."""
        if isinstance(data, dict) and LEGACY_NEEDS_INPUT in data:
            return {k: v for k, v in data.items() if k != LEGACY_NEEDS_INPUT}
        return data


class DispatchResult(AgentResult):
    """A dispatch node's account of the agents it ran."""

    summary: str


class TeamAgentResult(AgentResult):
    """Any declared team's agent result on the wire (its own model is generated from the team:
    ``models/team_build.py``); ``teamAgent`` tells it apart from the software team's results."""

    model_config = ConfigDict(extra="allow")

    team_agent: str


# --- code changes ---------------------------------------------------------------------------


class VerificationStatus(StrEnum):
    VERIFIED = "VERIFIED"
    PARTIAL = "PARTIAL"
    FAILED = "FAILED"


class TestOutcome(WireModel):
    __test__ = False  # not a pytest test class

    name: str
    passed: bool


class CommitInfo(WireModel):
    message: str
    files: list[str]
    sha: SkipJsonSchema[str | None] = None
    """The real commit: set from git, null when nothing changed or no workspace."""
    branch: SkipJsonSchema[str | None] = None


class MergeConflict(WireModel):
    path: str
    description: str
    resolution_guidance: str


class CodeChange(WireModel):
    """A run's branch after the merge: where it is, what it holds, how to get it."""

    run_branch: str
    repository: str
    head: str
    merged_tickets: list[str]
    commits: list[str]
    diff_stat: str
    checkout: str
    verification: str | None = None
    pushed_to: str | None = None
