"""The answer to this node's earlier question (research R9 item 4).

The section is headed exactly ``## Interrupt resolution``: the offline model treats that heading
as "already answered" (``activities.offline_model.RESOLVED_MARKER``), and it appears only here.
"""

from __future__ import annotations

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.models.answer_text import NOT_ASKED

TITLE = "Interrupt resolution"


class InterruptResolutionContributor(PromptContributor):
    """Puts the question this node asked and its answer into the prompt of the resumed agent; an
    agent the answer sent the run to, which did not ask, is told so (the account says who asked
    and why the run is here: ``models.answer_text``)."""

    name = "interrupt-resolution"
    title = TITLE
    order = 40
    applies_to = None

    def contribute(self, ctx: PromptContext) -> str | None:
        resolution = (ctx.interrupt_resolution or "").strip()
        if not resolution:
            return None
        if resolution.startswith(NOT_ASKED):
            return (
                "A question asked at another agent has been answered, and the answer sends the "
                "run to you. Follow it: take each chosen option, write-in and yes/no below as a "
                "decision already made.\n"
                f"{resolution}"
            )
        return (
            "You asked a question earlier and it has been answered. Follow the answer: take "
            "each chosen option, write-in and yes/no as a decision already made, and do not ask "
            "the same question again.\n"
            f"{resolution}"
        )
