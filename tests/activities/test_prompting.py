"""Agent prompts: every agent's template and guidance sections (US20-22, US44,
FR-095..098, FR-109..112), the contributor sections in order, and text kept as data."""

from __future__ import annotations

import json
import re

import pytest
from pydantic.alias_generators import to_camel

from agent_interrupts.activities.contributors import default_registry
from agent_interrupts.activities.contributors.we_are_here import HERE
from agent_interrupts.activities.offline_model import RESOLVED_MARKER
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupts import (
    CUSTOM_OPTION_TEXT,
    ConfirmationItem,
    InterruptRequestBase,
    OptionKey,
    StructuredChoice,
)
from agent_interrupts.models.limits import compact_json
from agent_interrupts.models.routing import Routing
from agent_interrupts.teams.software import questions as interrupt_models
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS, AgentType
from tests.support.prompts import (
    ROUTING_AGENTS,
    WORKSPACE,
    make_call,
    previous,
)

RENDERER = PromptRenderer()

INTERRUPT_TYPES = {
    AgentType.ORCHESTRATOR: "OrchestratorInterruptRequest",
    AgentType.ORCHESTRATOR_COLLECTOR: "OrchestratorCollectorInterruptRequest",
    AgentType.DISCOVERY_ORCHESTRATOR: "DiscoveryOrchestratorInterruptRequest",
    AgentType.DISCOVERY_COLLECTOR: "DiscoveryCollectorInterruptRequest",
    AgentType.DISCOVERY_DISPATCH: "DiscoveryAgentDispatchInterruptRequest",
    AgentType.DISCOVERY_AGENT: "DiscoveryAgentInterruptRequest",
    AgentType.PLANNING_AGENT: "PlanningAgentInterruptRequest",
    AgentType.TICKET_AGENT: "TicketAgentInterruptRequest",
    AgentType.PLANNING_ORCHESTRATOR: "PlanningOrchestratorInterruptRequest",
    AgentType.PLANNING_COLLECTOR: "PlanningCollectorInterruptRequest",
    AgentType.PLANNING_DISPATCH: "PlanningAgentDispatchInterruptRequest",
    AgentType.TICKET_ORCHESTRATOR: "TicketOrchestratorInterruptRequest",
    AgentType.TICKET_COLLECTOR: "TicketCollectorInterruptRequest",
    AgentType.TICKET_DISPATCH: "TicketAgentDispatchInterruptRequest",
    AgentType.REVIEW_AGENT: "ReviewInterruptRequest",
    AgentType.MERGER_AGENT: "MergerInterruptRequest",
    AgentType.CONTEXT_MANAGER: "ContextManagerInterruptRequest",
}
"""Each agent's own typed interrupt request (FR-081's table, FR-103)."""


def _own_fields(class_name: str) -> set[str]:
    """The JSON names of a typed interrupt's fields the model writes beyond the base ones (not
    the system-set ``origin`` and ``agentQuestions``)."""
    cls = getattr(interrupt_models, class_name)
    written = set(cls.model_json_schema(by_alias=True)["properties"])
    return written - {to_camel(n) for n in InterruptRequestBase.model_fields}


def _json_block(text: str, heading: str) -> dict[str, object]:
    start = text.index(heading)
    match = re.search(r"```json\n(.*?)\n```", text[start:], re.DOTALL)
    assert match, f"no JSON example after {heading!r}"
    return json.loads(match.group(1))


def _system(agent: AgentType, **overrides: object) -> str:
    return RENDERER.agent_messages(
        NODES[agent], make_call(agent, **overrides), team=SOFTWARE_TEAM
    ).system


def test_a_teams_agents_prompts_begin_with_the_same_text() -> None:
    """What every agent of the team is told comes before its own part: a provider's prompt
    cache, or llama-server's slot, reads that text once for all of them."""
    systems = {agent: _system(agent) for agent in ROUTING_AGENTS}
    first, *others = systems.values()
    end = min(
        next((i for i, (a, b) in enumerate(zip(first, o, strict=False)) if a != b), 0)
        for o in others
    )
    shared = first[: first.rfind("\n\n", 0, end) + 2]  # up to the agent's own intro
    for heading in (
        "## Recognising uncertainty",
        "## Asking for review: `interruptRequest`\n",
        "### Example: a well-formed structured choice",
        "### Example: a well-formed confirmation item",
    ):
        assert heading in shared, heading
    assert "ORCHESTRATOR" not in shared and "InterruptRequest" not in shared
    for agent, system in systems.items():
        own = system[len(shared) :]
        assert own.lstrip().startswith(f"You are the {agent.value} agent"), agent
        assert f"({INTERRUPT_TYPES[agent]})" in own


def test_the_tables_cover_the_graph() -> None:
    assert set(INTERRUPT_TYPES) == set(ROUTING_AGENTS) == set(AgentType)


@pytest.mark.parametrize("agent", ROUTING_AGENTS, ids=lambda a: a.value)
def test_routing_agent_prompt_has_every_guidance_section(agent: AgentType) -> None:
    system = _system(agent)
    model = NODES[agent].output_model
    assert issubclass(model, Routing)
    own_class = INTERRUPT_TYPES[agent]

    # the agent's own part: its intro, role and its real route names
    assert f"\n\nYou are the {agent.value} agent" in system
    assert ", ".join(model.route_aliases()) in system

    # uncertainty recognition (FR-095..098, FR-111)
    assert "## Recognising uncertainty" in system
    assert "notice the implicit decisions you make" in system
    assert "Route it for review: set `interruptRequest` instead of a route" in system
    assert "Explain the uncertainty in your own words" in system

    # interrupt guidance names the agent's own typed interrupt and its own fields (US44, FR-109)
    assert f"## Asking for review: `interruptRequest` ({own_class})" in system
    for field in ("type", "reason", "choices", "confirmationItems", "contextForDecision"):
        assert f"- `{field}`: " in system
    own = _own_fields(own_class)
    assert own, own_class
    for field in own:
        assert re.search(rf"^- `{field}` \([^)]+\): \w", system, re.MULTILINE), field
    for other_agent, other_class in INTERRUPT_TYPES.items():
        if other_agent is not agent:
            assert f"({other_class})" not in system
            for field in _own_fields(other_class) - own:
                assert f"- `{field}` (" not in system, f"{field} of {other_class}"

    # when to use which component (FR-112), and well-formed examples (FR-110, FR-090)
    assert "Use `choices` when there are two to four real alternatives" in system
    assert "use\n`confirmationItems` when you know what you would do" in system
    choice = StructuredChoice.model_validate(
        _json_block(system, "### Example: a well-formed structured choice")
    )
    assert [o.key for o in choice.options] == [
        OptionKey.A,
        OptionKey.B,
        OptionKey.C,
        OptionKey.CUSTOM,
    ]
    assert choice.options[-1].description == CUSTOM_OPTION_TEXT
    assert choice.recommended is OptionKey.A
    ConfirmationItem.model_validate(
        _json_block(system, "### Example: a well-formed confirmation item")
    )

    # contributor sections: memory, where we are (marker on this node), first attempt
    assert "## Episodic memory\n" not in system  # no workspace: no memory tool, no guidance
    (marked,) = [line for line in system.splitlines() if HERE in line]
    assert marked.startswith(f"{HERE} {agent.value} ") and " -> " in marked
    for alias in model.route_aliases():
        assert f"- `{alias}` -> " in system
    assert "## Previous attempt\nThis is your first attempt." in system


@pytest.mark.parametrize("agent", list(DISPATCHED_AGENTS), ids=lambda a: a.value)
def test_dispatched_agent_asks_with_its_own_type_and_its_dispatcher_raises_it(
    agent: AgentType,
) -> None:
    """handler US4: a dispatched agent answers with its result or its own typed
    question, which its dispatch node raises with the other agents' questions."""
    system = _system(agent)
    dispatcher = DISPATCHED_AGENTS[agent].value
    assert "Set exactly one of these route fields and leave the others null: result, " in system
    assert "needsInput" not in system
    assert f"{dispatcher} ran you in parallel with other agents" in system
    assert "gives you back only\nyour own answer" in system
    assert "There is one interrupt handler for every agent" not in system
    assert "## Episodic memory\n" not in system  # no workspace: no memory tool, no guidance
    assert f"\n{HERE} {agent.value} (dispatched by {dispatcher}" in system


def test_sections_follow_the_template_in_a_stable_order() -> None:
    agent = AgentType.DISCOVERY_COLLECTOR
    prompt = RENDERER.agent_messages(
        NODES[agent],
        make_call(
            agent,
            previous=previous(),
            interrupt_resolution="Question: which scope?\n- scope -> A",
            interrupts_here=3,
            workspace=WORKSPACE,
        ),
        team=SOFTWARE_TEAM,
    )
    headings = [
        "## Recognising uncertainty",
        "## Asking for review",
        "## Your role",
        "## Asking for review: `interruptRequest` (",
        "## Episodic memory",
        "## Where you are in the workflow",
        "## Previous attempt",
        RESOLVED_MARKER,
        "## Stop asking: interrupt loop",
    ]
    positions = [prompt.system.index(h) for h in headings]
    assert positions == sorted(positions)
    assert prompt.sections == [
        "episodic-memory",
        "we-are-here",
        "previous-context",
        "interrupt-resolution",
        "interrupt-loop-breaker",
    ]
    assert prompt.warnings == []


def test_text_from_people_and_models_stays_literal() -> None:
    """Template injection: nothing a person or a model wrote is compiled as a template."""
    hostile = "{{ 7*7 }} {% raw %}x{% endraw %} {# hidden #} {{ ''.__class__ }}"
    agent = AgentType.PLANNING_ORCHESTRATOR
    prompt = RENDERER.agent_messages(
        NODES[agent],
        make_call(
            agent,
            goal=f"add rate limiting {hostile}",
            request={"guidance": f"follow {hostile}", "planningFocus": hostile},
            interrupt_resolution=f'- approach -> CUSTOM: "{hostile}"',
            previous=previous(
                output_excerpt=compact_json({"summary": hostile}), outcome=f"rerun {hostile}"
            ),
            user_messages=[f"supervisor says {hostile}"],
        ),
        team=SOFTWARE_TEAM,
    )
    text = "\n".join(m["content"] for m in prompt.messages)
    assert "49" not in text
    assert "<class" not in text
    user = prompt.messages[1]["content"]
    assert f"Goal: add rate limiting {hostile}\n" in user
    assert hostile in prompt.messages[-1]["content"]
    system = prompt.system
    assert f'CUSTOM: "{hostile}"' in system and f"Outcome: rerun {hostile}" in system
    assert json.dumps({"summary": hostile}, separators=(",", ":"), ensure_ascii=False) in system


def test_the_request_message_no_longer_carries_the_resolution() -> None:
    agent = AgentType.REVIEW_AGENT
    prompt = RENDERER.agent_messages(
        NODES[agent], make_call(agent, interrupt_resolution="the answer is B"), team=SOFTWARE_TEAM
    )
    user = prompt.messages[1]["content"]
    assert user.startswith("Goal: ") and "the answer is B" not in user
    assert prompt.system.count("the answer is B") == 1


def test_default_renderer_has_the_tools_contributors_and_still_renders_interrupt_templates() -> (
    None
):
    renderer = PromptRenderer()
    assert (
        renderer.registry.names
        == default_registry().names
        == [
            "code-changes",
            "code-tools",
            "curated-contexts",
            "episodic-memory",
            "interrupt-loop-breaker",
            "interrupt-resolution",
            "previous-context",
            "we-are-here",
        ]
    )
    # ResolutionActivities renders these with PromptRenderer.render
    text = renderer.render(
        "interrupt/translate.jinja", allowed_route="reviewRequest", output_name="InterruptRouting"
    )
    assert "Set `reviewRequest`: it is the only route allowed here." in text
    assert "one JSON\nobject of type InterruptRouting." in text
    assert renderer.render("interrupt/review.jinja").startswith("You review an agent's question")
