"""A script that ends right after a Temporal call exits cleanly (app/process_exit.py).

Without the exit guard, about one such process in six aborted or segfaulted at interpreter exit
when four ran at once on 2 cores (https://github.com/temporalio/sdk-python/issues/300); CI once
failed on it in a README example.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import asyncio, sys
from agent_interrupts.app.config import TemporalSettings
from agent_interrupts.app.connect import connect

async def main() -> None:
    client = await connect(TemporalSettings.from_env(), sys.argv[1])
    print((await client.count_workflows()).count)

asyncio.run(main())
"""
PROCESSES = 16
AT_ONCE = 4


async def _run_script(address: str) -> tuple[int | None, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SCRIPT,
        address,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await process.communicate()
    return process.returncode, stderr.decode(errors="replace")[-500:]


async def test_scripts_that_end_after_a_call_exit_cleanly(env: WorkflowEnvironment) -> None:
    address = env.client.service_client.config.target_host
    gate = asyncio.Semaphore(AT_ONCE)

    async def one() -> tuple[int | None, str]:
        async with gate:
            return await _run_script(address)

    outcomes = await asyncio.gather(*(one() for _ in range(PROCESSES)))
    crashed = [(code, err) for code, err in outcomes if code != 0]
    assert not crashed, f"{len(crashed)} of {PROCESSES} crashed at exit: {crashed[0]}"


FOREIGN_CHECK = """
import _thread, threading, time
from agent_interrupts.app.process_exit import foreign_threads_in_python

def nap() -> None:
    time.sleep(2)

print(len(foreign_threads_in_python()))
threading.Thread(target=nap, daemon=True).start()
print(len(foreign_threads_in_python()))
_thread.start_new_thread(nap, ())  # unknown to threading, as a native bridge's thread is
time.sleep(0.2)
print(len(foreign_threads_in_python()))
"""


def test_only_threads_python_does_not_know_are_foreign() -> None:
    """In a process of its own (a pytest-xdist worker runs execnet's threads, unknown to
    ``threading``): none at first, none for a ``threading`` thread, one for a raw thread."""
    found = subprocess.run(
        [sys.executable, "-c", FOREIGN_CHECK], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert found.stdout.split() == ["0", "0", "1"]
