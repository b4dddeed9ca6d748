"""@prompt-contributor-framework (agents US1, agents FR-001..005): registration, applicability,
stable order, history in the context, and failure isolation."""

from __future__ import annotations

import itertools

import pytest

from agent_interrupts.activities.contributors import (
    ContributorRegistry,
    PromptContext,
    PromptContributor,
)
from agent_interrupts.activities.contributors.base import MAX_SECTION_CHARS
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import Exploding, Fixed, entry, make_call, make_ctx


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_a_registered_contribution_is_in_every_agents_prompt(agent: AgentType) -> None:
    """agents US1 scenario 1: register a contributor, and every agent prompt carries its section."""
    renderer = PromptRenderer(registry=ContributorRegistry([Fixed("tool", body="Use the tool.")]))
    prompt = renderer.agent_messages(NODES[agent], make_call(agent), team=SOFTWARE_TEAM)
    assert "\n\n## Section tool\nUse the tool.\n" in prompt.system
    assert prompt.sections == ["tool"]
    assert "## Section tool" not in prompt.messages[1]["content"], "sections go to the system"


def test_sections_are_ordered_by_order_then_name_whatever_the_registration_order() -> None:
    """agents US1 scenario 2 / agents FR-004: one consistent order."""
    contributors = [Fixed("b", order=20), Fixed("a", order=20), Fixed("z", order=5), Fixed("c")]
    for permutation in itertools.permutations(contributors):
        registry = ContributorRegistry(permutation)
        assembled = registry.assemble(make_ctx(AgentType.REVIEW_AGENT))
        assert [name for name, _ in assembled.sections] == ["z", "a", "b", "c"]
        assert assembled.warnings == []


def test_applies_to_limits_the_agents_that_get_a_section() -> None:
    """agents US1 scenario 3 / agents FR-002."""
    only = frozenset({AgentType.PLANNING_COLLECTOR, AgentType.TICKET_AGENT})
    registry = ContributorRegistry([Fixed("narrow", applies_to=only), Fixed("wide")])
    for agent in NODES:
        names = [c.name for c in registry.for_agent(agent, team=SOFTWARE_TEAM)]
        assert names == (["narrow", "wide"] if agent in only else ["wide"]), agent


def test_the_contributor_context_carries_the_blackboard_history() -> None:
    """agents US1 scenario 4: what a contributor sees includes the history digest."""

    class Counting(PromptContributor):
        name = "counting"
        title = "Counting"

        def contribute(self, ctx: PromptContext) -> str:
            kinds = ",".join(e.kind for e in ctx.recent)
            return f"{len(ctx.recent)} entries: {kinds}; previous={ctx.previous is not None}"

    history = [
        entry(AgentType.ORCHESTRATOR, "REQUEST", 1),
        entry(AgentType.ORCHESTRATOR, "OUTPUT", 2, "discoveryOrchestratorRequest"),
        entry(AgentType.DISCOVERY_ORCHESTRATOR, "REQUEST", 3),
    ]
    renderer = PromptRenderer(registry=ContributorRegistry([Counting()]))
    call = make_call(AgentType.DISCOVERY_ORCHESTRATOR, recent=history)
    prompt = renderer.agent_messages(
        NODES[AgentType.DISCOVERY_ORCHESTRATOR], call, team=SOFTWARE_TEAM
    )
    assert "## Counting\n3 entries: REQUEST,OUTPUT,REQUEST; previous=False" in prompt.system


def test_a_failing_contributor_is_skipped_with_a_warning_and_the_prompt_assembles() -> None:
    """agents FR-005: the broken tool's section is missing, the others are there, a warning says
    why."""
    registry = ContributorRegistry([Fixed("before", order=1), Exploding(), Fixed("after")])
    renderer = PromptRenderer(registry=registry)
    agent = AgentType.MERGER_AGENT
    prompt = renderer.agent_messages(NODES[agent], make_call(agent), team=SOFTWARE_TEAM)

    assert prompt.sections == ["before", "after"]
    assert "## Section before" in prompt.system and "## Section after" in prompt.system
    assert "## Exploding tool" not in prompt.system
    assert "\n\nYou are the MERGER_AGENT agent" in prompt.system
    (warning,) = prompt.warnings
    assert "'exploding-tool'" in warning and "RuntimeError" in warning
    assert "memory backend unreachable" in warning and "merger-agent-007" in warning
    assert "sk-secret" not in warning, "credentials in an error message are not passed on"


def test_a_contribution_that_is_not_text_is_skipped_with_a_warning() -> None:
    registry = ContributorRegistry([Fixed("numbers", body=42), Fixed("blank", body="   ")])
    assembled = registry.assemble(make_ctx(AgentType.ORCHESTRATOR))
    assert assembled.sections == []
    assert assembled.warnings == [
        "prompt contributor 'numbers' returned int, not text; its section was skipped"
    ]


def test_an_oversized_contribution_is_cut_with_a_warning() -> None:
    registry = ContributorRegistry([Fixed("flood", body="x" * (MAX_SECTION_CHARS * 3))])
    assembled = registry.assemble(make_ctx(AgentType.ORCHESTRATOR))
    ((name, text),) = assembled.sections
    assert name == "flood"
    assert MAX_SECTION_CHARS < len(text) < MAX_SECTION_CHARS + 200
    assert text.endswith("[... cut: the section was too long]")
    assert "'flood'" in assembled.warnings[0] and "cut" in assembled.warnings[0]


def test_no_contributors_means_the_bare_template() -> None:
    """Edge case: nothing registered for an agent -> its template alone, no warnings."""
    agent = AgentType.REVIEW_AGENT
    bare = PromptRenderer(registry=ContributorRegistry())
    prompt = bare.agent_messages(NODES[agent], make_call(agent), team=SOFTWARE_TEAM)
    assert prompt.sections == [] and prompt.warnings == []
    assert prompt.system == bare.agent_template(NODES[agent], team=SOFTWARE_TEAM).rstrip() + "\n"


def test_names_are_unique_and_required() -> None:
    registry = ContributorRegistry([Fixed("one")])
    with pytest.raises(ValueError, match="'one' is already registered"):
        registry.register(Fixed("one"))
    with pytest.raises(ValueError, match="non-empty name"):
        registry.register(Fixed(""))
    registry.register(Fixed("two", order=0))
    assert [c.name for c in registry.for_agent(AgentType.ORCHESTRATOR, team=SOFTWARE_TEAM)] == [
        "two",
        "one",
    ]
