"""The benches' shared pacing and CLI helpers."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.harness import (
    load_factors,
    load_name,
    non_negative_seconds,
    oversubscribed,
    repeat,
)

ROOT = Path(__file__).resolve().parents[2]


async def test_repeat_pauses_before_each_measured_run_only() -> None:
    calls: list[float] = []

    async def once() -> int:
        calls.append(time.monotonic())
        return len(calls)

    results = await repeat(once, runs=2, warmups=1, gap=0.05)

    assert results == [2, 3]
    assert calls[1] - calls[0] >= 0.05
    assert calls[2] - calls[1] >= 0.05


def test_the_gap_is_seconds_of_zero_or_more() -> None:
    assert non_negative_seconds("0") == 0
    assert non_negative_seconds("2.5") == 2.5
    for bad in ("-1", "nan"):
        with pytest.raises(argparse.ArgumentTypeError):
            non_negative_seconds(bad)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _ended_soon(pids: list[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_alive(p) for p in pids)


def test_oversubscribed_runs_busy_loops_per_core_and_kills_them() -> None:
    with oversubscribed(1) as count:
        assert count == os.cpu_count()
        burners = [
            int(p)
            for p in Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
        ]
        assert len(burners) >= count and all(_alive(p) for p in burners)
    assert _ended_soon(burners)
    with oversubscribed(0) as none:
        assert none == 0
    assert (load_name(0), load_name(4)) == ("quiet", "4x oversubscribed")


def test_busy_loops_end_by_themselves_when_their_bench_is_killed() -> None:
    bench = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time\n"
            "from bench.harness import oversubscribed\n"
            "with oversubscribed(1):\n"
            "    print(os.getpid(), flush=True)\n"
            "    time.sleep(60)\n",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert bench.stdout is not None
    pid = int(bench.stdout.readline())
    burners = [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    assert burners
    bench.kill()  # no finally runs: the busy loops notice their parent is gone
    bench.wait()
    assert _ended_soon(burners)


def test_loads_are_busy_loops_per_core_listed() -> None:
    assert load_factors("0,4") == (0, 4)
    for bad in ("x", "-1", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            load_factors(bad)
