"""The bounded blackboard: what workflow state keeps of each entry, and what it carries forward.

State holds every entry of the current run compactly (ids, kind, agent, route, a short summary)
and the full payload only for the newest ``PAYLOAD_WINDOW`` entries; continue-as-new carries the
newest ``CARRIED_ENTRIES``. Full payloads stay in the run chain's histories (activity inputs and
results). Everything here is pure: time and ids come in as arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agent_interrupts.models.agent_call import HistoryDigestEntry, PreviousContext
from agent_interrupts.models.limits import clip, compact_json, fit_strings, json_bytes
from agent_interrupts.models.state import (
    EntryKind,
    GraphEvent,
    HistoryEntry,
    HistoryPage,
    LastOutput,
    OrchestratorState,
)
from agent_interrupts.models.tools import ToolTrace

PAYLOAD_WINDOW = 24
"""Entries that keep their payload in state (enough for a fan-out of four and its collector)."""
CARRIED_ENTRIES = 16
"""Entries carried across continue-as-new (payloads for the newest ``CARRIED_PAYLOADS``)."""
CARRIED_PAYLOADS = 2
CARRIED_STATE_BYTES = 1536 * 1024
"""The most JSON the carried state may take, under Temporal's 2 MB for the new run's input: over
it (a question handed over with the questions of 16 agents), its longest texts are cut."""
CARRIED_UPSTREAM_IDS = 8
"""Upstream ids a carried entry keeps (the rest are in the run chain's histories)."""
CARRIED_EVENTS = 10
"""Events carried across continue-as-new."""
SUMMARY_CHARS = 240
MAX_UPSTREAM_IDS = 64
"""Upstream ids kept per entry (the rest are in the entry's payload, in history)."""
RECENT_FOR_PROMPTS = 6
"""Compact entries an agent call carries for prompt contributors."""
STATUS_ENTRIES = 10
"""Entries the ``status`` query returns; older ones are paged with ``history_page``."""
STATUS_PAYLOAD_BYTES = 1024 * 1024
"""The most payload JSON those entries carry, newest first, under the server's 2 MB for a query's
answer; an older entry's payload is left out (``history_page`` and the histories hold it)."""


def status_entries(state: OrchestratorState) -> list[HistoryEntry]:
    """The newest ``STATUS_ENTRIES``, with as many payloads as ``STATUS_PAYLOAD_BYTES`` holds."""
    entries = state.history[-STATUS_ENTRIES:]
    room = STATUS_PAYLOAD_BYTES
    shown: list[HistoryEntry] = []
    for entry in reversed(entries):
        size = json_bytes(entry.payload) if entry.payload is not None else 0
        if size > room:
            entry = entry.model_copy(update={"payload": None})
        else:
            room -= size
        shown.append(entry)
    return shown[::-1]


def record(
    state: OrchestratorState,
    *,
    node_id: str,
    agent: str,
    kind: EntryKind,
    payload: dict[str, Any],
    context_id: str,
    at: datetime,
    route: str | None = None,
    upstream: Sequence[str] = (),
    tool_calls: Sequence[ToolTrace] = (),
    supervised: bool = False,
) -> HistoryEntry:
    """Append an entry; drop the payload (and tool trace) that falls out of the window; keep the
    counters (an interrupt a supervisor's event caused is not the agent's own: not counted)."""
    entry = HistoryEntry(
        index=state.entries_recorded,
        node_id=node_id,
        agent_type=agent,
        kind=kind,
        context_id=context_id,
        summary=summarise(kind, payload, route),
        payload=payload,
        route=route,
        upstream_context_ids=list(upstream)[:MAX_UPSTREAM_IDS],
        at=at,
        tool_calls=list(tool_calls),
        tool_call_count=len(tool_calls),
    )
    state.history.append(entry)
    state.entries_recorded += 1
    if len(state.history) > PAYLOAD_WINDOW:
        _drop_payload(state.history[-PAYLOAD_WINDOW - 1])
    if kind is EntryKind.INTERRUPT and not supervised:
        state.interrupt_counts[agent] = state.interrupt_counts.get(agent, 0) + 1
    return entry


def _drop_payload(entry: HistoryEntry) -> None:
    entry.payload = None
    entry.tool_calls = []


def remember_output(state: OrchestratorState, entry: HistoryEntry) -> None:
    """Keep ``entry`` (an OUTPUT) as its agent type's latest, for the next attempt's prompt."""
    state.last_outputs[entry.agent_type] = LastOutput(
        context_id=entry.context_id,
        route=entry.route,
        excerpt=compact_json(entry.payload or {}),
        prior_context_ids=entry.upstream_context_ids[:CARRIED_UPSTREAM_IDS],
    )


def summarise(kind: EntryKind, payload: dict[str, Any], route: str | None) -> str:
    """One line: a result's ``summary`` if there is one, else where the entry routed."""
    for value in (payload, *payload.values()):
        if isinstance(value, dict) and isinstance(value.get("summary"), str):
            return clip(value["summary"], SUMMARY_CHARS)
    if route:
        return f"routed to {route}"
    if kind is EntryKind.REQUEST and isinstance(payload.get("guidance"), str):
        return clip(payload["guidance"], SUMMARY_CHARS)
    return kind.value.lower()


def previous_attempt(
    state: OrchestratorState, agent: str, current: HistoryEntry
) -> PreviousContext | None:
    """This agent type's last output before ``current`` and why it runs again (FR-016..018)."""
    last = state.last_outputs.get(agent)
    if last is None:
        return None
    if last.route == "interruptRequest":
        outcome = "it asked a question (interruptRequest); the answer is in the prompt"
    else:
        via = next(
            (
                e
                for e in reversed(state.history)
                if e.index < current.index
                and e.kind in (EntryKind.OUTPUT, EntryKind.RESOLUTION)
                and "/" not in e.node_id
            ),
            None,
        )
        outcome = (
            f"it routed to {last.route}; {via.agent_type} routed the run back here ({via.route})"
            if via is not None and via.context_id != last.context_id
            else f"it routed to {last.route} and runs again"
        )
    return PreviousContext(
        context_id=last.context_id,
        output_excerpt=last.excerpt,
        route=last.route,
        outcome=outcome,
        prior_context_ids=last.prior_context_ids,
    )


def recent_digest(state: OrchestratorState) -> list[HistoryDigestEntry]:
    """The newest entries without payloads, for prompt contributors."""
    return [
        HistoryDigestEntry(
            node_id=e.node_id,
            agent_type=e.agent_type,
            kind=e.kind.value,
            route=e.route,
            context_id=e.context_id,
        )
        for e in state.history[-RECENT_FOR_PROMPTS:]
    ]


def page(state: OrchestratorState, start: int, limit: int) -> HistoryPage:
    """Entries from index ``start`` that this run holds, at most ``limit``."""
    held = state.history
    first = held[0].index if held else state.entries_recorded
    entries = [e for e in held if e.index >= start][:limit]
    return HistoryPage(entries=entries, first_held=first, total=state.entries_recorded)


def carried(state: OrchestratorState) -> OrchestratorState:
    """The state a continue-as-new carries: bounded whatever the run's length."""
    history = [
        e.model_copy(update={"upstream_context_ids": e.upstream_context_ids[:CARRIED_UPSTREAM_IDS]})
        for e in state.history[-CARRIED_ENTRIES:]
    ]
    for entry in history[:-CARRIED_PAYLOADS]:
        _drop_payload(entry)
    events: list[GraphEvent] = state.events[-CARRIED_EVENTS:]
    kept = state.model_copy(update={"history": history, "events": list(events)})
    wire = kept.to_wire()
    fitted = fit_strings(wire, CARRIED_STATE_BYTES)
    return kept if fitted is wire else OrchestratorState.model_validate(fitted)
