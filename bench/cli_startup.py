"""How fast commands start: ``agents --help`` and ``agents list`` against the interpreter's own.

    python -m bench.cli_startup [--runs 10]

Each command runs ``--runs`` times as a new process (as a person types it) and its median wall
time is compared with two baselines measured in the same run the same way: the interpreter's own
start (``python -c pass``) and the import of the Temporal client every command that talks to
a server needs (``python -c "import temporalio.client"``). ``agents list`` runs against a local
stack of its own (a temporary state directory on free ports), started before the first run and
stopped after the last. The aims: ``--help`` at most 0.1 s, ``list`` at most 0.5 s.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.harness import bench_parser, versions
from tests.cli.support import free_port, stack_env

HELP_AIM = 0.1
"""Seconds ``agents --help`` may take."""
LIST_AIM = 0.5
"""Seconds ``agents list`` may take against a running local stack."""
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Timing:
    """One command's wall times, in seconds."""

    name: str
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def agents_command() -> list[str]:
    """The installed ``agents`` script beside this interpreter, else ``python client.py``."""
    script = Path(sys.executable).with_name("agents")
    return [str(script)] if script.exists() else [sys.executable, str(ROOT / "client.py")]


def timed(name: str, argv: Sequence[str], runs: int, env: dict[str, str]) -> Timing:
    """``argv`` run ``runs`` times, one after another; each must succeed."""
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True, cwd=ROOT, timeout=120)
        seconds.append(time.perf_counter() - start)
    return Timing(name, seconds)


def measure(runs: int) -> list[Timing]:
    """The two baselines, then ``agents --help`` and ``agents list`` (on a stack of its own)."""
    state = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    env = stack_env(state, free_port(), free_port())
    agents = agents_command()
    try:
        subprocess.run([*agents, "up"], env=env, check=True, capture_output=True, timeout=180)
        return [
            timed("python -c pass", [sys.executable, "-c", "pass"], runs, env),
            timed(
                "python -c 'import temporalio.client'",
                [sys.executable, "-c", "import temporalio.client"],
                runs,
                env,
            ),
            timed("agents --help", [*agents, "--help"], runs, env),
            timed("agents list", [*agents, "list"], runs, env),
        ]
    finally:
        subprocess.run([*agents, "down"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(state, ignore_errors=True)


def report(timings: list[Timing], load: tuple[float, float, float]) -> str:
    by_name = {t.name: t for t in timings}
    bare, client = timings[0], timings[1]
    lines = [
        f"command startup, median of {len(bare.seconds)} runs each (load average "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f})",
        versions(),
    ]
    for t in timings:
        lines.append(
            f"  {t.name:<38} {t.median * 1000:7.0f} ms  (min {min(t.seconds) * 1000:.0f}, "
            f"max {max(t.seconds) * 1000:.0f})"
        )
    for name, aim in (("agents --help", HELP_AIM), ("agents list", LIST_AIM)):
        t = by_name[name]
        met = "met" if t.median <= aim else "NOT met"
        lines.append(
            f"{name}: {t.median:.2f} s (aim <= {aim:g} s: {met}); "
            f"{t.median / bare.median:.1f}x the interpreter's start, "
            f"{t.median / client.median:.2f}x importing temporalio.client"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = bench_parser(
        "python -m bench.cli_startup",
        "How fast agents --help and agents list start, against the interpreter's own start.",
        ("--runs", 10, "runs of each command"),
    )
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    timings = measure(args.runs)
    load_after = os.getloadavg()
    load = tuple(max(a, b) for a, b in zip(load_before, load_after, strict=True))
    print(report(timings, (load[0], load[1], load[2])))


if __name__ == "__main__":
    main()
