"""Smoke test for the throughput bench: a few concurrent runs, measured and held."""

from __future__ import annotations

from temporalio.client import Client

from bench.throughput import measure, report


async def test_bench_measures_both_rates_and_the_memory_of_held_runs(client: Client) -> None:
    result = await measure(client, runs=3)

    assert result.bare.items == result.agents.items == 3 * sum(result.widths) == 3 * 19
    assert result.bare.per_second > 0 and result.agents.per_second > 0
    assert min(result.rss_before, result.rss_after_runs, result.rss_held) > 0
    text = report(result)
    assert "ratio agent steps/s / bare activities/s:" in text
    assert "per cached running workflow" in text
