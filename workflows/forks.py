"""What a fork says of itself when it starts (workflow code: pure)."""

from __future__ import annotations

from agent_interrupts.models.forks import ForkLink
from agent_interrupts.models.interrupts import answerer
from agent_interrupts.models.limits import clip


def forked_from(link: ForkLink) -> str:
    """The fork's first event: its parent, its point and who forked."""
    by = f" by {link.forked_by}" if link.forked_by else ""
    answer = f", answered by {answerer(link.answer)}" if link.answer is not None else ""
    return clip(
        f"forked{by} from {link.parent.workflow_id} (run {link.parent.run_id}) at "
        f"{link.point.label()}{answer}; it starts from the state the parent held there "
        f"({link.carried_bytes} bytes carried)",
        500,
    )


def asked_again_because(link: ForkLink | None, continued: bool) -> str:
    """Why a run asks a handed-over question again: the run before it continued as new, or
    (a fork's first run, which continued from nothing) its parent asked it at the fork's point."""
    if link is None or continued:
        return "the run before continued as new while it waited"
    return clip(f"the fork's point: {link.parent.workflow_id} asked it", 300)
