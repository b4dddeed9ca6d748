"""Smoke test for the orchestration-overhead bench: it runs and measures something sane, its
same-call baseline carries the agent steps' payload bytes, and it measures quiet and loaded."""

from __future__ import annotations

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, build_worker
from bench.harness import BareRounds, noop, server_mode
from bench.model_calls import StepBytes, baseline_worker, call_rounds, json_bytes, padding
from bench.orchestration_overhead import measure, report


async def test_orchestrator_and_bare_runs_have_the_same_rounds_and_payloads(
    client: Client,
) -> None:
    result = await measure(client, runs=1, gap=0, loads=(0, 1))

    assert [at.load for at in result.loads] == [0, 1], "quiet, then one busy loop per core"
    for at in result.loads:
        assert len(at.orchestrator) == len(at.bare) == len(at.same_calls) == 1
        assert at.orchestrator[0].widths == at.bare[0].widths == result.widths
        assert at.same_calls[0].widths == result.widths, "the same calls in the same rounds"
        assert min(at.orchestrator_median, at.bare_median, at.same_calls_median) > 0
        assert len(at.load_averages) == 1
    assert sum(result.widths) == 19 and len(result.widths) == 16, result.widths
    assert len(result.step_bytes) == len(result.baseline_bytes) == 19
    assert sum(s.sent for s in result.step_bytes) > 19 * 1000, "an agent call carries kilobytes"
    assert result.baseline_bytes == result.step_bytes, "the same bytes in and out, step by step"
    text = report(result)
    assert "dev server in memory" in text
    assert "19 agent activities in 16 sequential rounds (fan-out 2)" in text
    assert "-- quiet" in text and "-- 1x oversubscribed" in text
    assert "ratio orchestrator / same calls per round" in text


def test_a_padded_payload_has_exactly_the_bytes_asked_for() -> None:
    empty = {"index": 7, "pad": ""}
    for size in (0, 5, json_bytes(empty), 8_000):
        pad = padding(size, empty)
        assert json_bytes({"index": 7, "pad": "x" * pad}) == max(size, json_bytes(empty))
    assert StepBytes(1, 2) == StepBytes(sent=1, returned=2)


def test_call_rounds_number_the_recorded_calls_round_by_round() -> None:
    assert call_rounds([1, 2, 1]) == [[0], [1, 2], [3]]
    assert call_rounds([]) == []


def test_the_report_says_where_the_server_keeps_its_data() -> None:
    assert server_mode(None) == "dev server in memory"
    assert server_mode("/tmp/x.db") == "dev server on the SQLite file /tmp/x.db"


async def test_a_baseline_s_worker_runs_workflows_as_the_agents_worker_does(
    client: Client, task_queue: str
) -> None:
    baseline = baseline_worker(client, task_queue, [BareRounds], [noop]).config()
    agents = build_worker(client, f"{task_queue}-agents", LlmSettings()).config()

    assert baseline["workflow_runner"] is agents["workflow_runner"] is WORKFLOW_RUNNER
    for option in (
        "max_concurrent_activities",
        "max_concurrent_workflow_tasks",
        "sticky_queue_schedule_to_start_timeout",
        "max_cached_workflows",
    ):
        assert baseline[option] == agents[option], option  # type: ignore[literal-required]
