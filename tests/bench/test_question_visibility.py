"""Smoke test for the question-visibility bench: it runs, sees
the question while the sibling still works and while another question waits, and reports the
ratios beside their aim."""

from __future__ import annotations

from temporalio.client import Client

from bench.question_visibility import measure, report

SIBLING_SECONDS = 8.0


async def test_bench_sees_the_question_while_the_sibling_runs(client: Client) -> None:
    result = await measure(client, runs=1, warmups=0, sibling_seconds=SIBLING_SECONDS, gap=0)
    (with_sibling,) = result.with_sibling
    (alone,) = result.alone
    (behind,) = result.behind
    assert behind.sibling_running, "seen while the first question still waited"
    assert 0 < behind.in_status <= behind.in_list < 2.0
    assert with_sibling.sibling_running, "seen before the sibling finished"
    assert 0 < with_sibling.in_status <= with_sibling.in_list < SIBLING_SECONDS
    assert 0 < alone.in_status <= alone.in_list
    text = report(result)
    assert "seen while the sibling still ran: 1 of 1" in text
    assert "list --waiting, with the sibling / alone: " in text and "(aim <= 1.2x: " in text
    assert "the first still waiting in 1 of 1" in text
    assert "list --waiting, behind another question / alone: " in text
