"""Which patch ids each recorded history's workflow tasks hit, and on which branch.

Replaying a history runs every ``workflow.patched(id)`` call its workflow tasks make; the SDK
answers ``True`` when the history holds the id's marker (the run was recorded by code that had
the patch) and ``False`` when it does not (the run took the path before the patch). Old histories
hold no markers, so the calls are recorded while replaying: ``python -m tests.histories.patch_uses``
prints the ``old_branch``/``new_branch`` patterns that ``workflows/patches.py`` may claim.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer
from temporalio.worker._workflow_instance import _WorkflowInstanceImpl

from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS
from tests.histories.landed import HISTORIES

Uses = dict[str, dict[str, set[bool]]]
"""history ("<version>/<name>") -> patch id -> what ``workflow.patched`` answered in its replay."""


def history_name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@contextmanager
def _recording(calls: dict[str, set[bool]]) -> Iterator[None]:
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


async def patch_uses(paths: list[Path] | None = None) -> Uses:
    """Replay each recorded history (all of them by default) against the current workflow code."""
    replayer = Replayer(
        workflows=WORKFLOWS, workflow_runner=WORKFLOW_RUNNER, data_converter=pydantic_data_converter
    )
    uses: Uses = {}
    for path in paths if paths is not None else sorted(HISTORIES.glob("*/*.json")):
        raw = path.read_text()
        first = json.loads(raw)["events"][0]
        workflow_id = first["workflowExecutionStartedEventAttributes"].get("workflowId", path.stem)
        calls: dict[str, set[bool]] = {}
        with _recording(calls):
            result = await replayer.replay_workflow(
                WorkflowHistory.from_json(workflow_id, raw), raise_on_replay_failure=False
            )
        assert result.replay_failure is None, f"{history_name(path)}: {result.replay_failure}"
        uses[history_name(path)] = calls
    return uses


def taking(uses: Uses, patch_id: str, branch: bool) -> set[str]:
    """The histories whose replay answered ``patched(patch_id)`` with ``branch``."""
    return {h for h, calls in uses.items() if branch in calls.get(patch_id, set())}


def matching(uses: Uses, pattern: str) -> set[str]:
    return {h for h in uses if fnmatchcase(h, pattern)}


def versions(histories: set[str]) -> set[str]:
    return {h.split("/", 1)[0] for h in histories}


def suggest(uses: Uses, patch_id: str, branch: bool) -> list[str]:
    """Few patterns, each matching only histories on ``branch``, covering every version whose
    histories take it: a shape named the same in every folder (``*/<name>``) where one is true,
    else one history per version."""
    on = taking(uses, patch_id, branch)
    names = sorted({h.split("/", 1)[1] for h in on})
    wide = [n for n in names if matching(uses, f"*/{n}") <= on]
    wide.sort(key=lambda n: -len(versions(matching(uses, f"*/{n}"))))
    patterns: list[str] = []
    left = versions(on)
    for name in wide:
        covers = versions(matching(uses, f"*/{name}"))
        if covers & left:
            patterns.append(f"*/{name}")
            left -= covers
    for version in sorted(left):
        patterns.append(min(h for h in on if h.startswith(f"{version}/")))
    return patterns


def main() -> None:
    uses = asyncio.run(patch_uses())
    ids = sorted({i for calls in uses.values() for i in calls})
    for patch_id in ids:
        print(patch_id)
        print("    old_branch=", tuple(suggest(uses, patch_id, False)))
        print("    new_branch=", tuple(suggest(uses, patch_id, True)))


if __name__ == "__main__":
    main()
