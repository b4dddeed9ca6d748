"""A fork's lineage, closed from its parents' histories (SC-008 across forks).

A fork starts from its parent's state at a past decision (``docs/forks.md``): its blackboard,
its curated contexts and the steps after the point name context ids of the parent's chain
(``wf-<parent's first run id>/...``), which no record of the fork's own chain defines. The export
reads the parent's chain (and its parent's, for a fork of a fork) and writes a ``context``
record for each such id, as it does for its own chain's (``lineage_records.closing_records``).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from temporalio.client import Client
from temporalio.service import RPCError

from agent_interrupts.app.history import read_run
from agent_interrupts.app.lineage_records import closing_records, defined_ids, named_ids
from agent_interrupts.models.forks import FORK_MEMO, ForkLink

MAX_ANCESTORS = 20
"""Parents read at most to close one fork's chain (a fork of a fork of ...)."""


async def fork_link(client: Client, workflow_id: str, run_id: str | None = None) -> ForkLink | None:
    """The link a run was forked with (its memo, which every run of its chain keeps); None: not
    a fork (or its memo cannot be read)."""
    try:
        described = await client.get_workflow_handle(workflow_id, run_id=run_id).describe()
        return ForkLink.model_validate(await described.memo_value(FORK_MEMO))
    except (KeyError, ValueError, RPCError):
        return None


def open_ids(records: list[dict[str, Any]], defined_before: set[str]) -> set[str]:
    """The context ids ``records`` name that neither they nor the records before define."""
    defined = defined_before | {i for r in records for i in defined_ids(r)}
    return {i for r in records for i in named_ids(r)} - defined


async def closed_by_parents(
    client: Client, link: ForkLink | None, missing: set[str], defined: set[str]
) -> list[dict[str, Any]]:
    """``context`` records, read from the chains a fork descends from, for the ``missing`` ids
    its own chain names and does not define (``defined``: ids the file defines already); an id
    none of them defines stays open (``--check`` names it)."""
    added: list[dict[str, Any]] = []
    for _ in range(MAX_ANCESTORS):
        if link is None or not missing:
            break
        parent = link.parent
        try:
            run = await read_run(client, parent.workflow_id)
        except (RPCError, ValidationError):  # its history is gone, or another version's
            break
        asked = [{"upstreamContextIds": sorted(missing)}]
        found = [r for r in closing_records(run, asked, {}) if r["contextId"] not in defined]
        added += found
        defined = defined | {i for r in found for i in defined_ids(r)}
        missing = (missing | {i for r in found for i in named_ids(r)}) - defined
        link = await fork_link(client, parent.workflow_id)
    return added
