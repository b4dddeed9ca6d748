"""Payloads recorded by version 83c9b6c, as the current models read them (runs in flight replay).

In that version a dispatched agent returned its bare result with a ``needsInput`` text, and each
typed interrupt request had one text per agent-specific field. Recorded histories hold such
payloads; the workflows read them through these upgrades, so a run in flight makes the same
decisions on the new code. The upgrades touch only data in the old shape: a payload in the
current shape is returned as it is. Pure functions.
"""

from __future__ import annotations

from typing import Any

from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.results import LEGACY_NEEDS_INPUT
from agent_interrupts.models.team import Team
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS
from agent_interrupts.workflows.question_types import (
    BASE_FIELDS,
    empty_value,
    fits,
    own_fields,
)

_DISPATCH = {"dispatchDecisions"}
LEGACY_FIELDS: dict[str, set[str]] = {
    "ORCHESTRATOR": {"phase", "goal", "workflowContext"},
    "ORCHESTRATOR_COLLECTOR": {"phaseDecision", "collectorResults"},
    "DISCOVERY_ORCHESTRATOR": {"subdomainPartitioning", "scope"},
    "DISCOVERY_AGENT": {"codeFindings", "boundaryDecisions"},
    "DISCOVERY_COLLECTOR": {"consolidationDecisions", "recommendations"},
    "DISCOVERY_DISPATCH": _DISPATCH,
    "PLANNING_ORCHESTRATOR": {"ticketDecomposition", "discoveryContext"},
    "PLANNING_AGENT": {"ticketDesign", "architectureDecisions"},
    "PLANNING_COLLECTOR": {"ticketConsolidation", "dependencyResolution"},
    "PLANNING_DISPATCH": _DISPATCH,
    "TICKET_ORCHESTRATOR": {"implementationScope", "planningContext"},
    "TICKET_AGENT": {"implementationApproach", "fileChanges"},
    "TICKET_COLLECTOR": {"completionStatus", "followUps"},
    "TICKET_DISPATCH": _DISPATCH,
    "REVIEW_AGENT": {"reviewCriteria", "assessment"},
    "MERGER_AGENT": {"conflictResolution", "mergeStrategy"},
    "CONTEXT_MANAGER": {"contextGatheringScope"},
}
"""The agent-specific fields each typed question had in version 83c9b6c, all texts."""


def upgrade_output(agent: str, output: dict[str, Any], team: Team) -> dict[str, Any]:
    """An agent's output (wire form) in the current shape (a declared team's has one shape)."""
    if not team.builtin:
        return output
    if agent in DISPATCHED_AGENTS and LEGACY_NEEDS_INPUT in output:
        return {"result": output, "interruptRequest": None}
    question = output.get("interruptRequest")
    if isinstance(question, dict):
        return {**output, "interruptRequest": upgrade_question(question)}
    return output


def started_before_notifications(args: tuple[Any, ...]) -> bool:
    """Whether InterruptWorkflow's start input was written by 83c9b6c, before notifications
    and the ``carried`` field existed (every later version writes ``carried``, null or not).

    Such an interrupt started no notification plan: it goes on waiting without one.
    """
    return len(args) == 1 and isinstance(args[0], dict) and "carried" not in args[0]


def upgrade_start(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """InterruptWorkflow's start arguments with a recorded question in the current shape."""
    if len(args) == 1 and isinstance(args[0], dict) and isinstance(args[0].get("request"), dict):
        return ({**args[0], "request": upgrade_question(args[0]["request"])},)
    return args


def upgrade_question(question: dict[str, Any]) -> dict[str, Any]:
    """A typed question recorded in the old shape (``LEGACY_FIELDS``: exactly those texts
    beyond the base fields) in the current shape: an old text that still fits its field stays,
    the others are kept in ``contextForDecision`` and their fields left empty (a list empty, a
    text blank, a choice of values its first value). Anything else is returned as it is."""
    origin = str(question.get("origin"))
    cls = SOFTWARE_TEAM.questions.get(origin)
    own = {k: v for k, v in question.items() if k not in BASE_FIELDS and k != "origin"}
    if (
        cls is None
        or set(own) != LEGACY_FIELDS.get(origin)
        or not all(isinstance(v, str) for v in own.values())
    ):
        return question
    upgraded = {k: v for k, v in question.items() if k not in own}
    for key, name in own_fields(cls).items():
        if key in own and fits(cls, name, own[key]):
            upgraded[key] = own[key]
        else:
            upgraded[key] = empty_value(cls.model_fields[name].annotation)
    notes = [f"{k}: {v}" for k, v in own.items() if k not in upgraded or upgraded[k] != v]
    context = str(question.get("contextForDecision", ""))
    upgraded["contextForDecision"] = "\n".join([context, *notes]).strip()
    return upgraded
