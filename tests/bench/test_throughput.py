"""Smoke test for the throughput bench: a few concurrent runs, quiet and loaded, measured and
held."""

from __future__ import annotations

import argparse
from dataclasses import replace

import pytest
from temporalio.client import Client

from agent_interrupts.models.state import OrchestratorInput
from bench.throughput import (
    GOAL,
    AtLoad,
    BenchResult,
    Rate,
    measure,
    process_lines,
    process_rate,
    report,
    worker_counts,
)


async def test_bench_measures_the_rates_at_each_load_and_the_memory_of_held_runs(
    client: Client,
) -> None:
    result = await measure(client, runs=3, loads=(0, 1))

    assert [at.load for at in result.loads] == [0, 1], "quiet, then one busy loop per core"
    for at in result.loads:
        assert at.bare.items == at.agents.items == 3 * sum(result.widths) == 3 * 19
        assert at.same_calls.items == 3 * 19, "each run makes the warm-up's 19 calls again"
        assert min(r.per_second for r in (at.bare, at.agents, at.same_calls)) > 0
        assert at.repeated == 0, "no model call asked twice"
    assert min(result.rss_before, result.rss_after_runs, result.rss_held) > 0
    text = report(result)
    assert "-- quiet" in text and "-- 1x oversubscribed" in text
    assert "with its payload bytes" in text
    assert "ratio agent steps/s / same model calls/s" in text
    assert "per cached running workflow" in text


_NO_RUNS = BenchResult(
    2,
    [19],
    [AtLoad(0, Rate(1, 1), Rate(1, 1), Rate(1, 1), 0, "1.0 1.0 1.0")],
    1,
    1,
    1,
    1,
    "dev server in memory",
)


async def test_worker_processes_serve_the_runs_and_count_their_steps(client: Client) -> None:
    """``--workers`` runs real worker.py processes, all polling before the runs."""
    rate = await process_rate(client, 2, 2, OrchestratorInput(goal=GOAL), 19)
    assert rate.items == 2 * 19 and rate.seconds > 0
    assert process_lines(replace(_NO_RUNS, processes={1: rate, 2: rate}))[-1].startswith(
        "2 processes / 1: 1.00x"
    )
    assert worker_counts("1,2") == (1, 2)
    with pytest.raises(argparse.ArgumentTypeError, match="at least 1"):
        worker_counts("0,2")
