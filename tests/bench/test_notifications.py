"""Smoke test for the notifications bench: it runs in seconds and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.notifications import measure, report


async def test_bench_measures_delivery_start_latency_and_a_burst(client: Client) -> None:
    result = await measure(client, runs=1, questions=3, gap=0, warmups=0)

    assert len(result.delivered) == len(result.start) == 1
    assert result.delivered[0] > 0 and result.start[0] > 0
    assert result.notified.history_events > result.quiet.history_events
    assert result.notified.cpu_seconds > 0 and result.quiet.cpu_seconds > 0
    text = report(result)
    assert "ratio delivered / start latency:" in text
    assert "3 questions at once with the webhook:" in text
