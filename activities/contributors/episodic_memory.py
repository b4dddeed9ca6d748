"""Episodic memory guidance: recall, retain, reflect (agents US2, agents FR-006..011).

The memory tool registers this contributor for the agents it is offered to; it speaks only when
the call has a workspace, i.e. when the tool is really there (SC-009).
"""

from __future__ import annotations

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.models.team import Team

MEMORY_GUIDANCE = """\
You have an episodic memory shared by every run on this workspace ({source}). Its tools:
- **Recall before you start** (`memory_recall`): before starting a new task, recall episodes
  related to your request: earlier decisions on this goal, files and modules already explored,
  answers people gave to earlier questions. Build on them instead of rediscovering them.
- **Retain with context** (`memory_retain`): retain each finding or decision worth keeping with
  its contextual metadata: the files it concerns and the context ids it came from (your agent type
  and node, {agent} at {node}, are added for you).
- **Reflect after significant actions** (`memory_reflect`): after each significant action (a
  decision, a finished piece of work, a resolved question, a surprise) reflect on it: link the
  memories involved (ids from recall and retain) with an insight saying how they relate, what is
  confirmed, contradicted or explained. Retaining alone only stores isolated facts; reflection is
  what solidifies the connections between memories into a knowledge graph the next agent can
  use. Do not skip it.
Memory calls count against the step's tool budget."""


class EpisodicMemoryContributor(PromptContributor):
    """The episodic memory tool's guidance (agents FR-006..011): present exactly when the tool
    is."""

    name = "episodic-memory"
    title = "Episodic memory"
    order = 10

    def applies(self, agent: str, team: Team) -> bool:
        """The run's team says which of its agents get these tools."""
        return agent in team.nodes

    def contribute(self, ctx: PromptContext) -> str | None:
        if ctx.workspace is None:
            return None
        return MEMORY_GUIDANCE.format(
            source=ctx.workspace.source, agent=str(ctx.agent_type), node=ctx.node_id
        )
