"""Read a run's whole blackboard: the ``history_page`` query, page by page, back along the run
chain (continue-as-new), since each run holds only its own entries and a few carried ones.

State keeps payloads only for the newest entries; with ``payloads=True`` the others are read back
from each run's event history: a REQUEST is the agent call's request (its activity input), an
OUTPUT the agent's reply (its activity result), a RESOLUTION the interrupt child's result, an
INTERRUPT the question in its node's output (or, for questions the workflow raised for dispatched
agents, in the interrupt child's input, which also holds the node's request). CONTEXT payloads
are the curated contexts, which the requests after them carry. An OUTPUT's tool calls are read
from the replies of its rounds.

A query's answer must stay under the server's size limit (2 MB by default), and entries with
their payloads can be hundreds of kB each: ``read_pages`` halves a page that is over it, down to
one entry, and skips an entry that is over it alone.

``read_run`` reads the same histories without a query (no worker needed, closed runs too): every
agent call with its reply, and every interrupt with its question, answer and translation (the
export and the stats read it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from agent_interrupts.activities.teams import PinnedTeamReader
from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.code import MergeOutcome, TicketCommit
from agent_interrupts.models.contexts import curated_in
from agent_interrupts.models.errors import TeamError
from agent_interrupts.models.interrupt_flow import (
    InterruptInput,
    InterruptOutcome,
    ReviewInput,
    ShadowAnswer,
    TranslationInput,
)
from agent_interrupts.models.interrupts import InterruptResolution, ResolvedBy
from agent_interrupts.models.state import (
    EntryKind,
    HistoryEntry,
    HistoryPage,
    HistoryPageRequest,
    OrchestratorStatus,
)
from agent_interrupts.models.team_build import remember, team_of
from agent_interrupts.models.team_spec import Role, TeamPin
from agent_interrupts.models.tools import ToolTrace
from agent_interrupts.workflows.lifting import lifted_output
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.shadow import SHADOW_SUFFIX

PAGE = 500
"""Entries a ``history_page`` query asks for at most (the most ``HistoryPageRequest`` takes)."""
PAST_THE_END = 2**31
"""A ``start`` past every entry: the page holds none, only where the run's entries begin and end."""
TOO_BIG = ("blob data size exceeds limit", "grpc message too large")
"""How the server refuses an answer over its size limits: a payload over ``limit.blobSize.error``
(2 MB by default), a message over the gRPC limit (4 MB)."""

log = logging.getLogger(__name__)


def too_big(err: WorkflowQueryFailedError) -> bool:
    """Whether the query's answer was over the server's size limit."""
    return any(said in err.message.lower() for said in TOO_BIG)


def over_the_limit(skipped: list[int], workflow_id: str) -> str:
    """One line naming the entries no query could read."""
    some = f"entry {skipped[0]}" if len(skipped) == 1 else f"entries {', '.join(map(str, skipped))}"
    return (
        f"{some} of {workflow_id} left out: over the server's size limit for a query's answer "
        "even alone"
    )


@dataclass
class Pages:
    """Entries a run holds, read by ``history_page`` queries."""

    entries: list[HistoryEntry] = field(default_factory=list)
    first_held: int = 0
    """The lowest index the run holds; older entries are in earlier runs of the chain."""
    total: int = 0
    """``entriesRecorded``: the index the next entry will get."""
    skipped: list[int] = field(default_factory=list)
    """Indices of entries over the size limit even alone: not in ``entries``."""


async def read_pages(handle: WorkflowHandle, start: int, stop: int | None = None) -> Pages:
    """The entries from index ``start`` (to ``stop``, or all) that the run holds, in order.

    A page whose answer is over the server's size limit is asked again with half as many
    entries (of those left), down to one; an entry over the limit alone is skipped. After a page
    that came back, the next asks for twice as many again (at most ``PAGE``, at most those left):
    a closed run replays its whole history for every query, so each query counts.
    """
    pages = Pages()
    limit = PAGE
    bounds: HistoryPage | None = None
    while stop is None or start < stop:
        ask = limit if stop is None else min(limit, stop - start)
        try:
            page = await _page(handle, start, ask)
        except WorkflowQueryFailedError as err:
            if not too_big(err):
                raise
            bounds = bounds or await _page(handle, PAST_THE_END, 1)
            start = max(start, bounds.first_held)  # a start before the run's entries: its first
            if ask > 1:  # half of those asked for, or of those left (``total`` may have grown)
                limit = max(min(ask, bounds.total - start) // 2, 1)
                continue
            pages.skipped.append(start)
            pages.first_held, pages.total = bounds.first_held, max(bounds.total, start + 1)
            start += 1
            continue
        pages.first_held, pages.total = page.first_held, page.total
        pages.entries += page.entries
        if not page.entries or page.entries[-1].index + 1 >= page.total:
            break
        start = page.entries[-1].index + 1
        limit = min(2 * len(page.entries), PAGE, page.total - start)
    if stop is not None:
        pages.entries = [e for e in pages.entries if e.index < stop]
    return pages


async def _page(handle: WorkflowHandle, start: int, limit: int) -> HistoryPage:
    return await handle.query(
        OrchestratorWorkflow.history_page, HistoryPageRequest(start=start, limit=limit)
    )


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
        if first_held == 0 and not payloads:
            break
        # reading payloads reads the whole history, which names the previous run too
        previous = await recorded.read(client, handle) if payloads else await _previous_run(handle)
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
    asked: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Interrupt children's inputs by the node that asked: a question the workflow raised for
    dispatched agents has no agent call, so its node's request and question are read here."""
    teams: dict[str, TeamPin | None] = field(default_factory=dict)
    """The team of the run whose node asked (its dispatcher's output is that team's)."""
    tool_calls: dict[str, dict[str, ToolTrace]] = field(default_factory=dict)
    """Each node's tool calls, from all its rounds' replies, by call id."""

    async def read(self, client: Client, handle: WorkflowHandle) -> str | None:
        """Take in one run's history; return the run it continued from, if any."""
        run = await _run_events(client, handle)
        for _, call, reply in run.calls:
            self.requests[call.node_id] = {**call.request, "goal": ""}
            self.outputs[call.node_id] = reply.output
            traces = self.tool_calls.setdefault(call.node_id, {})
            traces.update((t.call_id, t) for t in reply.tool_trace)
        for child in run.children:
            self.asked[child.asked.origin_node_id] = child.asked.to_wire()
            self.teams[child.asked.origin_node_id] = child.asked.team
            if child.outcome is not None:
                self.resolutions[child.workflow_id] = child.outcome.routing
        return run.previous_run_id or None

    def fill(self, entries: list[HistoryEntry], workflow_id: str) -> list[HistoryEntry]:
        filled = []
        asked: dict[str, str] = {}
        self.contexts = {
            str(c["contextId"]): c
            for request in self.requests.values()
            for c in curated_in(request)
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
        job = self.asked.get(node, {})
        if entry.kind is EntryKind.REQUEST:
            return self.requests.get(node, job.get("originRequest"))
        if entry.kind is EntryKind.OUTPUT:
            if node in self.outputs or not job:
                return self.outputs.get(node)
            return lifted_output(
                entry.agent_type,
                job["request"],
                entry.summary,
                entry.context_id,
                entry.upstream_context_ids,
                team_of(self.teams.get(node)),
            )
        if entry.kind is EntryKind.INTERRUPT:
            question = (self.outputs.get(node) or {}).get("interruptRequest") or job.get("request")
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
    pages = await read_pages(handle, 0)
    if pages.skipped:
        log.warning(over_the_limit(pages.skipped, handle.id))
    for entry in pages.entries:
        entries.setdefault(entry.index, entry)
    return pages.first_held


async def _previous_run(handle: WorkflowHandle) -> str | None:
    """The run this one continued from, if any."""
    async for event in handle.fetch_history_events():
        started = event.workflow_execution_started_event_attributes
        return started.continued_execution_run_id or None
    return None


async def chain_pages(
    client: Client, workflow_id: str, start: int, stop: int | None = None, run_id: str | None = None
) -> Pages:
    """The entries from index ``start`` (to ``stop``, or all) along the run chain that ends at
    ``run_id`` (default: the latest run): a run that continued as new since ``start`` holds only
    its newest entries, so the ones before those are read from the runs it continued from."""
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    pages = await read_pages(handle, start, stop)
    if pages.first_held <= start or (stop is not None and start >= stop):
        return pages
    previous = await _previous_run(handle)
    if previous is None:
        return pages
    held_from = pages.first_held if stop is None else min(stop, pages.first_held)
    earlier = await chain_pages(client, workflow_id, start, held_from, previous)
    return Pages(
        entries=earlier.entries + pages.entries,
        first_held=earlier.first_held,
        total=pages.total,
        skipped=earlier.skipped + pages.skipped,
    )


async def entries_since(
    client: Client, workflow_id: str, status: OrchestratorStatus | None, seen: int
) -> Pages:
    """Entries of the run chain with an index of at least ``seen``: from the status head, paging
    what it skipped (from earlier runs too, when the run continued as new meanwhile); with no
    status (its answer was over the size limit), all paged. ``total`` is where the next call
    starts."""
    if status is None:
        return await chain_pages(client, workflow_id, seen)
    head = [e for e in status.history if e.index >= seen]
    pages = Pages(head, total=status.entries_recorded)
    if head and head[0].index > seen:
        before = await chain_pages(client, workflow_id, seen, stop=head[0].index)
        pages.entries = before.entries + head
        pages.skipped = before.skipped
    return pages


@dataclass(frozen=True)
class RecordedCall:
    """An agent call the run used: its input (the prompt is rendered from it) and its reply."""

    run_id: str
    position: tuple[int, int]
    """(run of the chain, event id): the order in which the run made its calls."""
    call: AgentCall
    reply: AgentReply


@dataclass(frozen=True)
class RecordedInterrupt:
    """One InterruptWorkflow: the question, the answer, the translation, and their times."""

    run_id: str
    position: tuple[int, int]
    interrupt_id: str
    asked: InterruptInput
    outcome: InterruptOutcome | None
    """What the orchestrator received; None when the run ended before an answer."""
    asked_at: datetime
    conflict: str | None = None
    """A merge conflict's two sides (capped), when the question is the merger's about it."""
    shadow: ShadowAnswer | None = None
    """The controller's answer in the person's shadow, once it is recorded."""
    review: ReviewInput | None = None
    """The reviewing call's input (AGENT_REVIEW, escalation), if one was made."""
    reviewed: InterruptResolution | None = None
    translation: TranslationInput | None = None
    translated: InterruptOutcome | None = None
    """The translation activity's own result (before the translation hooks)."""
    answered_at: datetime | None = None
    """When the answer was taken (the translation was scheduled)."""
    translation_seconds: float | None = None


@dataclass
class RecordedRun:
    """A run chain as its histories recorded it, oldest run first."""

    workflow_id: str
    run_ids: list[str]
    goal: str
    calls: list[RecordedCall]
    interrupts: list[RecordedInterrupt]
    diffs: dict[str, str] = field(default_factory=dict)
    """A ticket step's real diff (capped) by its node id: the commit activity's result."""
    tool_traces: dict[str, dict[tuple[int, str], ToolTrace]] = field(default_factory=dict)
    """Every tool call a node's rounds ran, by node id, then by (round, call id)."""

    @property
    def first_run_id(self) -> str:
        """The chain's first run: its id is in every context id of the chain."""
        return self.run_ids[0]


async def read_run(client: Client, workflow_id: str, run_id: str | None = None) -> RecordedRun:
    """The run chain that ends at ``run_id`` (default: the latest), from histories only.

    Of a node's calls only the last completed one is kept (an earlier one was superseded by a
    supervisor's event); every interrupt child's own history is read too.
    """
    runs: list[tuple[str, _RunEvents]] = []
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    while True:
        events = await _run_events(client, handle)
        runs.append((events.run_id, events))
        if not events.previous_run_id:
            break
        handle = client.get_workflow_handle(workflow_id, run_id=events.previous_run_id)
    runs.reverse()
    latest: dict[str, RecordedCall] = {}
    interrupts: list[RecordedInterrupt] = []
    diffs = {node: diff for _, events in runs for node, diff in events.diffs.items()}
    traces: dict[str, dict[tuple[int, str], ToolTrace]] = {}
    for index, (rid, events) in enumerate(runs):
        for event_id, call, reply in events.calls:
            latest.pop(call.node_id, None)
            latest[call.node_id] = RecordedCall(rid, (index, event_id), call, reply)
            if call.tool_requests:  # a round's trace is of the calls its request carried last
                ran = call.tool_requests[-1].round
                node = traces.setdefault(call.node_id, {})
                node.update(((ran, t.call_id), t) for t in reply.tool_trace)
    asked = [(rid, index, c) for index, (rid, events) in enumerate(runs) for c in events.children]
    last_asked = {child.workflow_id: i for i, (_, _, child) in enumerate(asked)}
    for i, (rid, index, child) in enumerate(asked):
        if last_asked[child.workflow_id] == i:  # a question handed over is asked again: once
            interrupts.append(await _read_interrupt(client, rid, (index, child.event_id), child))
    goal = runs[0][1].goal
    calls = sorted(latest.values(), key=lambda c: c.position)
    run_ids = [rid for rid, _ in runs]
    return RecordedRun(workflow_id, run_ids, goal, calls, interrupts, diffs, traces)


@dataclass
class _Child:
    event_id: int
    workflow_id: str
    asked: InterruptInput
    run_id: str = ""
    outcome: InterruptOutcome | None = None
    conflict: str | None = None


@dataclass
class _RunEvents:
    run_id: str = ""
    previous_run_id: str = ""
    goal: str = ""
    calls: list[tuple[int, AgentCall, AgentReply]] = field(default_factory=list)
    children: list[_Child] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)


async def _run_events(client: Client, handle: WorkflowHandle) -> _RunEvents:
    """One run's completed agent calls and its interrupt children, in event order."""
    convert = client.data_converter
    run = _RunEvents()
    calls: dict[int, AgentCall] = {}
    commits: set[int] = set()
    merges: set[int] = set()
    pins = PinnedTeamReader()
    """The run's team, whole, which its agent calls name by hash alone."""
    conflict: str | None = None
    """The sides of the latest merge that conflicted: the merger's next question is about it."""
    children: dict[int, _Child] = {}
    async for event in handle.fetch_history_events():
        if (pinned := pins.read(event)) is not None:
            remember(pinned)
        kind = event.event_type
        if kind == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            started = event.workflow_execution_started_event_attributes
            run.run_id = started.original_execution_run_id
            run.previous_run_id = started.continued_execution_run_id
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == "run_agent":
                (call,) = await convert.decode(attrs.input.payloads, [AgentCall])
                calls[event.event_id] = call
                run.goal = run.goal or call.goal
            elif attrs.activity_type.name == "commit_ticket":
                commits.add(event.event_id)
            elif attrs.activity_type.name == "merge_tickets":
                merges.add(event.event_id)
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            done = event.activity_task_completed_event_attributes
            call = calls.get(done.scheduled_event_id)
            if call is not None:
                (reply,) = await convert.decode(done.result.payloads, [AgentReply])
                run.calls.append((done.scheduled_event_id, call, reply))
            elif done.scheduled_event_id in commits:
                (commit,) = await convert.decode(done.result.payloads, [TicketCommit])
                run.diffs[commit.node_id] = commit.diff.text
            elif done.scheduled_event_id in merges:
                (merge,) = await convert.decode(done.result.payloads, [MergeOutcome])
                conflict = conflict_sides(merge)
        elif kind == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
            initiated = event.start_child_workflow_execution_initiated_event_attributes
            (asked,) = await convert.decode(initiated.input.payloads, [InterruptInput])
            child = _Child(event.event_id, initiated.workflow_id, asked)
            if conflict is not None and _asked_by(asked) is Role.MERGER:
                child.conflict, conflict = conflict, None
            children[event.event_id] = child
        elif kind == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
            began = event.child_workflow_execution_started_event_attributes
            children[began.initiated_event_id].run_id = began.workflow_execution.run_id
        elif kind == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
            closed = event.child_workflow_execution_completed_event_attributes
            (outcome,) = await convert.decode(closed.result.payloads, [InterruptOutcome])
            children[closed.initiated_event_id].outcome = outcome
    run.children = list(children.values())
    return run


def _asked_by(asked: InterruptInput) -> Role:
    """The role of the agent whose question ``asked`` is, in its run's team (``Role.AGENT`` when
    the team cannot be read)."""
    try:
        return team_of(asked.team).role(asked.origin)
    except TeamError:
        return Role.AGENT


async def _read_interrupt(
    client: Client, run_id: str, position: tuple[int, int], child: _Child
) -> RecordedInterrupt:
    """The child's question time, its reviewing call and its translation, from its history."""
    convert = client.data_converter
    found: dict[str, Any] = {}
    scheduled: dict[int, tuple[str, datetime]] = {}
    asked_at = datetime.min.replace(tzinfo=UTC)
    handle = client.get_workflow_handle(child.workflow_id, run_id=child.run_id or None)
    async for event in handle.fetch_history_events():
        kind = event.event_type
        if kind == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            asked_at = _time(event)
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            name = attrs.activity_type.name
            if name in _INTERRUPT_ACTIVITIES:
                input_type, _ = _INTERRUPT_ACTIVITIES[name]
                (found[name],) = await convert.decode(attrs.input.payloads, [input_type])
                scheduled[event.event_id] = (name, _time(event))
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            done = event.activity_task_completed_event_attributes
            name, at = scheduled.get(done.scheduled_event_id, ("", asked_at))
            if name:
                _, result_type = _INTERRUPT_ACTIVITIES[name]
                (found[name + ":result"],) = await convert.decode(
                    done.result.payloads, [result_type]
                )
                found[name + ":seconds"] = (_time(event) - at).total_seconds()
    answered_at = next((at for name, at in scheduled.values() if name == _TRANSLATE), None)
    return RecordedInterrupt(
        run_id=run_id,
        position=position,
        interrupt_id=child.workflow_id,
        asked=child.asked,
        outcome=child.outcome,
        asked_at=asked_at,
        conflict=child.conflict,
        shadow=await _shadow_answer(client, child.workflow_id + SHADOW_SUFFIX)
        if child.asked.shadow and _by_a_person(child.outcome)
        else None,
        review=found.get(_REVIEW),
        reviewed=found.get(_REVIEW + ":result"),
        translation=found.get(_TRANSLATE),
        translated=found.get(_TRANSLATE + ":result"),
        answered_at=answered_at,
        translation_seconds=found.get(_TRANSLATE + ":seconds"),
    )


def _by_a_person(outcome: InterruptOutcome | None) -> bool:
    return outcome is not None and outcome.resolution.resolved_by is ResolvedBy.HUMAN


async def _shadow_answer(client: Client, workflow_id: str) -> ShadowAnswer | None:
    """The shadow workflow's result; None while it runs, or if it never started."""
    try:
        async for event in client.get_workflow_handle(workflow_id).fetch_history_events():
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
                done = event.workflow_execution_completed_event_attributes
                (answer,) = await client.data_converter.decode(done.result.payloads, [ShadowAnswer])
                return answer
    except RPCError as err:
        if err.status is not RPCStatusCode.NOT_FOUND:
            raise
    return None


_REVIEW = "review_interrupt"
_TRANSLATE = "translate_resolution"
_INTERRUPT_ACTIVITIES: dict[str, tuple[type, type]] = {
    _REVIEW: (ReviewInput, InterruptResolution),
    _TRANSLATE: (TranslationInput, InterruptOutcome),
}


def conflict_sides(merge: MergeOutcome) -> str | None:
    """A conflicting merge's files, each as the run branch's and the ticket's lines."""
    if merge.conflict_ticket is None:
        return None
    return "".join(
        f"--- a/{side.path} ({merge.run_branch})\n{side.ours}\n"
        f"+++ b/{side.path} ({merge.conflict_ticket})\n{side.theirs}\n"
        for side in merge.conflicts
    )


def _time(event: HistoryEvent) -> datetime:
    return event.event_time.ToDatetime(tzinfo=UTC)
