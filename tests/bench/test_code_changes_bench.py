"""Smoke test for the code changes bench: tiny counts, a sane report."""

from __future__ import annotations

from temporalio.client import Client

from bench.code_changes import measure, report


async def test_code_changes_bench_measures_a_ticket_step_merges_and_worktrees(
    client: Client,
) -> None:
    result = await measure(client, files=50, branches=2, model_seconds=0.05)
    assert result.model_calls >= 3 and result.test_seconds > 0 and result.step_wall > 0
    text = report(result)
    assert "ticket step with 5 edits" in text and "merge of 2 ticket branches" in text
    assert "worktree on a 50-file repository" in text
