"""Smoke test for the command-startup bench: one run of each command, and a sane report."""

from __future__ import annotations

from bench.cli_startup import measure, report


def test_bench_times_every_command_and_reports_ratios() -> None:
    timings = measure(runs=1)
    assert [t.name for t in timings][2:] == ["agents --help", "agents list"]
    assert all(len(t.seconds) == 1 and t.median > 0 for t in timings)
    text = report(timings, (1.0, 1.0, 1.0))
    assert "agents --help:" in text and "x the interpreter's start" in text
    assert "agents list:" in text and "x importing temporalio.client" in text
