"""Every patch id has an end: it is registered in ``workflows/patches.py`` with the landed version
that added it and the recorded histories that reach each of its branches, and those claims hold
when the histories are replayed against the current code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agent_interrupts.workflows import patches
from agent_interrupts.workflows.patches import BY_ID, NEXT, PATCHES
from tests.histories import replays
from tests.histories.landed import LANDED, REPO, version_dirs
from tests.histories.patch_uses import Uses, matching, taking, versions

WORKFLOWS = REPO / "workflows"
REGISTRY = "agent_interrupts.workflows.patches"
PATCH_CALLS = {"patched", "deprecate_patch"}
ORDER = [*LANDED, NEXT]


def _patch_calls(source: str) -> list[tuple[int, str | None]]:
    """(line, registered id or None) of each ``workflow.patched``/``deprecate_patch`` call:
    the id counts as registered only when it is a name imported from the registry (or
    ``patches.<NAME>``) that the registry defines."""
    tree = ast.parse(source)
    imported = {
        alias.asname or alias.name: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == REGISTRY
        for alias in node.names
    }
    calls: list[tuple[int, str | None]] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in PATCH_CALLS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "workflow"
        ):
            continue
        arg = node.args[0] if node.args else None
        name = None
        if isinstance(arg, ast.Name) and arg.id in imported:
            name = imported[arg.id]
        elif (
            isinstance(arg, ast.Attribute)
            and isinstance(arg.value, ast.Name)
            and arg.value.id == "patches"
        ):
            name = arg.attr
        value = getattr(patches, name, None) if name else None
        calls.append((node.lineno, value if value in BY_ID else None))
    return calls


def _all_calls() -> dict[str, list[tuple[int, str | None]]]:
    return {
        str(path.relative_to(REPO)): _patch_calls(path.read_text())
        for path in sorted(WORKFLOWS.rglob("*.py"))
    }


def test_the_scan_refuses_an_id_the_registry_does_not_hold() -> None:
    source = (
        "from temporalio import workflow\n"
        f"from {REGISTRY} import STUCK_WAYS_OUT\n"
        "workflow.patched(STUCK_WAYS_OUT)\n"
        "workflow.patched(patches.FREE_TEXT)\n"
        'workflow.patched("99-made-up")\n'
        "workflow.deprecate_patch(LOCAL)\n"
    )
    assert _patch_calls(source) == [
        (3, patches.STUCK_WAYS_OUT),
        (4, patches.FREE_TEXT),
        (5, None),
        (6, None),
    ]


def test_every_patched_call_takes_a_registered_id() -> None:
    found = _all_calls()
    unregistered = [f"{f}:{line}" for f, calls in found.items() for line, i in calls if i is None]
    assert not unregistered, (
        f"workflow.patched ids not taken from workflows/patches.py: {unregistered}; register the "
        "id there (its version, histories and end) and import it from there"
    )
    used = {i for calls in found.values() for _, i in calls}
    assert set(BY_ID) <= used, (
        f"registered ids no workflow calls: {sorted(set(BY_ID) - used)}; remove their entries "
        "from workflows/patches.py (docs/deploys.md, Patches with an end)"
    )


def test_each_entry_names_its_versions() -> None:
    assert len(BY_ID) == len(PATCHES), "an id is registered twice in workflows/patches.py"
    for patch in PATCHES:
        assert patch.added_in in ORDER, f"{patch.id}: added_in {patch.added_in} is not landed"
        before = ORDER[ORDER.index(patch.added_in) - 1]
        assert patch.deprecate_after == before, (
            f"{patch.id}: deprecate_after should be {before}, the version before {patch.added_in}"
        )


@pytest.fixture(scope="module")
def uses(replay_cache: Path) -> Uses:
    """What every recorded history's replay answered: the replays the replay test reads too."""
    return {
        name: replayed.uses
        for version in version_dirs()
        for name, replayed in replays.replayed(version.name, replay_cache).items()
    }


@pytest.mark.parametrize("patch_id", list(BY_ID))
def test_the_histories_an_entry_names_take_its_branches(uses: Uses, patch_id: str) -> None:
    """Each pattern names at least one history, every history it names takes that branch, and
    every version whose histories take a branch is named; a run recorded before ``added_in``
    never holds the id's marker, one recorded from it on always does."""
    patch = BY_ID[patch_id]
    for branch, patterns in ((False, patch.old_branch), (True, patch.new_branch)):
        on = taking(uses, patch_id, branch)
        for pattern in patterns:
            named = matching(uses, pattern)
            assert named, f"{patch_id}: {pattern} names no recorded history"
            assert named <= on, (
                f"{patch_id}: {sorted(named - on)} do not take the "
                f"{'new' if branch else 'old'} branch that {pattern} claims; "
                "python -m tests.histories.patch_uses prints what they take"
            )
        claimed = versions({h for p in patterns for h in matching(uses, p)})
        assert versions(on) == claimed, (
            f"{patch_id}: versions whose histories take its {'new' if branch else 'old'} branch "
            f"are {sorted(versions(on))}, the entry names {sorted(claimed)}; "
            "python -m tests.histories.patch_uses prints patterns to claim"
        )
    added = ORDER.index(patch.added_in)
    old = {v for v in versions(taking(uses, patch_id, False)) if ORDER.index(v) >= added}
    new = {v for v in versions(taking(uses, patch_id, True)) if ORDER.index(v) < added}
    assert not old, f"{patch_id}: {sorted(old)} ran without it: was it added later?"
    assert not new, f"{patch_id}: {sorted(new)} recorded its marker: was it added earlier?"


def test_only_registered_ids_are_reached(uses: Uses) -> None:
    reached = {i for calls in uses.values() for i in calls}
    assert reached <= set(BY_ID), f"unregistered patch ids reached: {reached - set(BY_ID)}"
