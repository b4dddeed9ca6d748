"""Read a run's whole blackboard: the ``history_page`` query, page by page, back along the run
chain (continue-as-new), since each run holds only its own entries and a few carried ones.

State keeps payloads only for the newest entries; with ``payloads=True`` the others are read back
from each run's event history: a REQUEST is the agent call's request (its activity input), an
OUTPUT the agent's reply (its activity result), a RESOLUTION the interrupt child's result, an
INTERRUPT the question in its node's output. CONTEXT payloads are the curated contexts, which
the requests after them carry. An OUTPUT's tool calls are read from the replies of its rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from models.agent_call import AgentCall, AgentReply
from models.interrupt_flow import InterruptOutcome
from models.state import EntryKind, HistoryEntry, HistoryPageRequest, OrchestratorStatus
from models.tools import ToolTrace
from workflows.orchestrator import OrchestratorWorkflow

PAGE = 500


async def read_blackboard(
    client: Client, workflow_id: str, run_id: str | None = None, *, payloads: bool = False
) -> list[HistoryEntry]:
    """Every entry of the run chain that ends at ``run_id`` (default: the latest), in order;
    with ``payloads``, every payload read back from the runs' histories."""
    entries: dict[int, HistoryEntry] = {}
    recorded = _Recorded()
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    while True:
        first_held = await _read_run(handle, entries)
        if payloads:
            await recorded.read(client, handle)
        previous = await _previous_run(handle)
        if first_held == 0 and (not payloads or previous is None):
            break
        if previous is None:
            break
        handle = client.get_workflow_handle(workflow_id, run_id=previous)
    ordered = [entries[i] for i in sorted(entries)]
    return recorded.fill(ordered, workflow_id) if payloads else ordered


@dataclass
class _Recorded:
    """Agent calls, replies and interrupt outcomes found in the runs' event histories."""

    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    resolutions: dict[str, dict[str, Any]] = field(default_factory=dict)
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict)
    tool_calls: dict[str, dict[str, ToolTrace]] = field(default_factory=dict)
    """Each node's tool calls, from all its rounds' replies, by call id."""

    async def read(self, client: Client, handle: WorkflowHandle) -> None:
        convert = client.data_converter
        calls: dict[int, AgentCall] = {}
        children: dict[int, str] = {}
        async for event in handle.fetch_history_events():
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                attrs = event.activity_task_scheduled_event_attributes
                if attrs.activity_type.name == "run_agent":
                    (call,) = await convert.decode(attrs.input.payloads, [AgentCall])
                    calls[event.event_id] = call
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
                done = event.activity_task_completed_event_attributes
                call = calls.get(done.scheduled_event_id)
                if call is not None:
                    (reply,) = await convert.decode(done.result.payloads, [AgentReply])
                    self.requests[call.node_id] = {**call.request, "goal": ""}
                    self.outputs[call.node_id] = reply.output
                    traces = self.tool_calls.setdefault(call.node_id, {})
                    traces.update((t.call_id, t) for t in reply.tool_trace)
            elif event.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
                started = event.start_child_workflow_execution_initiated_event_attributes
                children[event.event_id] = started.workflow_id
            elif event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
                closed = event.child_workflow_execution_completed_event_attributes
                (outcome,) = await convert.decode(closed.result.payloads, [InterruptOutcome])
                self.resolutions[children.get(closed.initiated_event_id, "")] = outcome.routing

    def fill(self, entries: list[HistoryEntry], workflow_id: str) -> list[HistoryEntry]:
        filled = []
        asked: dict[str, str] = {}
        self.contexts = {
            str(c["contextId"]): c
            for request in self.requests.values()
            for key in ("discoveryContext", "planningContext", "ticketContext")
            if isinstance(c := request.get(key), dict)
        }
        for entry in entries:
            if entry.kind is EntryKind.INTERRUPT:  # children are numbered along the chain
                asked[entry.node_id] = f"{workflow_id}-interrupt-{len(asked) + 1}"
            if entry.payload is None:
                entry = entry.model_copy(update={"payload": self._payload(entry, asked)})
            if entry.tool_call_count and not entry.tool_calls:
                traces = self.tool_calls.get(entry.node_id, {})
                entry = entry.model_copy(update={"tool_calls": list(traces.values())})
            filled.append(entry)
        _link_curations(filled)
        return filled

    def _payload(self, entry: HistoryEntry, asked: dict[str, str]) -> dict[str, Any] | None:
        node = entry.node_id
        if entry.kind is EntryKind.REQUEST:
            return self.requests.get(node)
        if entry.kind is EntryKind.OUTPUT:
            return self.outputs.get(node)
        if entry.kind is EntryKind.INTERRUPT:
            question = (self.outputs.get(node) or {}).get("interruptRequest")
            if not isinstance(question, dict):
                return None
            return {"workflowId": asked.get(node, ""), **question}
        if entry.kind is EntryKind.RESOLUTION:
            return self.resolutions.get(asked.get(node, ""))
        return self.contexts.get(entry.context_id)


def _link_curations(entries: list[HistoryEntry]) -> None:
    """A collector's result names the curated contexts derived from it (the workflow adds them
    after the activity returned, so the activity's result in history lacks them)."""
    derived: dict[str, list[str]] = {}
    for entry in entries:
        if entry.kind is EntryKind.CONTEXT:
            for source in entry.upstream_context_ids:
                derived.setdefault(source, []).append(entry.context_id)
    for entry in entries:
        result = (entry.payload or {}).get("collectorResult")
        if entry.kind is EntryKind.OUTPUT and isinstance(result, dict):
            result["derivedCurationIds"] = derived.get(entry.context_id, [])


async def _read_run(handle: WorkflowHandle, entries: dict[int, HistoryEntry]) -> int:
    """Add the entries this run holds; return the lowest index it holds."""
    start = 0
    first_held: int | None = None
    while True:
        page = await handle.query(
            OrchestratorWorkflow.history_page, HistoryPageRequest(start=start, limit=PAGE)
        )
        first_held = page.first_held if first_held is None else first_held
        for entry in page.entries:
            entries.setdefault(entry.index, entry)
        if not page.entries or page.entries[-1].index + 1 >= page.total:
            return first_held
        start = page.entries[-1].index + 1


async def _previous_run(handle: WorkflowHandle) -> str | None:
    """The run this one continued from, if any."""
    async for event in handle.fetch_history_events():
        started = event.workflow_execution_started_event_attributes
        return started.continued_execution_run_id or None
    return None


async def entries_since(
    handle: WorkflowHandle, status: OrchestratorStatus, seen: int
) -> list[HistoryEntry]:
    """Entries with an index of at least ``seen``: from the status head, paging when it skipped."""
    head = status.history
    if head and head[0].index > seen:
        page = await handle.query(
            OrchestratorWorkflow.history_page, HistoryPageRequest(start=seen, limit=PAGE)
        )
        known = {e.index for e in head}
        head = [e for e in page.entries if e.index not in known] + head
    return [e for e in head if e.index >= seen]
