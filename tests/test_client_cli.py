"""The README's main command: ``python client.py run "<goal>"`` with the embedded dev server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _client(*args: str, state_dir: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEMPORAL_", "OPENAI_"))}
    env["AGENTS_STATE_DIR"] = str(state_dir)
    return subprocess.run(
        [sys.executable, str(ROOT / "client.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def test_run_with_empty_goal_explains_what_to_do(tmp_path: Path) -> None:
    done = _client("run", "", state_dir=tmp_path)
    assert done.returncode == 2
    assert "goal is empty" in done.stderr


def test_run_offline_prints_progress_and_the_final_result(tmp_path: Path) -> None:
    done = _client("run", "add rate limiting to the gateway", state_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "UI: http://localhost:" in out
    assert "-> discoveryOrchestratorRequest" in out and "-> finalResult" in out
    assert "Final result:" in out and "add rate limiting to the gateway" in out
    assert (tmp_path / "temporal.db").exists(), "the dev server keeps its state in SQLite"


def test_status_without_address_says_what_to_set(tmp_path: Path) -> None:
    done = _client("status", "some-id", state_dir=tmp_path)
    assert done.returncode == 2
    assert "TEMPORAL_ADDRESS" in done.stderr
