"""Smoke test for the tools bench: tiny counts, a sane report."""

from __future__ import annotations

from temporalio.client import Client

from bench.tools import measure, report


async def test_tools_bench_measures_steps_search_and_recall(client: Client) -> None:
    result = await measure(client, calls=4, runs=1, files=50, memories=200, queries=3, gap=0)
    assert len(result.step_without) == len(result.step_with) == 1
    assert len(result.tool_ms) == 4 and len(result.search) == len(result.recall) == 3
    text = report(result)
    assert "per tool call" in text and "search over 50 files" in text
    assert "recall over 200 memories" in text
