"""Smoke test for the concurrent-questions bench: it runs and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.concurrent_questions import AGENTS, measure, report


async def test_bench_measures_both_round_trips_and_counts_the_resumed_calls(
    client: Client,
) -> None:
    result = await measure(client, runs=1, warmups=0, gap=0)

    (concurrent,) = result.concurrent
    (single,) = result.single
    assert (concurrent.asked, single.asked) == (AGENTS, 1)
    assert concurrent.seconds > 0 and single.seconds > 0 and result.ratio > 0
    assert result.calls_per_question(result.concurrent) == 1.0, "finished agents never rerun"
    assert result.calls_per_question(result.single) == 1.0
    text = report(result, gap=0)
    assert f"ratio {AGENTS} questions / 1 question:" in text
    assert "1.00x with 3 asking, 1.00x with one (aim 1x)" in text
