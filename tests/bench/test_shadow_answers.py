"""Smoke test for the shadow-answers bench: it runs both ways, every shadow records
an answer, and it reports the ratio beside its aim."""

from __future__ import annotations

from temporalio.client import Client

from bench.shadow_answers import measure, report


async def test_bench_compares_shadowing_on_and_off(client: Client) -> None:
    result = await measure(client, runs=1, gap=0)
    assert len(result.off) == len(result.on) == 1
    assert result.shadows_answered == 2, "the warm-up's shadow and the measured one"
    text = report(result)
    assert "shadows that recorded an answer: 2 of 2" in text
    assert "on / off: " in text and "(aim <= 1.05x: " in text
