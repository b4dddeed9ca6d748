"""Smoke test for the export bench: a few runs, every figure measured and reported."""

from __future__ import annotations

from temporalio.client import Client

from bench.export import measure, report


async def test_bench_exports_and_reports_every_figure(client: Client) -> None:
    result = await measure(client, runs=2, parallel=2)

    assert result.runs == 2
    assert result.examples > 2 * 20, "about 25 examples per run with one question"
    assert result.seconds > 0 and result.run_wall_seconds > 0
    assert 0 < result.peak_one <= result.peak_all
    text = report(result)
    assert "runs/s" in text and "examples/s" in text and "peak Python heap" in text
    assert "the run's own wall time" in text


async def test_bench_exports_workspace_runs_with_their_tool_calls(client: Client) -> None:
    result = await measure(client, runs=2, parallel=2, workspace=True)
    assert result.runs == 2 and result.skipped == 0
    assert result.with_tools >= 2, "the discovery agents' tool-using steps are exported"
    assert "with tool calls, 0 skipped" in report(result)
