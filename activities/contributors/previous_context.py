"""Previous context for reruns (spec 003 US4, FR-016..018)."""

from __future__ import annotations

import json

from activities.contributors.base import PromptContext, PromptContributor

FIRST_ATTEMPT = "This is your first attempt."
PREVIOUS_OUTPUT_CHARS = 3_000
"""The previous output is shown as compact JSON cut to this many characters."""


def compact(value: object, limit: int = PREVIOUS_OUTPUT_CHARS) -> str:
    """Compact JSON, cut to ``limit`` characters with a note saying how much was left out."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [cut: {len(text) - limit} more characters]"


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
            f"Your previous output: {compact(previous.output)}",
        ]
        if previous.prior_context_ids:
            lines.append("Context you used then: " + ", ".join(previous.prior_context_ids))
        return "\n".join(lines)
