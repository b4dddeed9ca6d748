"""When a workflow hands its work over to a new run (continue-as-new)."""

from __future__ import annotations

from temporalio import workflow

from agent_interrupts.models.policies import HISTORY_HANDOVER_BYTES


def history_is_long() -> bool:
    """Time to continue as new: the server suggests it, or the history passed our own bound."""
    info = workflow.info()
    return info.is_continue_as_new_suggested() or (
        info.get_current_history_size() > HISTORY_HANDOVER_BYTES
    )
