"""In-flight runs survive deploys: every history recorded by a landed version,
in ``tests/histories/<version>/``, replays against the current workflow code.

Record a landed version's histories with its own code: ``python -m tests.histories.record_landed
<version>``; the current code's with ``python -m tests.histories.record``."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.histories.landed import HISTORIES, LANDED, REPO, version_dirs
from tests.histories.replays import history_name, replayed

RECORDED = sorted(HISTORIES.glob("*/*.json"))
RETIRED = re.compile(r"^- retired `(?P<version>[0-9a-f]{7,40})`: \S", re.MULTILINE)
"""How docs/deploys.md states why a version's histories left the corpus."""
DEPLOYS = REPO / "docs" / "deploys.md"


def _retired() -> set[str]:
    return {m["version"] for m in RETIRED.finditer(DEPLOYS.read_text())}


def test_every_landed_version_has_its_histories_or_a_stated_reason() -> None:
    """A version's folder may leave the corpus only with a reason in docs/deploys.md."""
    present = {p.name for p in version_dirs()}
    retired = _retired()
    for version in LANDED:
        assert version in present or version in retired, (
            f"tests/histories/{version}/ is missing: runs that {version} left waiting would no "
            f"longer be checked. Restore it, or add '- retired `{version}`: <reason>' to "
            "docs/deploys.md"
        )
    assert present <= set(LANDED), f"unlisted history folders: {present - set(LANDED)}"


def test_no_folder_of_histories_left_git_without_a_reason() -> None:
    """Folders once committed under tests/histories/ are still here, or retired in deploys.md."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "log", "--format=", "--name-only", "--", "tests/histories/"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip(f"git log failed: {listed.stderr.strip()}")
    committed = {
        Path(line).parts[2]
        for line in listed.stdout.splitlines()
        if line.endswith(".json") and len(Path(line).parts) == 4
    }
    gone = committed - {p.name for p in version_dirs()} - _retired()
    assert not gone, f"history folders removed without a reason in docs/deploys.md: {sorted(gone)}"


@pytest.mark.parametrize("version", list(LANDED))
def test_each_version_recorded_a_waiting_question_or_a_finished_run(version: str) -> None:
    names = [p.name for p in (HISTORIES / version).glob("*.json")]
    assert any(n.startswith("orchestrator-") for n in names), f"{version}: no orchestrator run"
    assert any(n.startswith("interrupt-") for n in names), f"{version}: no question"


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_recorded_history_replays(path: Path, replay_cache: Path) -> None:
    name = history_name(path)
    failure = replayed(path.parent.name, replay_cache)[name].failure
    assert failure is None, f"{name}: {failure}"
