"""@episodic-memory-prompts (spec 003 US2, FR-006..011)."""

from __future__ import annotations

import pytest

from activities.contributors import EpisodicMemoryContributor, default_registry
from activities.prompting import PromptRenderer
from models.agent_types import AgentType
from tests.support.prompts import make_call, make_ctx
from workflows.graph import NODES

RENDERER = PromptRenderer()


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_every_agent_gets_recall_retain_and_reflect_guidance(agent: AgentType) -> None:
    """FR-006 / SC-009: registered by default, present for every agent."""
    assert "episodic-memory" in [c.name for c in default_registry().for_agent(agent)]
    prompt = RENDERER.agent_messages(NODES[agent], make_call(agent))
    section = _section(prompt.system, "Episodic memory")
    # FR-009: recall before starting a new task
    assert "**Recall before you start.** Before starting a new task, recall" in section
    # FR-007: retain with contextual metadata, naming this agent and node
    assert "**Retain with context.**" in section and "contextual metadata" in section
    assert f"({agent.value} at {agent.slug}-007)" in section
    # FR-008, FR-010, FR-011: reflect after significant actions; reflection solidifies links
    assert "**Reflect after significant actions.**" in section
    assert "reflection is what solidifies the connections between memories" in section
    assert "knowledge graph" in section and "Retaining alone only" in section


def test_recall_comes_before_retain_and_reflect() -> None:
    text = EpisodicMemoryContributor().contribute(make_ctx(AgentType.ORCHESTRATOR))
    assert text.index("Recall") < text.index("Retain") < text.index("Reflect")
