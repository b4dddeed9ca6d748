"""Interrupt loop breaker (research R9 item 1).

An agent that keeps asking questions stalls the run. Once an agent type's interrupts on the
blackboard exceed the threshold, its prompt tells it not to interrupt again and names the
correct next step: its first forward route and the agent that route leads to. It never speaks
when a supervisor's event asks the agent to interrupt, and interrupts a supervisor caused do not
count (``asking``).
"""

from __future__ import annotations

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.activities.routing_info import forward_route

INTERRUPT_LOOP_THRESHOLD = 2
"""Interrupts an agent type may raise in a run; past this, its prompt says to stop asking."""


class InterruptLoopBreakerContributor(PromptContributor):
    """Tells an agent that has asked too often to stop asking and move on."""

    name = "interrupt-loop-breaker"
    title = "Stop asking: interrupt loop"
    order = 50
    applies_to = None
    """Every agent can ask (a dispatched agent's questions are raised by its dispatch node)."""

    def __init__(self, threshold: int = INTERRUPT_LOOP_THRESHOLD) -> None:
        if threshold < 0:
            raise ValueError("the interrupt loop threshold cannot be negative")
        self.threshold = threshold

    def contribute(self, ctx: PromptContext) -> str | None:
        count = ctx.interrupts_here
        if count <= self.threshold or ctx.supervised:  # never contradict a supervisor
            return None
        step = forward_route(ctx.output_model, ctx.team)
        if step is None:
            return None
        return (
            f"{ctx.agent_type} has already interrupted the workflow {count} times in this "
            f"run (more than {self.threshold}); asking again would loop. Do NOT set "
            "`interruptRequest` this time. The answers you were given are in the blackboard "
            "and in this prompt: decide with what you have, and state the assumptions you make "
            "in your output.\n"
            f"The correct next step: set `{step.alias}` (-> {step.target}). "
            f"{step.description}"
        )
