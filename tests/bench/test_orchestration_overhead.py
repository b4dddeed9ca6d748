"""Smoke test for the orchestration-overhead bench: it runs and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.harness import server_mode
from bench.model_calls import call_rounds
from bench.orchestration_overhead import measure, report


async def test_orchestrator_and_bare_runs_have_the_same_rounds(client: Client) -> None:
    result = await measure(client, runs=1, gap=0)

    assert len(result.orchestrator) == len(result.bare) == len(result.same_calls) == 1
    assert sum(result.widths) == 19 and len(result.widths) == 16, result.widths
    assert result.orchestrator[0].widths == result.bare[0].widths == result.widths
    assert result.same_calls[0].widths == result.widths, "the same calls in the same rounds"
    assert min(result.orchestrator_median, result.bare_median, result.same_calls_median) > 0
    text = report(result)
    assert "dev server in memory" in text
    assert "19 agent activities in 16 sequential rounds (fan-out 2)" in text
    assert "ratio orchestrator / bare per round:" in text
    assert "ratio orchestrator / same calls per round" in text


def test_call_rounds_number_the_recorded_calls_round_by_round() -> None:
    assert call_rounds([1, 2, 1]) == [[0], [1, 2], [3]]
    assert call_rounds([]) == []


def test_the_report_says_where_the_server_keeps_its_data() -> None:
    assert server_mode(None) == "dev server in memory"
    assert server_mode("/tmp/x.db") == "dev server on the SQLite file /tmp/x.db"
