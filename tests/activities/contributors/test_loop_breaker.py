"""Interrupt loop breaker (research R9 item 1)."""

from __future__ import annotations

import json

import pytest

from agent_interrupts.activities.contributors import (
    InterruptLoopBreakerContributor,
    default_registry,
)
from agent_interrupts.activities.contributors.loop_breaker import INTERRUPT_LOOP_THRESHOLD
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.output_schema import decoder_schema
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.routing import Routing
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import (
    GOAL,
    ROUTING_AGENTS,
    make_call,
    make_ctx,
)

BREAKER = InterruptLoopBreakerContributor()


def test_it_reaches_every_agent_dispatched_ones_included() -> None:
    """Dispatched agents ask with their own typed question, so they can loop too."""
    registry = default_registry()
    for agent in ROUTING_AGENTS:
        assert "interrupt-loop-breaker" in [
            c.name for c in registry.for_agent(agent, team=SOFTWARE_TEAM)
        ]


def test_it_stays_silent_up_to_the_threshold_and_speaks_past_it() -> None:
    agent = AgentType.PLANNING_COLLECTOR
    for count in range(INTERRUPT_LOOP_THRESHOLD + 1):
        assert BREAKER.contribute(make_ctx(agent, interrupts_here=count)) is None
    text = BREAKER.contribute(make_ctx(agent, interrupts_here=INTERRUPT_LOOP_THRESHOLD + 1))
    assert text is not None
    assert f"interrupted the workflow {INTERRUPT_LOOP_THRESHOLD + 1} times" in text
    assert "Do NOT set `interruptRequest` this time" in text
    assert "set `ticketOrchestratorRequest` (-> TICKET_ORCHESTRATOR)" in text


def test_the_threshold_is_configurable() -> None:
    agent = AgentType.ORCHESTRATOR
    assert InterruptLoopBreakerContributor(threshold=0).contribute(
        make_ctx(agent, interrupts_here=1)
    )
    with pytest.raises(ValueError):
        InterruptLoopBreakerContributor(threshold=-1)


@pytest.mark.parametrize("agent", ROUTING_AGENTS, ids=lambda a: a.value)
def test_the_named_next_step_is_the_route_the_offline_model_takes(agent: AgentType) -> None:
    """Same rule as the offline model: its first forward route, and where that leads."""
    model = NODES[agent].output_model
    assert issubclass(model, Routing)
    messages = [{"role": "user", "content": f"Goal: {GOAL}"}]
    reply = OfflineModel().answer(model.__name__, decoder_schema(model), messages)
    route, target, _ = model.model_validate(json.loads(reply)).chosen_route()
    assert route not in ("interruptRequest", "contextManagerRequest")

    call = make_call(agent, interrupts_here=INTERRUPT_LOOP_THRESHOLD + 1)
    system = PromptRenderer().agent_messages(NODES[agent], call, team=SOFTWARE_TEAM).system
    section = system[system.index("## Stop asking: interrupt loop\n") :]
    assert f"The correct next step: set `{route}` (-> {target.value})." in section
