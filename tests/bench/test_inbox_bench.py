"""Smoke test for the inbox bench: a few questions, a page that lists fewer of them
than wait, answers given elsewhere leaving the open page; the report gives each figure beside
its aim."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from bench.inbox import CHROMIUM, measure

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium (apt-get install chromium; .ci/run installs it)",
)


async def test_bench_measures_first_paint_calls_and_live_updates(client: Client) -> None:
    lines = await measure(client, runs=2, questions=6, answers=2, limit=4)
    text = "\n".join(lines)
    assert "6 waiting questions across 2 runs" in text
    assert "a page listing 4 of 11: first contentful paint: " in text
    assert "live update after an answer elsewhere (median of 2): " in text
    calls = next(line for line in lines if line.startswith("calls per page load: "))
    assert "query" not in calls and "describe" not in calls, "a page load reads nothing again"
    assert text.count("(aim <= 1 s: ") == 3
