"""A declared team's curated contexts in its agents' prompts (agents US3): shown once, each with
its id and collector, bounded; never a section of the software team's prompts."""

from __future__ import annotations

from agent_interrupts.activities.contributors import (
    CuratedContextsContributor,
    PromptContext,
    default_registry,
)
from agent_interrupts.activities.contributors.curated_contexts import VALUE_CHARS
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import configured_teams
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import make_call

TEAM = build_team(configured_teams({})["incident-response"])
CONTEXT = {
    "contextId": "wf-r/findings-collector/010/2026-01-01T00:00:00Z",
    "sourceResultId": "wf-r/findings-collector/009/2026-01-01T00:00:00Z",
    "agentType": "FINDINGS_COLLECTOR",
    "curation": {"rootCause": "the cache expires every key at once", "confidence": "HIGH"},
}


def _call(request: dict[str, object]) -> AgentCall:
    return AgentCall(
        node_id="remediation-011",
        agent_type="REMEDIATION",
        result_id="wf-r/remediation/012/2026-01-01T00:00:00Z",
        goal="the checkout is down",
        request={"guidance": "fix it", "rootCause": "the cache", **request},
    )


def test_a_later_agents_prompt_shows_its_teams_curated_contexts() -> None:
    renderer = PromptRenderer()
    node = TEAM.nodes["REMEDIATION"]
    system = renderer.agent_messages(node, _call({"contexts": [CONTEXT]}), TEAM).system
    section = system.split("## Curated contexts\n", 1)[1].split("\n## ", 1)[0]
    assert section.splitlines()[2:] == [
        f"[{CONTEXT['contextId']}] from FINDINGS_COLLECTOR:",
        "- rootCause: the cache expires every key at once",
        "- confidence: HIGH",
    ]
    before = renderer.agent_messages(node, _call({}), TEAM).system
    assert "## Curated contexts" not in before, "no section before a collector ran"


def test_long_values_are_cut_and_lists_joined() -> None:
    context = CONTEXT | {"curation": {"notes": "n" * (VALUE_CHARS + 50), "hosts": ["a", "b"]}}
    call = _call({"contexts": [context]})
    ctx = PromptContext.from_call(call, TEAM.nodes["REMEDIATION"].output_model, TEAM)
    body = CuratedContextsContributor().contribute(ctx)
    assert body is not None
    assert f"- notes: {'n' * VALUE_CHARS}... [cut: 50 more characters]" in body
    assert "- hosts: a; b" in body


def test_the_software_teams_prompts_have_no_such_section() -> None:
    registry = default_registry()
    for agent in AgentType:
        assert "curated-contexts" not in [
            c.name for c in registry.for_agent(agent, team=SOFTWARE_TEAM)
        ]
    assert "curated-contexts" in [c.name for c in registry.for_agent("REMEDIATION", TEAM)]
    system = (
        PromptRenderer()
        .agent_messages(
            NODES[AgentType.REVIEW_AGENT], make_call(AgentType.REVIEW_AGENT), SOFTWARE_TEAM
        )
        .system
    )
    assert "## Curated contexts" not in system
