"""Smoke test for the oversized-update bench: it runs and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.update_size import measure, report


async def test_bench_measures_the_refusal_of_an_oversized_update(client: Client) -> None:
    result = await measure(client, runs=1, mib=3)

    assert len(result.refused_after) == 1
    assert result.median > 0
    assert "bytes, over the 262144 byte limit" in result.messages[0]
    assert result.queries_failed == 0
    assert result.task_failures == []
    assert result.answer_taken
    text = report(result, "the test server")
    assert "the test server: 1 updates of 3 MiB from a plain client" in text
    assert "0 failed (aim 0 failed)" in text
