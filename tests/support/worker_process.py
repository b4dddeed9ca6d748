"""A real ``python worker.py`` for tests that stop or kill it while a run waits on a question."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from temporalio.client import Client

from bench.harness import worker_env

ROOT = Path(__file__).resolve().parents[2]


def asking_worker(
    client: Client, task_queue: str, state: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``worker.py`` on ``task_queue`` with its own state directory, whose offline model makes
    the ORCHESTRATOR ask a person at once; no stuck-run watch. ``env`` adds or overrides
    settings."""
    return subprocess.Popen(
        [sys.executable, "worker.py"],
        cwd=ROOT,
        env=worker_env(client, task_queue)
        | {
            "AGENTS_STATE_DIR": str(state),
            "OFFLINE_SCENARIO": "interrupt=ORCHESTRATOR",
            "AGENTS_STUCK_CHECK_SECONDS": "0",
        }
        | (env or {}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
