"""@previous-context-rerun (agents US4, FR-016..018)."""

from __future__ import annotations

import pytest

from agent_interrupts.activities.contributors import PreviousContextContributor, default_registry
from agent_interrupts.activities.contributors.previous_context import FIRST_ATTEMPT
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.limits import PREVIOUS_OUTPUT_CHARS, compact_json
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import make_call, make_ctx, previous

RENDERER = PromptRenderer()


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_first_run_is_marked_as_the_first_attempt(agent: AgentType) -> None:
    """agents US4 scenario 3."""
    assert "previous-context" in [
        c.name for c in default_registry().for_agent(agent, team=SOFTWARE_TEAM)
    ]
    system = RENDERER.agent_messages(NODES[agent], make_call(agent), team=SOFTWARE_TEAM).system
    assert f"## Previous attempt\n{FIRST_ATTEMPT}\n" in system


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_a_rerun_shows_the_previous_output_outcome_and_contexts(agent: AgentType) -> None:
    """agents US4 scenarios 1, 2 and 4 / FR-017, FR-018."""
    prior = previous()
    system = RENDERER.agent_messages(
        NODES[agent], make_call(agent, previous=prior), team=SOFTWARE_TEAM
    ).system
    section = system[system.index("## Previous attempt\n") :]
    assert FIRST_ATTEMPT not in section
    assert f"(context id {prior.context_id})" in section
    assert f"Outcome: {prior.outcome}" in section
    assert "Route you chose: discoveryOrchestratorRequest" in section
    assert f"Your previous output: {prior.output_excerpt}" in section
    assert "Context you used then: wf-run/orchestrator/1/x, wf-run/discovery-collector/2/x" in (
        section
    )


def test_a_large_previous_output_is_cut() -> None:
    big = {"findings": ["x" * 500 for _ in range(40)]}
    text = PreviousContextContributor().contribute(
        make_ctx(
            AgentType.DISCOVERY_AGENT,
            previous=previous(output_excerpt=compact_json(big), route=None),
        )
    )
    line = next(x for x in text.splitlines() if x.startswith("Your previous output: "))
    assert len(line) < PREVIOUS_OUTPUT_CHARS + 100
    assert line.endswith("more characters]")
    assert "Route you chose: none (a result)" in text
