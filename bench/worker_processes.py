"""Real ``python worker.py`` processes for a bench: started with the bench's settings on its
server and task queue, waited for until each polls, their resident memory read from ``/proc``,
stopped however the bench ends."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

from temporalio.client import Client

from agent_interrupts.app.stack import pollers
from bench.harness import worker_env

ROOT = Path(__file__).resolve().parents[1]
POLL_INTERVAL = 0.2


def process_rss(pid: int) -> int:
    """A process's resident set size in bytes (``VmRSS`` of ``/proc/PID/status``; Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


@contextlib.asynccontextmanager
async def worker_processes(
    client: Client,
    queue: str,
    count: int,
    settings: Mapping[str, str],
    *,
    timeout: float = 300.0,
) -> AsyncIterator[list[subprocess.Popen[bytes]]]:
    """``count`` ``python worker.py`` processes on ``client``'s server and ``queue``, each with
    its own state directory and ``settings`` (``OFFLINE_SCENARIO``, ``INTERRUPT_WEBHOOK_URL``,
    ...) over ``harness.worker_env``; yields them once all poll the queue, terminates them (and
    waits) when the block ends. A process that ends early raises, naming its log."""
    env = worker_env(client, queue) | dict(settings)
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
        started: list[subprocess.Popen[bytes]] = []
        try:
            for n in range(count):
                with (Path(tmp) / f"worker-{n}.log").open("ab") as log:
                    started.append(
                        subprocess.Popen(
                            [sys.executable, "worker.py"],
                            cwd=ROOT,
                            env={**env, "AGENTS_STATE_DIR": f"{tmp}/state-{n}"},
                            stdout=log,
                            stderr=subprocess.STDOUT,
                        )
                    )
            async with asyncio.timeout(timeout):
                while len(await pollers(client, client.namespace, queue)) < count:
                    if ended := [p for p in started if p.poll() is not None]:
                        log_text = (Path(tmp) / f"worker-{started.index(ended[0])}.log").read_text()
                        raise RuntimeError(f"a worker.py ended early: {log_text.strip()[-400:]}")
                    await asyncio.sleep(POLL_INTERVAL)
            yield started
        finally:
            for process in started:
                process.terminate()
            for process in started:
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
