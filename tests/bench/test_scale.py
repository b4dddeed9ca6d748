"""Smoke tests for the scale bench: each runs in a minute or two and measures something sane."""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.client import Client

from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.waiting_pages import WaitingFilter
from bench.scale import Fill, measure, report


async def test_bench_fills_lists_answers_and_bursts(client: Client) -> None:
    result = await measure(
        client,
        counts=(3, 6),
        cache=4,
        fill_seconds=240,
        burst=4,
        repeats=1,
        inbox_process=False,
    )

    assert [level.waiting for level in result.levels] == [3, 6]
    for level in result.levels:
        assert level.notices >= 3 and level.notices_per_second > 0
        assert min(level.rss) > 0 and level.list_cli > 0
        assert min(level.list_sdk) > 0 and min(level.inbox) > 0
        assert level.evicted_answer > 0 and level.cached_answer > 0
    assert result.burst is not None and result.burst.notices_per_second > 0
    text = report(result)
    assert "6 waiting runs" in text and "answer -> next agent step" in text
    assert "cards left loading: " in text
    assert "burst of 4 questions at once" in text and "inbox app in-process" in text


async def test_worker_processes_fill_and_a_kept_fill_is_measured_again(
    client: Client, tmp_path: Path
) -> None:
    kept = str(tmp_path / "fill.scale.json")
    first = await measure(
        client,
        counts=(4,),
        cache=4,
        fill_seconds=240,
        burst=0,
        workers=2,
        state_path=kept,
        repeats=1,
    )
    fill = Fill.load(kept)
    try:
        [level] = first.levels
        assert level.waiting == 4 and len(level.rss) == 2 and min(level.rss) > 0
        assert fill.answered == 1 and len(fill.runs) == 3  # the newest answered and dropped
        waiting = AgentWorkflowClient(client, fill.task_queue)
        assert await waiting.count_waiting(WaitingFilter(run=fill.prefix)) == 2  # left waiting
        filled = list(fill.runs)
        assert "2 worker.py processes" in report(first) and "--reuse" in report(first)
        assert "a new agents inbox process" in report(first)

        again = await measure(
            client,
            counts=(1, 5),
            cache=4,
            fill_seconds=240,
            burst=0,
            workers=1,
            state_path=kept,
            reuse=True,
            repeats=1,
        )
        fill = Fill.load(kept)
        [level] = again.levels
        assert level.waiting == 5 and len(level.rss) == 1
        assert again.skipped == [1]  # 2 were waiting already
        assert fill.runs[:3] == filled and fill.answered == 2
        assert len(fill.runs) == 3 + 3 - 1  # 3 more started for 5 to wait, the newest dropped
        assert "reused the fill kept at" in report(again)
    finally:
        await asyncio.gather(
            *(client.get_workflow_handle(r).terminate("test ended") for r in fill.runs),
            return_exceptions=True,
        )
