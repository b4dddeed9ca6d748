"""The offline model answers every agent's strict schema with valid, goal-derived content."""

from __future__ import annotations

import json

import pytest

from activities.llm import strict_schema
from activities.offline_model import OfflineModel, OfflineScenario
from models.agent_types import AgentType
from models.routing import Routing
from workflows.graph import NODES

GOAL = "add rate limiting to the gateway"
MESSAGES = [{"role": "system", "content": "x"}, {"role": "user", "content": f"Goal: {GOAL}"}]


@pytest.mark.parametrize("agent", list(NODES))
def test_answer_validates_against_every_output_model(agent: AgentType) -> None:
    model = NODES[agent].output_model
    reply = OfflineModel().answer(model.__name__, strict_schema(model), MESSAGES)
    value = model.model_validate_json(reply)
    assert GOAL in reply
    if isinstance(value, Routing):
        assert value.chosen_route()[0] not in ("interruptRequest", "contextManagerRequest")


@pytest.mark.parametrize(
    "agent", [a for a, n in NODES.items() if issubclass(n.output_model, Routing)]
)
def test_scenario_makes_the_chosen_agent_interrupt(agent: AgentType) -> None:
    model = NODES[agent].output_model
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({agent})))
    value = model.model_validate_json(
        offline.answer(model.__name__, strict_schema(model), MESSAGES)
    )
    assert isinstance(value, Routing)
    route, _, request = value.chosen_route()
    assert route == "interruptRequest"
    assert request.origin is agent
    assert request.choices and request.confirmation_items


def test_answers_are_deterministic() -> None:
    model = NODES[AgentType.PLANNING_COLLECTOR].output_model
    schema = strict_schema(model)
    first = OfflineModel().answer(model.__name__, schema, MESSAGES)
    assert first == OfflineModel().answer(model.__name__, schema, MESSAGES)
    assert json.loads(first)["collectorResult"]["summary"]


def test_scenario_parse_and_clear_errors() -> None:
    scenario = OfflineScenario.parse("interrupt=review_agent, MERGER_AGENT;delay=PLANNING_AGENT:2")
    assert scenario.interrupt_at == {AgentType.REVIEW_AGENT, AgentType.MERGER_AGENT}
    assert scenario.delays == {AgentType.PLANNING_AGENT: 2.0}
    with pytest.raises(ValueError, match="unknown agent type 'NOPE'"):
        OfflineScenario.parse("interrupt=NOPE")
    with pytest.raises(ValueError, match="unknown OFFLINE_SCENARIO part"):
        OfflineScenario.parse("explode=1")
