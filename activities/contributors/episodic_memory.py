"""Episodic memory guidance: recall, retain, reflect (spec 003 US2, FR-006..011)."""

from __future__ import annotations

from activities.contributors.base import PromptContext, PromptContributor

GUIDANCE = """\
You have an episodic memory that outlives this step: what agents learn is kept as episodes and
linked into a knowledge graph. Use its three operations when the memory tool is available:
- **Recall before you start.** Before starting a new task, recall episodes related to your
  request: earlier decisions on this goal, files and modules already explored, answers people gave
  to earlier questions. Build on them instead of rediscovering them.
- **Retain with context.** Retain each finding or decision worth keeping together with its
  contextual metadata: the agent type and node ({agent} at {node}), the context ids it came from,
  the files or components it concerns, and why it matters.
- **Reflect after significant actions.** After each significant action (a decision, a finished
  piece of work, a resolved question, a surprise) reflect on it: how does it relate to what you
  recalled and retained before, what does it confirm, contradict or explain? Retaining alone only
  stores isolated facts; reflection is what solidifies the connections between memories and turns
  them into a knowledge graph the next agent can use. Do not skip it.
If the memory tool is unavailable, carry on without it and put what you would have retained into
your output, so the blackboard keeps it."""


class EpisodicMemoryContributor(PromptContributor):
    """The episodic memory tool's guidance, for every agent."""

    name = "episodic-memory"
    title = "Episodic memory"
    order = 10
    applies_to = None

    def contribute(self, ctx: PromptContext) -> str:
        return GUIDANCE.format(agent=ctx.agent_type.value, node=ctx.node_id)
