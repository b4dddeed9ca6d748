"""@episodic-memory-prompts (agents US2, agents FR-006..011; SC-009: present when the tool is)."""

from __future__ import annotations

import pytest

from agent_interrupts.activities.contributors import EpisodicMemoryContributor, default_registry
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.tools.catalog import tools_for
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import WORKSPACE, make_call, make_ctx

RENDERER = PromptRenderer()


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_every_agent_with_the_tool_gets_recall_retain_and_reflect_guidance(
    agent: AgentType,
) -> None:
    """agents FR-006 / SC-009: the memory tool registers it; present in every prompt that has the
    tool."""
    assert "episodic-memory" in [
        c.name for c in default_registry().for_agent(agent, team=SOFTWARE_TEAM)
    ]
    assert {t.name for t in tools_for(agent, team=SOFTWARE_TEAM)} >= {
        "memory_recall",
        "memory_retain",
    }
    prompt = RENDERER.agent_messages(
        NODES[agent], make_call(agent, workspace=WORKSPACE), team=SOFTWARE_TEAM
    )
    section = _section(prompt.system, "Episodic memory")
    # agents FR-009: recall before starting a new task
    assert "**Recall before you start** (`memory_recall`): before starting a new task" in section
    # agents FR-007: retain with contextual metadata, naming this agent and node
    assert "**Retain with context** (`memory_retain`)" in section
    assert "contextual metadata" in section and f"{agent.value} at {agent.slug}-007" in section
    # agents FR-008/FR-010/FR-011: reflect after significant actions; reflection solidifies links
    assert "**Reflect after significant actions** (`memory_reflect`)" in section
    assert "reflection is\n  what solidifies the connections between memories" in section
    assert "knowledge graph" in section and "Retaining alone only" in section


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_without_a_workspace_no_tool_and_no_tool_guidance(agent: AgentType) -> None:
    """agents FR-002: a tool's section appears only where the tool is; no workspace, no tools."""
    system = RENDERER.agent_messages(NODES[agent], make_call(agent), team=SOFTWARE_TEAM).system
    assert "## Episodic memory" not in system and "## Code tools" not in system
    with_tools = RENDERER.agent_messages(
        NODES[agent], make_call(agent, workspace=WORKSPACE), team=SOFTWARE_TEAM
    )
    assert ("## Code tools" in with_tools.system) == (agent in SOFTWARE_TEAM.read_tools)
    assert agent in SOFTWARE_TEAM.nodes


def test_recall_comes_before_retain_and_reflect() -> None:
    contributor = EpisodicMemoryContributor()
    text = contributor.contribute(make_ctx(AgentType.ORCHESTRATOR, workspace=WORKSPACE))
    assert text is not None
    assert text.index("Recall") < text.index("Retain") < text.index("Reflect")
