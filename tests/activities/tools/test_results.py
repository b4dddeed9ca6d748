"""The tool-result store the export reads tool-using steps from."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agent_interrupts.activities.tools.results import ToolResultStore


def test_a_result_is_kept_once_by_its_hash_and_read_back_intact(tmp_path: Path) -> None:
    store = ToolResultStore(tmp_path / "results")
    text = "calc/ops.py:2: return a - b  # bug\n✓"
    sha = store.put(text)
    assert sha == hashlib.sha256(text.encode()).hexdigest()
    assert store.put(text) == sha, "a replayed round writes the same file"
    assert store.get(sha) == text
    assert len(list((tmp_path / "results").rglob("*"))) == 2  # one folder, one file, no staging


def test_a_missing_damaged_or_malformed_name_is_not_a_result(tmp_path: Path) -> None:
    store = ToolResultStore(tmp_path)
    sha = store.put("the real result")
    assert store.get("0" * 64) is None
    (tmp_path / sha[:2] / sha).write_text("tampered")
    assert store.get(sha) is None
    assert store.get("../../etc/passwd") is None
