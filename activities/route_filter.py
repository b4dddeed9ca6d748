"""The route filter (the routing contract's FilterPropertiesDecorator; handler FR-003..005,
handler SC-003).

The InterruptRouting schema of a translation keeps only the allowed route, non-null and required,
and the ``$defs`` it reaches (transitively): the decoder schema of that one route
(``activities/output_schema.py``). The interrupt workflow decides the allowed route
(``models/resolution_rules.allowed_route``); the translation activity builds the filtered schema
for its LLM call, once per route per worker (no extra activity hop).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_spec import Role
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import InterruptRouting

ROUTE_OF: dict[str, str] = {
    agent: route for agent in AgentType if (route := InterruptRouting.route_for(agent)) is not None
}
"""The InterruptRouting field that leads back to each agent (the routing contract's mapping
table)."""


def routing_schema(
    keep: str | None,
    profile: OutputProfile = OutputProfile.STANDARD,
    model: type[Routing] = InterruptRouting,
) -> dict[str, Any]:
    """The handler routing's schema (the software team's InterruptRouting unless ``model`` is a
    declared team's) filtered to route ``keep`` (None: every route, one variant each), bounded
    by ``profile``."""
    return decoder_schema(model, profile, None if keep is None else (keep,))


ROUND_ROLES = (Role.ORCHESTRATOR, Role.CONTEXT_MANAGER)
"""The roles a route sends a run round again to: each orchestrator (its phase again; the
software team's orchestrator and its phase orchestrators, a declared team's orchestrator such
as incident-response's TRIAGE), and the context manager (the detour a model takes when routing
back is closed: SmolLM2's discovery collector went there twelve times in a row)."""


def round_targets(team: Team) -> frozenset[str]:
    """``team``'s agents whose routes the phase-round guard closes (``ROUND_ROLES``)."""
    return team.with_role(*ROUND_ROLES)


def closed_routes(
    model: type[Routing], runs: Mapping[str, int], max_rounds: int | None, targets: Set[str]
) -> dict[str, str]:
    """The routes of ``model`` a model may no longer take, by JSON name, each with why: those to
    an agent of ``targets`` (``round_targets`` of the run's team) that already ran
    ``max_rounds`` times in the run (None: no route closes). Asking a person is never among
    them: a looping model moves on or asks."""
    if max_rounds is None:
        return {}
    closed = {}
    for route, target in model.route_aliases().items():
        if target in targets:
            ran = runs.get(target, 0)
            if ran >= max_rounds:
                closed[route] = (
                    f"{target} already ran {ran} time{'s' * (ran != 1)}, the most a model may "
                    f"send a run round to it (LLM_MAX_PHASE_ROUNDS={max_rounds})"
                )
    return closed


def closed_question(asked: int, max_questions: int | None, supervised: bool) -> dict[str, str]:
    """``interruptRequest`` with why, when an agent type's model already asked ``max_questions``
    questions of its own in the run (LLM_MAX_QUESTIONS; None: never): it must decide with the
    answers it has. A supervisor's event still gets its question (``supervised``)."""
    if max_questions is None or supervised or asked < max_questions:
        return {}
    return {
        "interruptRequest": f"this agent already asked {asked} question{'s' * (asked != 1)}, "
        f"the most a model may ask for one agent in a run (LLM_MAX_QUESTIONS={max_questions}): "
        "decide with the answers you were given"
    }
