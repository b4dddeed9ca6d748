"""Run the CLI as a person would: subprocesses, and a pseudo-terminal for interactive use."""

from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENT = str(ROOT / "client.py")
DIAGNOSED = ("Name", "State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
"""The /proc status lines of a thread that ``Terminal.diagnosis`` shows."""
WAIT_CEILING = 120.0
"""Upper bound while waiting for output; the tests never depend on how fast it comes."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stack_env(state_dir: Path, port: int, ui_port: int) -> dict[str, str]:
    """The environment of a fresh machine: no Temporal or OpenAI settings, own ports."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEMPORAL_", "OPENAI_"))}
    env.update(
        AGENTS_STATE_DIR=str(state_dir),
        AGENTS_PORT=str(port),
        AGENTS_UI_PORT=str(ui_port),
        TEMPORAL_CONFIG_FILE=str(state_dir / "no-temporal-profile.toml"),
        COLUMNS="200",
    )
    return env


def agents(
    env: dict[str, str], *args: str, timeout: float = WAIT_CEILING
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, CLIENT, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


AS_A_SHELL_STARTS_IT = (
    "import os, signal, sys\n"
    "for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):\n"
    "    signal.signal(sig, signal.SIG_DFL)\n"
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])\n"
)
"""Exec the command with the signals a person's interactive shell gives its foreground job at
their defaults. The tests may run where they are ignored (a job started in the background by a
non-interactive shell ignores SIGINT and SIGQUIT, one under nohup SIGHUP too); a Python program
started so keeps ignoring them, and Ctrl-C would do nothing."""


class Terminal:
    """A CLI process on a pseudo-terminal; ``expect`` waits for text, ``send`` types a line."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        primary, secondary = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-c", AS_A_SHELL_STARTS_IT, CLIENT, *args],
            stdin=secondary,
            stdout=secondary,
            stderr=secondary,
            env=env,
            cwd=ROOT,
        )
        os.close(secondary)
        self.fd = primary
        self.seen = ""

    def expect(self, needle: str, timeout: float = WAIT_CEILING) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, (
                f"no {needle!r} within {timeout}s; got:\n{self.seen[-3000:]}\n{self.diagnosis()}"
            )
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    assert needle in self.seen, f"ended without {needle!r}:\n{self.seen[-3000:]}"
                self.seen += chunk.decode(errors="replace")

    def diagnosis(self) -> str:
        """What the process is doing: each thread's state, kernel wait and signal masks, and
        (with py-spy installed) its Python stacks; for the message of a test that waited in vain."""
        pid = self.process.pid
        code = self.process.poll()
        lines = [f"process {pid}: {'alive' if code is None else f'exited {code}'}"]
        for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
            try:
                status = (task / "status").read_text().splitlines()
                wchan = (task / "wchan").read_text()
            except OSError:
                continue
            fields = [f for f in status if f.split(":")[0] in DIAGNOSED]
            lines.append(
                f"  thread {task.name} wchan={wchan} "
                + " ".join(" ".join(f.split()) for f in fields)
            )
        spy = shutil.which(
            "py-spy", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"
        )
        if spy and code is None:
            dumped = subprocess.run(
                [spy, "dump", "--pid", str(pid)], capture_output=True, text=True, check=False
            )
            lines.append(dumped.stdout + dumped.stderr)
        return "\n".join(lines)

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\n")

    def interrupt(self) -> None:
        """What Ctrl-C does: SIGINT to the process."""
        self.process.send_signal(signal.SIGINT)

    def finish(self, timeout: float = WAIT_CEILING) -> int:
        with_rest = self.process.wait(timeout=timeout)
        while True:
            ready, _, _ = select.select([self.fd], [], [], 0)
            if not ready:
                break
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            self.seen += chunk.decode(errors="replace")
        return with_rest

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.fd)
