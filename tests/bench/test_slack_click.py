"""Smoke test for the Slack click bench: it runs in seconds and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.slack_click import measure, report


async def test_bench_measures_a_click_to_the_next_agent_step(client: Client) -> None:
    clicks = await measure(client, runs=2, warmups=0, gap=0)
    assert len(clicks) == 2
    assert all(0 < c.response < 30 and 0 < c.to_next_step < 30 for c in clicks)
    text = report(clicks, 0)
    assert "Slack click -> the run's next agent step scheduled (2 runs" in text
    assert "the door's HTTP response" in text
