"""Smoke test for the orchestration-overhead bench: it runs and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from bench.harness import server_mode
from bench.orchestration_overhead import measure, report


async def test_orchestrator_and_bare_runs_have_the_same_rounds(client: Client) -> None:
    result = await measure(client, runs=1, gap=0)

    assert len(result.orchestrator) == len(result.bare) == 1
    assert sum(result.widths) == 19 and len(result.widths) == 16, result.widths
    assert result.orchestrator[0].widths == result.bare[0].widths == result.widths
    assert result.orchestrator_median > 0 and result.bare_median > 0
    text = report(result)
    assert "dev server in memory" in text
    assert "19 agent activities in 16 sequential rounds (fan-out 2)" in text
    assert "ratio orchestrator / bare per round:" in text


def test_the_report_says_where_the_server_keeps_its_data() -> None:
    assert server_mode(None) == "dev server in memory"
    assert server_mode("/tmp/x.db") == "dev server on the SQLite file /tmp/x.db"
