"""Verification runs in a bubblewrap sandbox.

The command runs under ``bwrap`` with every namespace unshared (no network: only a loopback
device; its own pids, so a time-limit kill takes every process with it), the system read-only,
the state directory hidden, its own empty /tmp (the worker's tools there, such as a venv, stay
readable), and only the worktree writable (its ``.git`` link read-only). The
environment is cleared down to ``PATH``, ``HOME=/tmp`` and the locale, so no secret reaches it.
Limits: ``AGENT_TEST_TIMEOUT`` seconds, ``AGENT_TEST_MEMORY_MB`` of address space (an rlimit), and
``AGENT_TEST_PROCESSES`` processes (a pids cgroup when the host lets us create one, else an
rlimit, which binds only workers that do not run as root). Output is capped, and the outcome is
read from the exit status and the test runner's own summary, never from what a model says.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.models.code import MAX_TEST_OUTCOMES, TEST_OUTPUT_CHARS, TestRun
from agent_interrupts.models.results import TestOutcome

PIDS_CGROUPS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))
"""Where a pids cgroup may be made: cgroup v1's pids hierarchy, or the v2 root."""
OUTPUT_BYTES = 4 * 1024 * 1024
"""Output read from a run at most; the rest is discarded (the run is not stopped)."""

_SUMMARY = re.compile(r"(\d+) (passed|failed|errors?)\b")
_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR) (\S+)", re.MULTILINE)
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests?", re.MULTILINE)
_UNITTEST_FAILED = re.compile(
    r"^FAILED \((?:failures=(\d+))?(?:, )?(?:errors=(\d+))?", re.MULTILINE
)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot start here: verification cannot run."""


def bwrap_binary() -> str:
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed, so tests cannot run in a sandbox: install it "
            "(Debian: apt-get install bubblewrap) on every worker"
        )
    return found


def run_verification(command: str, worktree: Path, settings: ToolSettings) -> TestRun:
    """Run ``command`` in ``worktree`` inside the sandbox and read its outcome."""
    try:
        argv = sandbox_argv(command, worktree, settings)
    except SandboxUnavailable as err:
        return TestRun(command=command, exit_code=None, problem=str(err))
    started = time.perf_counter()
    with _pids_cgroup(settings.test_processes) as cgroup, tempfile.TemporaryFile() as out:
        limits = [
            "prlimit",
            f"--as={settings.test_memory_mb * 1024 * 1024}",
            f"--nproc={settings.test_processes}",
            "--",
        ]
        enter = f"echo $$ > {shlex.quote(str(cgroup))}/cgroup.procs && " if cgroup else ""
        shell = enter + "exec " + shlex.join([*limits, *argv])
        process = subprocess.Popen(
            ["/bin/sh", "-c", shell],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=sandbox_env(),
            start_new_session=True,
        )
        timed_out = False
        try:
            process.wait(timeout=settings.test_timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        out.seek(0)
        text = out.read(OUTPUT_BYTES).decode(errors="replace")
    duration = round((time.perf_counter() - started) * 1000)
    if not timed_out and process.returncode != 0 and _sandbox_failed(text):
        line = text.strip().splitlines()[-1][:300]
        return TestRun(
            command=command,
            exit_code=process.returncode,
            duration_ms=duration,
            problem=f"bubblewrap could not start the sandbox here ({line}); workers need user "
            "namespaces (sysctl kernel.unprivileged_userns_clone=1) or root",
        )
    if timed_out:
        text += (
            f"\n[killed: the command ran past its {settings.test_timeout} s limit "
            "(AGENT_TEST_TIMEOUT)]"
        )
    return parsed(command, None if timed_out else process.returncode, timed_out, duration, text)


def sandbox_argv(command: str, worktree: Path, settings: ToolSettings) -> list[str]:
    """The bwrap command line that runs ``command`` (a shell line) in ``worktree``."""
    root = str(worktree.resolve())
    worktrees = str(settings.worktrees.resolve())
    argv = [bwrap_binary(), "--unshare-all", "--die-with-parent", "--new-session"]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    if not root.startswith(worktrees + os.sep):
        raise SandboxUnavailable(f"worktree {root} is not under the worktrees {worktrees}")
    for source, seen_as in tools_under_tmp():
        argv += ["--ro-bind", source, seen_as]
    for private in settings.private_dirs:  # after the tools: a tool directory may hold one
        argv += ["--tmpfs", str(private)]
    argv += ["--bind", root, root]
    if (worktree / ".git").exists():
        argv += ["--ro-bind", f"{root}/.git", f"{root}/.git"]
    argv += ["--chdir", root, "--clearenv"]
    for name, value in sandbox_env().items():
        argv += ["--setenv", name, value]
    return [*argv, "--", "/bin/sh", "-c", command]


def tools_under_tmp() -> list[tuple[str, str]]:
    """Directories under /tmp a run needs read-only, as (real path, path the run uses): the
    worker's Python environment and the ``PATH`` entries there (a venv in /tmp). The sandbox's
    /tmp is otherwise its own and empty."""
    found: list[tuple[str, str]] = []
    for entry in (sys.prefix, *os.environ.get("PATH", "").split(os.pathsep)):
        if not entry:
            continue
        real, seen_as = os.path.realpath(entry), os.path.abspath(entry)
        for pair in ((real, real), (real, seen_as)):
            if pair[1].startswith("/tmp/") and os.path.isdir(real) and pair not in found:
                found.append(pair)
    return found


def sandbox_env() -> dict[str, str]:
    """The whole environment of a run (and of bwrap itself, whose own environment its pid 1
    would show): the worker's ``PATH`` and nothing secret."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def parsed(
    command: str, exit_code: int | None, timed_out: bool, duration_ms: int, text: str
) -> TestRun:
    """A run's outcome from its exit status and the runner's summary (pytest, unittest)."""
    found = [TestOutcome(name=m[2][:300], passed=m[1] == "PASSED") for m in _OUTCOME.finditer(text)]
    outcomes = sorted(found, key=lambda o: o.passed)[:MAX_TEST_OUTCOMES]  # failures first
    counts = {"passed": 0, "failed": 0}
    summary = [line for line in text.splitlines() if " in " in line and _SUMMARY.search(line)]
    if summary:
        for number, word in _SUMMARY.findall(summary[-1]):
            counts["passed" if word == "passed" else "failed"] += int(number)
    elif ran := _UNITTEST_RAN.search(text):
        failed = _UNITTEST_FAILED.search(text)
        bad = sum(int(n or 0) for n in failed.groups()) if failed else 0
        counts = {"passed": int(ran[1]) - bad, "failed": bad}
    if not outcomes:
        ok = exit_code == 0 and not timed_out
        outcomes = [TestOutcome(name=command[:300], passed=ok)]
    return TestRun(
        command=command,
        exit_code=exit_code,
        timed_out=timed_out,
        duration_ms=duration_ms,
        outcomes=outcomes,
        passed=counts["passed"],
        failed=counts["failed"],
        output_tail=text[-TEST_OUTPUT_CHARS:],
    )


def _sandbox_failed(text: str) -> bool:
    return text.lstrip().startswith("bwrap:")


@contextlib.contextmanager
def _pids_cgroup(limit: int) -> Iterator[Path | None]:
    """A fresh pids cgroup capped at ``limit`` (removed after), or None where none can be made."""
    made: Path | None = None
    for parent in PIDS_CGROUPS:
        if not (parent / "cgroup.procs").exists():
            continue
        path = parent / f"agents-verify-{uuid.uuid4().hex[:12]}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(limit))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            continue
        made = path
        break
    try:
        yield made
    finally:
        if made is not None:
            for _ in range(50):
                try:
                    made.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)  # the last processes are still being reaped
