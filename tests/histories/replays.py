"""Every recorded history replayed once per test session, however many tests ask about it.

The replay test asks whether each history replays; the patch registry's test asks which patch ids
each one's workflow tasks hit. Both read the same replay: one ``Replayer`` replays a version's
histories in a row (one replay worker, not one per history), notes each one's failure and patch
calls, and the first test process (xdist worker) to ask writes the answers to a file the others
read under a lock.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer
from temporalio.worker._workflow_instance import _WorkflowInstanceImpl

from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS
from tests.histories.keys import RECORDING_RING
from tests.histories.landed import HISTORIES


def history_name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@contextmanager
def recording(calls: dict[str, set[bool]]) -> Iterator[None]:
    """Every ``workflow.patched``/``deprecate_patch`` answer of the replays in the block, kept in
    ``calls``. The SDK's own method still decides; this only writes its answer down."""
    decide = _WorkflowInstanceImpl.workflow_patch

    def record(self: _WorkflowInstanceImpl, id: str, *, deprecated: bool, **rest: Any) -> bool:
        used = decide(self, id, deprecated=deprecated, **rest)
        calls.setdefault(id, set()).add(used)
        return used

    _WorkflowInstanceImpl.workflow_patch = record  # type: ignore[method-assign]
    try:
        yield
    finally:
        _WorkflowInstanceImpl.workflow_patch = decide  # type: ignore[method-assign]


@dataclass(frozen=True)
class Replayed:
    failure: str | None
    """Why the replay failed (None: it replayed)."""
    uses: dict[str, set[bool]]
    """patch id -> what ``workflow.patched`` answered in the replay."""


def _history(path: Path) -> WorkflowHistory:
    raw = path.read_text()
    first = json.loads(raw)["events"][0]
    workflow_id = first["workflowExecutionStartedEventAttributes"].get("workflowId", path.stem)
    return WorkflowHistory.from_json(workflow_id, raw)


async def replay(paths: list[Path]) -> dict[str, Replayed]:
    """Replay ``paths`` in a row against the current workflow code ("<version>/<name>" -> what
    happened). The replayer takes the next history only when the last one's replay is over, so
    the patch calls made in between are that history's. Determinism is checked as by a worker;
    only the wall-clock deadlock guard is off (the SDK's debug mode, which also allows
    ``breakpoint()``)."""
    replayer = Replayer(
        workflows=WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        data_converter=data_converter(RECORDING_RING),  # reads plaintext and encrypted histories
        # no deadlock detector: it fails a workflow task that holds the thread for 2 s of wall
        # time, which a replay on two busy cores may take without any fault of the code
        debug_mode=True,
    )
    calls: dict[str, set[bool]] = {}
    answers: dict[str, Replayed] = {}

    async def histories() -> AsyncIterator[WorkflowHistory]:
        for path in paths:
            calls.clear()
            yield _history(path)

    with recording(calls):
        async with replayer.workflow_replay_iterator(histories()) as results:
            index = 0
            async for result in results:
                failure = result.replay_failure
                answers[history_name(paths[index])] = Replayed(
                    None if failure is None else f"{type(failure).__name__}: {failure}",
                    {i: set(used) for i, used in calls.items()},
                )
                index += 1
    return answers


def replayed(version: str, cache: Path) -> dict[str, Replayed]:
    """``version``'s histories replayed once for the whole session: the first process to ask
    replays them and keeps the answers in ``cache`` (a folder every test process shares)."""
    cache.mkdir(parents=True, exist_ok=True)
    answers = cache / f"{version}.json"
    with (cache / f"{version}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not answers.is_file():
            done = asyncio.run(replay(sorted((HISTORIES / version).glob("*.json"))))
            wire = {
                name: {"failure": r.failure, "uses": {i: sorted(u) for i, u in r.uses.items()}}
                for name, r in done.items()
            }
            partial = answers.with_suffix(".part")
            partial.write_text(json.dumps(wire))
            partial.replace(answers)
    return {
        name: Replayed(r["failure"], {i: set(u) for i, u in r["uses"].items()})
        for name, r in json.loads(answers.read_text()).items()
    }
