"""Closed lineage in a native export (SC-008).

Examples name the context ids they consumed and produced; their payloads name more (requests,
curated contexts, upstream results). Every such id must resolve to a record of the same file, so
a data team can rebuild each decision's chain from the file alone. ``closing_records`` writes a
``context`` record for each id a chain's records name but none defines (a call's request, a
curated context, the result of a step whose example was a duplicate or was skipped, the output
of a node whose question the workflow raised itself);
``check_lineage`` verifies a file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_interrupts.app.history import RecordedInterrupt, RecordedRun
from agent_interrupts.models.contexts import curated_in
from agent_interrupts.models.ids import is_context_id, parse_context_id

_ID_KEYS = ("Id", "Ids", "Links")
"""Payload keys whose values are context ids (``resultId``, ``upstreamContextIds``, ...)."""


def named_ids(value: Any, key: str = "") -> Iterator[str]:
    """The context ids a record or payload names under id keys, depth first."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from named_ids(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from named_ids(item, key)
    elif isinstance(value, str) and key.endswith(_ID_KEYS) and is_context_id(value):
        yield value


def defined_ids(record: dict[str, Any]) -> list[str]:
    """The ids a record defines: an example's products, a context record's own id."""
    if record.get("record") == "example":
        return list(record.get("producedContextIds") or [])
    if record.get("record") == "context":
        return [str(record.get("contextId"))]
    return []


def closing_records(
    run: RecordedRun, written: list[dict[str, Any]], examples_by_result: dict[str, str]
) -> list[dict[str, Any]]:
    """``context`` records for the ids the chain's ``written`` records name and none defines,
    until the chain is closed. ``examples_by_result``: result id -> the id of the example that
    has it (also for a duplicate left out: the identical example written before)."""
    calls_by_request = {
        c.call.upstream_context_ids[0]: c for c in run.calls if c.call.upstream_context_ids
    }
    calls_by_result = {c.call.result_id: c for c in run.calls}
    curated = {
        str(item["contextId"]): item
        for c in run.calls
        for item in curated_in(c.call.request)
        if "sourceResultId" in item
    }
    base = {"record": "context", "workflowId": run.workflow_id, "firstRunId": run.first_run_id}
    defined = {i for r in written for i in defined_ids(r)}
    added: list[dict[str, Any]] = []
    pending = [i for r in written for i in named_ids(r)]
    while pending:
        context_id = pending.pop()
        if context_id in defined:
            continue
        defined.add(context_id)
        if (call := calls_by_request.get(context_id)) is not None:
            record = {
                "kind": "request",
                "nodeId": call.call.node_id,
                "agentType": str(call.call.agent_type),
                "upstreamContextIds": call.call.upstream_context_ids[1:],
                "exampleId": examples_by_result.get(call.call.result_id),
                "payload": call.call.request,
            }
        elif (item := curated.get(context_id)) is not None:
            record = {
                "kind": "curated",
                "upstreamContextIds": [str(item["sourceResultId"])],
                "payload": item,
            }
        elif (call := calls_by_result.get(context_id)) is not None:
            record = {
                "kind": "result",
                "nodeId": call.call.node_id,
                "agentType": str(call.call.agent_type),
                "upstreamContextIds": call.call.upstream_context_ids,
                "exampleId": examples_by_result.get(context_id),
                "payload": call.reply.output,
            }
        elif (raised := raised_by_workflow(run.interrupts, context_id)) is not None:
            record = {
                "kind": "raised",
                "nodeId": raised.asked.origin_node_id,
                "agentType": str(raised.asked.origin),
                "interruptId": raised.interrupt_id,
                "upstreamContextIds": [],
                "payload": raised.asked.request.to_wire(),
            }
        else:
            continue  # nothing in the chain defines it: check_lineage reports it
        full = {**base, "contextId": context_id, **record}
        added.append(full)
        pending.extend(named_ids(full))
    return added


def raised_by_workflow(
    interrupts: Sequence[RecordedInterrupt], context_id: str
) -> RecordedInterrupt | None:
    """The question behind ``context_id`` when it names the output of a node whose question the
    workflow raised without a model call (its dispatched agents' questions lifted, a merge
    conflict): the newest question of that agent type at or before the id's sequence number."""
    try:
        _, agent, seq, _ = parse_context_id(context_id)
    except ValueError:
        return None
    asked_before = [
        (node_seq, interrupt)
        for interrupt in interrupts
        if interrupt.asked.origin == agent
        and (node_seq := _node_seq(interrupt.asked.origin_node_id)) is not None
        and node_seq <= seq
    ]
    return max(asked_before, key=lambda pair: pair[0])[1] if asked_before else None


def _node_seq(node_id: str) -> int | None:
    """``ticket-dispatch-033`` -> 33 (a dispatched agent's ``.../ticket-agent-1`` has none)."""
    number = node_id.rsplit("-", 1)[-1]
    return int(number) if "/" not in node_id and number.isdigit() else None


@dataclass
class LineageReport:
    """What ``check_lineage`` found in a native file."""

    records: int = 0
    ids: int = 0
    unresolved: dict[str, list[str]] = field(default_factory=dict)
    """An id no record defines -> where it is named (``<workflow id>/<node or context id>``)."""

    def lines(self) -> list[str]:
        if not self.unresolved:
            return [
                f"lineage closed: {self.records} records name {self.ids} context ids, all defined"
            ]
        out = [
            f"lineage open: {len(self.unresolved)} of {self.ids} context ids named in "
            f"{self.records} records are defined by no record"
        ]
        for context_id, where in list(self.unresolved.items())[:10]:
            out.append(f"  {context_id} (named by {', '.join(where[:3])})")
        return out


def check_lineage(lines: Iterable[str]) -> LineageReport:
    """Every context id a native export's records name must be defined by one of them."""
    report = LineageReport()
    named: dict[str, list[str]] = {}
    defined: set[str] = set()
    for line in lines:
        if not line.strip():
            continue
        record = json.loads(line)
        report.records += 1
        defined.update(defined_ids(record))
        where = f"{record.get('workflowId')}/{record.get('nodeId') or record.get('contextId')}"
        for context_id in named_ids(record):
            named.setdefault(context_id, []).append(where)
    report.ids = len(named)
    report.unresolved = {i: w for i, w in named.items() if i not in defined}
    return report


def check_file(path: Path) -> LineageReport:
    with path.open(encoding="utf-8") as lines:
        return check_lineage(lines)


def check_files(paths: Sequence[Path]) -> LineageReport:
    """``check_lineage`` over several files read as one: a preference file's context ids are
    defined by the native export of the same runs."""

    def lines() -> Iterator[str]:
        for path in paths:
            with path.open(encoding="utf-8") as each:
                yield from each

    return check_lineage(lines())
