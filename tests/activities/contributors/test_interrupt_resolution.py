"""Interrupt resolution context (research R9 item 4): the answer, once, under the heading the
offline model (and a reader) knows."""

from __future__ import annotations

import json

import pytest

from agent_interrupts.activities.offline_model import RESOLVED_MARKER, OfflineModel, OfflineScenario
from agent_interrupts.activities.output_schema import decoder_schema
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.answer_text import NOT_ASKED
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.routing import Routing
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import ROUTING_AGENTS, make_call

RENDERER = PromptRenderer()
ANSWER = (
    "Question: Two reasonable approaches exist.\n"
    "- How should it be approached? -> B (Introduce a dedicated component)\n"
    "- Add regression tests -> yes\nResolved by: HUMAN"
)


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_the_answer_is_in_the_system_prompt_once_under_its_heading(agent: AgentType) -> None:
    prompt = RENDERER.agent_messages(
        NODES[agent], make_call(agent, interrupt_resolution=ANSWER), team=SOFTWARE_TEAM
    )
    assert RESOLVED_MARKER == "## Interrupt resolution"
    assert prompt.system.count(RESOLVED_MARKER) == 1
    section = prompt.system[prompt.system.index(RESOLVED_MARKER) :]
    assert ANSWER in section and "do not ask the same question again" in section
    assert all(RESOLVED_MARKER not in m["content"] for m in prompt.messages[1:])
    assert "Introduce a dedicated component" not in prompt.messages[1]["content"]


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_no_answer_no_heading(agent: AgentType) -> None:
    """Nothing else in any prompt may look like an answered question."""
    for resolution in (None, "", "  \n"):
        prompt = RENDERER.agent_messages(
            NODES[agent], make_call(agent, interrupt_resolution=resolution), team=SOFTWARE_TEAM
        )
        assert all(RESOLVED_MARKER not in m["content"] for m in prompt.messages)


@pytest.mark.parametrize("agent", ROUTING_AGENTS[:4], ids=lambda a: a.value)
def test_the_offline_model_asks_until_the_answer_is_in_the_prompt(agent: AgentType) -> None:
    model = NODES[agent].output_model
    assert issubclass(model, Routing)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({agent})))

    def route(resolution: str | None) -> str:
        prompt = RENDERER.agent_messages(
            NODES[agent], make_call(agent, interrupt_resolution=resolution), team=SOFTWARE_TEAM
        )
        reply = offline.answer(model.__name__, decoder_schema(model), prompt.messages)
        return model.model_validate(json.loads(reply)).chosen_route()[0]

    assert route(None) == "interruptRequest"
    assert route(ANSWER) != "interruptRequest"


def test_an_agent_that_did_not_ask_is_not_told_it_asked() -> None:
    """handler US3: the account of an answer that sent the run here (``NOT_ASKED``)."""
    sent = (
        f"{NOT_ASKED}: PLANNING_ORCHESTRATOR asked one, and a person chose ...\nResolved by: HUMAN"
    )
    agent = AgentType.TICKET_ORCHESTRATOR
    prompt = RENDERER.agent_messages(
        NODES[agent], make_call(agent, interrupt_resolution=sent), team=SOFTWARE_TEAM
    )
    section = prompt.system[prompt.system.index(RESOLVED_MARKER) :]
    assert sent in section and "the answer sends the run to you" in section
    assert "You asked a question earlier" not in section
