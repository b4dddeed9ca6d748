"""Smoke test for the orchestration-overhead bench: it runs and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.orchestration_overhead import measure, report


async def test_bench_measures_both_medians_and_the_step_count(client: Client) -> None:
    result = await measure(client, runs=1, bare=2, bare_warmups=1, orchestrator_warmups=0, gap=0)

    assert len(result.bare_seconds) == 2
    assert len(result.orchestrator_runs) == 1
    assert result.bare_median > 0
    assert result.per_step_median > 0
    assert all(steps > 10 for steps in result.steps)
    assert "ratio per-step / bare round trip:" in report(result)
