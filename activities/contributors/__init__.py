"""Prompt contributors: tool- and workflow-specific sections added to agent prompts (agents US1).

``default_registry()`` builds the registry a worker uses; build it once per worker and hand it to
``PromptRenderer``.
"""

from __future__ import annotations

from agent_interrupts.activities.contributors.base import (
    AssembledSections,
    ContributorRegistry,
    PromptContext,
    PromptContributor,
)
from agent_interrupts.activities.contributors.curated_contexts import CuratedContextsContributor
from agent_interrupts.activities.contributors.episodic_memory import EpisodicMemoryContributor
from agent_interrupts.activities.contributors.interrupt_resolution import (
    InterruptResolutionContributor,
)
from agent_interrupts.activities.contributors.loop_breaker import InterruptLoopBreakerContributor
from agent_interrupts.activities.contributors.previous_context import PreviousContextContributor
from agent_interrupts.activities.contributors.we_are_here import WeAreHereContributor
from agent_interrupts.activities.tools.settings import ToolSettings

__all__ = [
    "AssembledSections",
    "ContributorRegistry",
    "CuratedContextsContributor",
    "EpisodicMemoryContributor",
    "InterruptLoopBreakerContributor",
    "InterruptResolutionContributor",
    "PreviousContextContributor",
    "PromptContext",
    "PromptContributor",
    "WeAreHereContributor",
    "default_registry",
]


def default_registry(tools: ToolSettings | None = None) -> ContributorRegistry:
    """The built-in contributors and each tool group's own (agents FR-001), in (order, name)
    order."""
    from agent_interrupts.activities.tools.catalog import (
        tool_groups,  # the tools import this package's base
    )

    registry = ContributorRegistry(
        [
            WeAreHereContributor(),
            PreviousContextContributor(),
            CuratedContextsContributor(),
            InterruptResolutionContributor(),
            InterruptLoopBreakerContributor(),
        ]
    )
    for group in tool_groups(tools or ToolSettings()):
        registry.register(group.contributor)
    return registry
