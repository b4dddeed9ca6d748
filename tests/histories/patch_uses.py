"""Which patch ids each recorded history's workflow tasks hit, and on which branch.

Replaying a history runs every ``workflow.patched(id)`` call its workflow tasks make; the SDK
answers ``True`` when the history holds the id's marker (the run was recorded by code that had
the patch) and ``False`` when it does not (the run took the path before the patch). Old histories
hold no markers, so the calls are recorded while replaying: ``python -m tests.histories.patch_uses``
prints the ``old_branch``/``new_branch`` patterns that ``workflows/patches.py`` may claim.
"""

from __future__ import annotations

import asyncio
from fnmatch import fnmatchcase
from pathlib import Path

from tests.histories.landed import HISTORIES
from tests.histories.replays import replay

Uses = dict[str, dict[str, set[bool]]]
"""history ("<version>/<name>") -> patch id -> what ``workflow.patched`` answered in its replay."""


async def patch_uses(paths: list[Path] | None = None) -> Uses:
    """Replay each recorded history (all of them by default) against the current workflow code."""
    done = await replay(paths if paths is not None else sorted(HISTORIES.glob("*/*.json")))
    for name, replayed in done.items():
        assert replayed.failure is None, f"{name}: {replayed.failure}"
    return {name: replayed.uses for name, replayed in done.items()}


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
