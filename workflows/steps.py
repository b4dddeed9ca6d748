"""What happens after a node's output: the next step, an interrupt, the end, or a clean failure.
A pure function of the routing and the blackboard, unit-tested beside the workflow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_interrupts.models.agent_types import Terminal, is_agent
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.errors import AgentFailed, AgentWorkflowError, DegenerateLoop
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import AGENT_REQUEST_BYTES, clip, fit_strings
from agent_interrupts.models.requests import CONTEXT_FOUND, AgentRequest
from agent_interrupts.models.results import AgentResult
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import HistoryEntry, PendingStep
from agent_interrupts.models.team import Team
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.workflows.planner import next_step, return_target

CONTEXT_SUMMARY_CHARS = 2_000
"""How much of the context manager's summary is added to the request it hands back to."""


@dataclass(frozen=True)
class Decision:
    """Exactly one of: the next step, a question to ask, the final result, a failure."""

    route: str
    step: PendingStep | None = None
    interrupt: InterruptRequestBase | None = None
    final: OrchestratorCollectorResult | WireModel | None = None
    """The software team's final result, or a declared team's (its ``final_result`` model)."""
    failure: AgentWorkflowError | None = None


def decide(
    agent: str,
    routing: Routing,
    output: HistoryEntry,
    history: Sequence[HistoryEntry],
    agent_results: Sequence[AgentResult] = (),
    *,
    team: Team,
) -> Decision:
    """The routing's one non-null route -> what the workflow does next (the planner's table)."""
    nxt = next_step(routing)
    upstream = [output.context_id]
    if nxt.target is Terminal.END:
        if not isinstance(nxt.value, team.final_result):
            return Decision(nxt.route, failure=AgentFailed(f"{agent} stopped without a result"))
        return Decision(nxt.route, final=nxt.value)
    if nxt.target is Terminal.INTERRUPT:
        if not isinstance(nxt.value, InterruptRequestBase):
            return Decision(nxt.route, failure=AgentFailed(f"{agent} asked no question"))
        return Decision(nxt.route, interrupt=nxt.value)
    if nxt.target is Terminal.RETURN:
        back = return_target(list(history), team)
        if back is None or back.payload is None:
            problem = "the context manager has no earlier request (still held) to return to"
            return Decision(nxt.route, failure=DegenerateLoop(problem))
        request = dict(back.payload)
        summary = clip(getattr(nxt.value, "summary", ""), CONTEXT_SUMMARY_CHARS)
        request["guidance"] = f"{request.get('guidance', '')}\n{CONTEXT_FOUND} {summary}"
        step = PendingStep(
            agent_type=back.agent_type, request=request, upstream_context_ids=upstream
        )
        return Decision(nxt.route, step=step)
    if not is_agent(nxt.target) or not isinstance(nxt.value, AgentRequest):
        return Decision(nxt.route, failure=AgentFailed(f"{agent} chose {nxt.route}: no request"))
    value = nxt.value
    if agent_results and "agent_results" in type(value).model_fields:
        value = value.model_copy(update={"agent_results": list(agent_results)})
    request = fit_strings(value.to_wire(), AGENT_REQUEST_BYTES)  # agent results: up to 16
    target = str(nxt.target)
    step = PendingStep(agent_type=target, request=request, upstream_context_ids=upstream)
    return Decision(nxt.route, step=step)
