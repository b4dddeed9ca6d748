"""``client.py run`` answering an interrupt in a real terminal (a pseudo-terminal): the menus a
person sees, Enter taking the recommendation, and the run finishing (spec 002 US1)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _read_until(fd: int, needle: str, seen: list[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while needle not in "".join(seen):
        left = deadline - time.monotonic()
        assert left > 0, f"timed out waiting for {needle!r}; got:\n{''.join(seen)[-2000:]}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                seen.append(os.read(fd, 4096).decode(errors="replace"))
            except OSError:
                break


def test_person_answers_in_the_terminal(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEMPORAL_", "OPENAI_"))}
    env["AGENTS_STATE_DIR"] = str(tmp_path)
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "client.py"),
            "run",
            "add caching",
            "--scenario",
            "interrupt=REVIEW_AGENT",
        ],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env,
        cwd=ROOT,
    )
    os.close(secondary)
    seen: list[str] = []
    try:
        _read_until(primary, "Choose A/B/CUSTOM:", seen)
        assert "REVIEW_AGENT needs a decision" in "".join(seen)
        os.write(primary, b"Z\n")  # not an option: asked again
        _read_until(primary, "please answer one of A/B/CUSTOM", seen)
        os.write(primary, b"\n")  # Enter: the recommended option
        _read_until(primary, "Add regression tests for the changed behaviour? [Y/n]", seen)
        os.write(primary, b"n\n")
        _read_until(primary, "Anything else the agent should know", seen)
        os.write(primary, b"keep it small\n")
        _read_until(primary, "Final result:", seen)
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        os.close(primary)
    out = "".join(seen)
    assert "Answer accepted: REVIEW_AGENT resumes" in out
    assert "-> finalResult" in out
