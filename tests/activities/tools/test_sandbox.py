"""Verification runs in the bubblewrap sandbox: escapes are refused, limits
hold, and the outcome is read from the exit status and the runner's summary."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_interrupts.activities.tools import sandbox
from agent_interrupts.activities.tools.sandbox import parsed, run_verification
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.test_command import PYTEST, default_test_command
from agent_interrupts.models.results import VerificationStatus


@pytest.fixture
def settings(tmp_path: Path) -> ToolSettings:
    return ToolSettings(
        state_dir=tmp_path / "state", test_timeout=5, test_memory_mb=512, test_processes=40
    )


@pytest.fixture
def worktree(settings: ToolSettings) -> Path:
    path = settings.worktrees / "run" / "ticket"
    path.mkdir(parents=True)
    (path / "kept.txt").write_text("mine\n")
    return path


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    """A directory under /tmp whatever TMPDIR says: the sandbox mounts a /tmp of its own."""
    with tempfile.TemporaryDirectory(dir="/tmp") as path:
        yield Path(path)


def test_a_tool_on_path_under_tmp_runs_read_only(
    worktree: Path, settings: ToolSettings, under_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker whose environment lives under /tmp (a venv there) still finds its tools: its
    PATH entries there are bound read-only into the sandbox's own /tmp."""
    tools = under_tmp / "venv" / "bin"
    tools.mkdir(parents=True)
    tool = tools / "agents-tool"
    tool.write_text("#!/bin/sh\necho tool-ran\n")
    tool.chmod(0o755)
    (under_tmp / "venv" / "beside.txt").write_text("not on PATH")
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    script = (
        f"agents-tool; echo x > {tool} || echo read-only; "
        f"cat {under_tmp / 'venv' / 'beside.txt'} || echo hidden"
    )
    run = run_verification(script, worktree, settings)
    assert "tool-ran" in run.output_tail and "read-only" in run.output_tail
    assert "hidden" in run.output_tail and "not on PATH" not in run.output_tail
    assert tool.read_text().endswith("tool-ran\n")


def test_a_path_entry_holding_the_state_directory_keeps_it_hidden(
    worktree: Path, settings: ToolSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden = settings.state_dir / "memory.sqlite3"
    hidden.write_text("other runs' state")
    assert hidden.is_relative_to(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    run = run_verification(f"cat {hidden} || echo hidden-state", worktree, settings)
    assert "hidden-state" in run.output_tail and "other runs' state" not in run.output_tail


def _py(code: str) -> str:
    return f"{sys.executable} -c {shlex.quote(code)}"


def test_the_worktree_is_writable_and_nothing_else_is(
    worktree: Path, settings: ToolSettings, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"  # /tmp in the sandbox is its own, thrown away after
    home = Path.home() / f"agents-escape-{tmp_path.name}"
    hidden = settings.state_dir / "memory.sqlite3"
    hidden.write_text("other runs' state")
    script = (
        "echo ok > inside.txt; "
        f"echo x > {outside}; "
        f"echo x > {home} || echo refused-home; "
        "echo x > /etc/agents-escape || echo refused-etc; "
        f"cat {hidden} || echo hidden-state; "
        f"ln -s {home.parent} escape; echo x > escape/{home.name} || echo refused-link"
    )
    run = run_verification(script, worktree, settings)
    assert (worktree / "inside.txt").read_text() == "ok\n"
    assert not outside.exists() and not home.exists() and not Path("/etc/agents-escape").exists()
    for said in ("refused-home", "refused-etc", "hidden-state", "refused-link"):
        assert said in run.output_tail
    assert "other runs' state" not in run.output_tail


def test_a_shared_workspaces_dir_hides_other_worktrees_and_the_state(tmp_path: Path) -> None:
    """With AGENT_WORKSPACES_DIR elsewhere (a mount every host shares), a run
    sees its own worktree only: not another ticket's, not the worker's state directory."""
    settings = ToolSettings(
        state_dir=tmp_path / "state", workspaces_dir=tmp_path / "shared", test_timeout=5
    )
    mine, other = (settings.worktrees / "run" / name for name in ("mine", "other"))
    for path in (mine, other, settings.state_dir):
        path.mkdir(parents=True)
    (other / "secret.txt").write_text("another ticket's edit")
    (settings.state_dir / "memory.sqlite3").write_text("the worker's state")
    script = (
        "echo ok > inside.txt; "
        f"cat {other / 'secret.txt'} || echo hidden-ticket; "
        f"cat {settings.state_dir / 'memory.sqlite3'} || echo hidden-state"
    )
    run = run_verification(script, mine, settings)
    assert (mine / "inside.txt").read_text() == "ok\n"
    assert "hidden-ticket" in run.output_tail and "hidden-state" in run.output_tail
    assert "another ticket's edit" not in run.output_tail
    assert "the worker's state" not in run.output_tail
    with pytest.raises(sandbox.SandboxUnavailable, match="not under the worktrees"):
        sandbox.sandbox_argv("true", settings.state_dir, settings)


def test_there_is_no_network(worktree: Path, settings: ToolSettings) -> None:
    code = (
        "import socket\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=2)\n"
        "    print('connected')\n"
        "except OSError as e:\n"
        "    print('no network:', e.errno)\n"
    )
    run = run_verification(_py(code), worktree, settings)
    assert "no network" in run.output_tail and "connected" not in run.output_tail


def test_a_command_that_sleeps_past_its_limit_is_killed(
    worktree: Path, settings: ToolSettings
) -> None:
    short = ToolSettings(state_dir=settings.state_dir, test_timeout=1)
    run = run_verification("sleep 30", worktree, short)
    assert run.timed_out and run.exit_code is None and run.duration_ms < 10_000
    assert run.status is VerificationStatus.FAILED and "AGENT_TEST_TIMEOUT" in run.output_tail


def test_a_fork_bomb_is_capped(worktree: Path, settings: ToolSettings) -> None:
    code = (
        "import os, time\n"
        "n = 0\n"
        "while n < 5000:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        "    n += 1\n"
        "print('forked', n)\n"
    )
    run = run_verification(_py(code), worktree, settings)
    forked = int(run.output_tail.split("forked ")[1].split()[0])
    assert forked < settings.test_processes  # the cap, not the loop's 5000
    assert run.duration_ms < 10_000  # the sleeping children died with the sandbox


def test_memory_is_capped(worktree: Path, settings: ToolSettings) -> None:
    run = run_verification(_py("bytearray(900 * 1024 * 1024)"), worktree, settings)
    assert run.exit_code != 0 and "MemoryError" in run.output_tail


def test_secrets_of_the_worker_do_not_reach_the_tests(
    worktree: Path, settings: ToolSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sandbox-secret-123")
    run = run_verification("env; cat /proc/1/environ", worktree, settings)
    assert "sk-sandbox-secret-123" not in run.output_tail and "HOME=/tmp" in run.output_tail


def test_without_bubblewrap_one_line_says_what_is_missing(
    worktree: Path, settings: ToolSettings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    run = run_verification("true", worktree, settings)
    assert run.status is VerificationStatus.PARTIAL and run.problem is not None
    assert "\n" not in run.problem and "bubblewrap (bwrap) is not installed" in run.problem
    assert "apt-get install bubblewrap" in run.problem
    assert sandbox.shutil.which("bwrap") is None


def test_pytest_and_unittest_summaries_are_parsed() -> None:
    pytest_out = (
        "PASSED tests/test_ops.py::test_add\nFAILED tests/test_ops.py::test_mul - assert 5 == 6\n"
        "1 failed, 1 passed in 0.05s\n"
    )
    run = parsed("pytest", 1, False, 10, pytest_out)
    assert (run.passed, run.failed, run.status) == (1, 1, VerificationStatus.FAILED)
    assert [(o.name, o.passed) for o in run.outcomes] == [  # failures first
        ("tests/test_ops.py::test_mul", False),
        ("tests/test_ops.py::test_add", True),
    ]
    unittest_out = "Ran 4 tests in 0.001s\n\nFAILED (failures=1, errors=1)\n"
    run = parsed("python -m unittest", 1, False, 10, unittest_out)
    assert (run.passed, run.failed) == (2, 2)
    claimed = parsed("make test", 0, False, 10, "all good, trust me: 0 failed")
    assert claimed.status is VerificationStatus.VERIFIED and claimed.outcomes[0].passed


def test_the_test_command_comes_from_the_workspace(tmp_path: Path) -> None:
    assert default_test_command(tmp_path) is None
    (tmp_path / "tests").mkdir()
    assert default_test_command(tmp_path) == PYTEST
    (tmp_path / "pyproject.toml").write_text('[tool.agents]\ntest-command = "make check"\n')
    assert default_test_command(tmp_path) == "make check"
