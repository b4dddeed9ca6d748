"""Previous context for reruns (agents US4, FR-016..018)."""

from __future__ import annotations

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor

FIRST_ATTEMPT = "This is your first attempt."


class PreviousContextContributor(PromptContributor):
    """What this agent did the last time it ran, and why it runs again."""

    name = "previous-context"
    title = "Previous attempt"
    order = 30
    applies_to = None

    def contribute(self, ctx: PromptContext) -> str:
        previous = ctx.previous
        if previous is None:
            return FIRST_ATTEMPT
        lines = [
            f"You ran before in this workflow (context id {previous.context_id}). "
            "Use what still holds and change what the outcome below asks for; do not simply "
            "repeat your previous output.",
            f"Outcome: {previous.outcome}",
            f"Route you chose: {previous.route or 'none (a result)'}",
            f"Your previous output: {previous.output_excerpt}",
        ]
        if previous.prior_context_ids:
            lines.append("Context you used then: " + ", ".join(previous.prior_context_ids))
        return "\n".join(lines)
