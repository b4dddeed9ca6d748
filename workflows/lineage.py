"""Reconstruct the context chain of any result from the blackboard (FR-015, SC-008)."""

from __future__ import annotations

from agent_interrupts.models.state import HistoryEntry


def context_chain(history: list[HistoryEntry], context_id: str) -> list[HistoryEntry]:
    """Every entry ``context_id`` depends on, transitively, in blackboard order (itself included).

    Raises KeyError for an id the blackboard does not hold.
    """
    by_id = {e.context_id: e for e in history}
    if context_id not in by_id:
        raise KeyError(f"no blackboard entry has context id {context_id!r}")
    seen: set[str] = set()
    pending = [context_id]
    while pending:
        current = pending.pop()
        if current in seen or current not in by_id:
            continue
        seen.add(current)
        pending.extend(by_id[current].upstream_context_ids)
    return [e for e in history if e.context_id in seen]


def dangling_ids(history: list[HistoryEntry]) -> list[str]:
    """Upstream ids that point at no entry: a broken chain."""
    known = {e.context_id for e in history}
    return sorted({u for e in history for u in e.upstream_context_ids if u not in known})
