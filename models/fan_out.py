"""A dispatch node's fan-out as its interrupt leaves it: which agents finished, which asked."""

from __future__ import annotations

from typing import Any

from agent_interrupts.models.base import WireModel
from agent_interrupts.teams.software.questions import DispatchedAgentInterruptRequest
from agent_interrupts.teams.software.results import DispatchedAgentResult


class HeldAgent(WireModel):
    """One dispatched agent of a fan-out (resume §5: steps are idempotent).

    Exactly one state: finished (``result``: never run again), asked (``question`` and no
    ``answer``: waits for its answer, not run), answered (``question`` and ``answer``: runs again
    with its own answer), or not run yet (neither).
    """

    key: str
    """The agent within the fan-out (``ticket-agent-2``); prefixes its question's ids."""
    node_id: str = ""
    """Where it last ran (``ticket-dispatch-012/ticket-agent-2``); empty before it runs."""
    request: dict[str, Any]
    """Its sub-request (wire form, without the curated contexts the workflow adds)."""
    result: DispatchedAgentResult | None = None
    question: DispatchedAgentInterruptRequest | None = None
    answer: str | None = None
    """Its own part of the person's answer, as the resumed agent's prompt shows it."""
    output_tokens_factor: int = 1
    """Times its configured output tokens its next call may use (a person gave more)."""
    asked_itself: bool = False
    """Whether ``question`` is its model's own, not one the workflow asks for it (a supervisor's
    event, a stuck model): only those count towards the interrupt loop breaker."""

    def runs(self) -> bool:
        """Whether the fan-out calls this agent: not finished, and not waiting for an answer."""
        return self.result is None and (self.question is None or self.answer is not None)
