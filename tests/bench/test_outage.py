"""The outage bench's smoke test: two server outages in model calls cost no second model call,
and the report says so with the machine's load."""

from __future__ import annotations

from bench.outage import measure, report

SEED = 198
"""Outages of 3.9 and 4.0 s starting 0.6 and 1.0 s into 8 s calls: the server is back and times
the attempt out while the call still runs (the case that asked twice before)."""


async def test_two_outages_in_calls_ask_the_model_once_per_step() -> None:
    bench = await measure(trials=2, call_seconds=8, longest_outage=5, seed=SEED)

    text = report(bench)
    assert [o.requests for o in bench.outages] == [1, 1], text
    assert "model calls per agent step: 1.00 (aim <= 1: met)" in text
    assert "load average" in text
