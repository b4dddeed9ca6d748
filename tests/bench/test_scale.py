"""Smoke test for the scale bench: it runs in a minute and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.scale import measure, report


async def test_bench_fills_lists_answers_and_bursts(client: Client) -> None:
    result = await measure(client, counts=(3, 6), cache=4, fill_seconds=240, burst=4)

    assert [level.waiting for level in result.levels] == [3, 6]
    for level in result.levels:
        assert level.notices >= 3 and level.notices_per_second > 0
        assert level.rss > 0 and level.list_cli > 0
        assert min(level.list_sdk) > 0 and min(level.inbox) > 0
        assert level.evicted_answer > 0 and level.cached_answer > 0
    assert result.burst is not None and result.burst.notices_per_second > 0
    text = report(result)
    assert "6 waiting runs" in text and "answer -> next agent step" in text
    assert "burst of 4 questions at once" in text
