"""Fixtures of the workflow tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def replay_cache(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """Where the recorded histories' replays are kept for this session (``tests/histories/
    replays.py``): a folder all of its xdist workers share, fresh each session."""
    base = tmp_path_factory.getbasetemp()
    return (base if worker_id == "master" else base.parent) / "replays"
