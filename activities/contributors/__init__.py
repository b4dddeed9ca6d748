"""Prompt contributors: tool- and workflow-specific sections added to agent prompts (spec 003 US1).

``default_registry()`` builds the registry a worker uses; build it once per worker and hand it to
``PromptRenderer``.
"""

from __future__ import annotations

from activities.contributors.base import (
    AssembledSections,
    ContributorRegistry,
    PromptContext,
    PromptContributor,
)
from activities.contributors.episodic_memory import EpisodicMemoryContributor
from activities.contributors.interrupt_resolution import InterruptResolutionContributor
from activities.contributors.loop_breaker import InterruptLoopBreakerContributor
from activities.contributors.previous_context import PreviousContextContributor
from activities.contributors.we_are_here import WeAreHereContributor

__all__ = [
    "AssembledSections",
    "ContributorRegistry",
    "EpisodicMemoryContributor",
    "InterruptLoopBreakerContributor",
    "InterruptResolutionContributor",
    "PreviousContextContributor",
    "PromptContext",
    "PromptContributor",
    "WeAreHereContributor",
    "default_registry",
]


def default_registry() -> ContributorRegistry:
    """The five built-in contributors, in their (order, name) order."""
    return ContributorRegistry(
        [
            EpisodicMemoryContributor(),
            WeAreHereContributor(),
            PreviousContextContributor(),
            InterruptResolutionContributor(),
            InterruptLoopBreakerContributor(),
        ]
    )
