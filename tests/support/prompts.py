"""Helpers for prompt tests: agent calls, prompt contexts and blackboard digests."""

from __future__ import annotations

from typing import Any

from agent_interrupts.activities.contributors import PromptContext, PromptContributor
from agent_interrupts.models.agent_call import AgentCall, HistoryDigestEntry, PreviousContext
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.limits import compact_json
from agent_interrupts.models.tools import PinnedWorkspace
from agent_interrupts.teams.software.agents import AgentType

GOAL = "add rate limiting to the gateway"

ROUTING_AGENTS = list(NODES)
"""Every agent answers with a Routing (dispatched agents: their result or their question)."""


WORKSPACE = PinnedWorkspace(source="/src/shop", commit="c0ffee" * 6 + "abcd", memory_key="k")
"""A pinned workspace for prompts (no tool runs: rendering only)."""


def make_call(agent: AgentType, **overrides: Any) -> AgentCall:
    values: dict[str, Any] = {
        "node_id": f"{agent.slug}-007",
        "agent_type": agent,
        "result_id": f"wf-run/{agent.slug}/7/2026-01-01T00:00:00Z",
        "goal": GOAL,
        "request": {"guidance": "Do the next step."},
    }
    values.update(overrides)
    return AgentCall(**values)


def make_ctx(agent: AgentType, **overrides: Any) -> PromptContext:
    return PromptContext.from_call(
        make_call(agent, **overrides), NODES[agent].output_model, team=SOFTWARE_TEAM
    )


def entry(agent: AgentType, kind: str, n: int = 1, route: str | None = None) -> HistoryDigestEntry:
    return HistoryDigestEntry(
        node_id=f"{agent.slug}-{n:03d}",
        agent_type=agent,
        kind=kind,
        route=route,
        context_id=f"wf-run/{agent.slug}/{n}/2026-01-01T00:00:00Z",
    )


def interrupts(agent: AgentType, count: int) -> list[HistoryDigestEntry]:
    """``count`` rounds of request, interrupt output, INTERRUPT entry and resolution."""
    out = []
    for n in range(count):
        out += [
            entry(agent, "REQUEST", 4 * n),
            entry(agent, "OUTPUT", 4 * n + 1, "interruptRequest"),
            entry(agent, "INTERRUPT", 4 * n + 2),
            entry(agent, "RESOLUTION", 4 * n + 3, "someRequest"),
        ]
    return out


def previous(**overrides: Any) -> PreviousContext:
    values: dict[str, Any] = {
        "context_id": "wf-run/orchestrator/3/2026-01-01T00:00:00Z",
        "output_excerpt": compact_json(
            {"discoveryOrchestratorRequest": {"guidance": "Look at the gateway."}}
        ),
        "route": "discoveryOrchestratorRequest",
        "outcome": "it routed to discoveryOrchestratorRequest; ORCHESTRATOR_COLLECTOR routed "
        "the run back here (orchestratorRequest)",
        "prior_context_ids": ["wf-run/orchestrator/1/x", "wf-run/discovery-collector/2/x"],
    }
    values.update(overrides)
    return PreviousContext(**values)


class Fixed(PromptContributor):
    """A contributor with a fixed body, for registry tests."""

    def __init__(
        self,
        name: str,
        *,
        order: int = 100,
        applies_to: frozenset[AgentType] | None = None,
        body: object = "fixed text",
    ) -> None:
        self.name = name
        self.title = f"Section {name}"
        self.order = order
        self.applies_to = applies_to
        self.body = body

    def contribute(self, ctx: PromptContext) -> str | None:
        return self.body  # type: ignore[return-value]


class Exploding(PromptContributor):
    """A contributor whose tool is broken: it raises on every call."""

    name = "exploding-tool"
    title = "Exploding tool"
    order = 15

    def __init__(self, applies_to: frozenset[AgentType] | None = None) -> None:
        self.applies_to = applies_to

    def contribute(self, ctx: PromptContext) -> str | None:
        raise RuntimeError("memory backend unreachable (api_key=sk-secret1234567890)")
