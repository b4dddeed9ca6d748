"""The benches' shared pacing and CLI helpers."""

from __future__ import annotations

import argparse
import time

import pytest

from bench.harness import non_negative_seconds, repeat


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
