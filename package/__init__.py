"""agent-interrupts: durable multi-agent LLM workflows on Temporal under one interrupt handler.

The supervisor SDK is this package's root (``from agent_interrupts import AgentWorkflowClient``);
its names load on first use, so ``agents --help`` does not pay for them. The command line is
``agent_interrupts.app.cli``; a worker is ``python -m agent_interrupts.worker``.

The installed package maps onto the repository's top-level folders (``models``, ``workflows``,
``activities``, ``app``, ``prompts``, ``teams``) through the build configuration
(``[tool.setuptools.package-dir]`` in pyproject.toml), not through links."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_interrupts.app.sdk import (
        AgentWorkflowClient,
        EventRejected,
        ForkRefused,
        ListedFork,
        ResolutionRejected,
        RunRow,
        StartedFork,
        WaitingQuestion,
        WaitingRow,
    )

__all__ = [
    "AgentWorkflowClient",
    "EventRejected",
    "ForkRefused",
    "ListedFork",
    "ResolutionRejected",
    "RunRow",
    "StartedFork",
    "WaitingQuestion",
    "WaitingRow",
]


def __getattr__(name: str) -> Any:
    """The SDK's names, loaded from ``agent_interrupts.app.sdk`` on first use."""
    if name in __all__:
        from agent_interrupts.app import sdk

        return getattr(sdk, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
