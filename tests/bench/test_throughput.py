"""Smoke test for the throughput bench: a few concurrent runs, quiet and loaded, measured and
held."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
from temporalio.api.enums.v1 import TimeoutType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

import bench.throughput
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import fresh_id
from bench.throughput import (
    GOAL,
    AtLoad,
    BenchResult,
    Rate,
    cut,
    measure,
    patiently,
    phase_rate,
    positive_seconds,
    process_lines,
    process_rate,
    repeated_text,
    report,
    task_trouble,
    worker_counts,
)


async def test_bench_measures_the_rates_at_each_load_and_the_memory_of_held_runs(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    models: list[OfflineModel] = []

    class Kept(OfflineModel):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            models.append(self)

    monkeypatch.setattr(bench.throughput, "OfflineModel", Kept)
    result = await measure(client, runs=3, loads=(0, 1))

    assert [at.load for at in result.loads] == [0, 1], "quiet, then one busy loop per core"
    for at in result.loads:
        assert at.bare.items == at.agents.items == 3 * sum(result.widths) == 3 * 19
        assert at.same_calls.items == 3 * 19, "each run makes the warm-up's 19 calls again"
        assert min(r.per_second for r in (at.bare, at.agents, at.same_calls)) > 0
        assert at.repeated == 0, "no model call asked twice"
        assert at.agents.overruns == 0, "no workflow task overran the deadlock check or timeout"
    assert min(result.rss_before, result.rss_after_runs, result.rss_held) > 0
    text = report(result)
    assert "-- quiet" in text and "-- 1x oversubscribed" in text
    assert "with its payload bytes" in text
    assert "ratio agent steps/s / same model calls/s" in text
    assert "per cached running workflow" in text
    assert "ms this process" in text and "ms the dev server a step" in text
    assert "waited" in text and "for a slot (median)" in text
    for at in result.loads:
        for rate in (at.bare, at.agents, at.same_calls):
            assert rate.cpu is not None and rate.cpu.bench > 0 and rate.cpu.server > 0
    warm_up, *_ = models
    assert len(warm_up.received) == 19, "the warm-up's bodies only, not the measured runs'"
    assert warm_up.requests == 19 * (1 + 3 * 2), "every call still counted"


_NO_RUNS = BenchResult(
    2,
    [19],
    [AtLoad(0, Rate(1, 1), Rate(1, 1), Rate(1, 1), 0, "1.0 1.0 1.0")],
    1,
    1,
    1,
    1,
    "dev server in memory",
)


async def test_worker_processes_serve_the_runs_and_count_their_steps(client: Client) -> None:
    """``--workers`` runs real worker.py processes, all polling before the runs."""
    rate = await process_rate(client, 2, 2, OrchestratorInput(goal=GOAL), 19)
    assert rate.items == 2 * 19 and rate.seconds > 0
    assert process_lines(replace(_NO_RUNS, processes={1: rate, 2: rate}))[-1].startswith(
        "2 processes / 1: 1.00x"
    )
    assert worker_counts("1,2") == (1, 2)
    with pytest.raises(argparse.ArgumentTypeError, match="at least 1"):
        worker_counts("0,2")


async def test_a_phase_ends_at_its_timeout_and_counts_only_finished_runs(client: Client) -> None:
    """A starved machine gives a (lower-bound) figure instead of a bench that never ends: the
    runs still open at the timeout are terminated, and the rate counts none of their steps."""
    queue = fresh_id("bench-no-worker-tq")  # nothing polls it: no run can finish
    goal = OrchestratorInput(goal=GOAL)
    rate = await phase_rate(client, 2, queue, OrchestratorWorkflow.run, goal, 19, 0.5)

    assert rate.unfinished == 2 and rate.items == rate.in_flight == 0 and rate.seconds > 0
    listed = [w async for w in client.list_workflows(f"TaskQueue = '{queue}'")]
    assert len(listed) == 2
    assert {w.status for w in listed} == {WorkflowExecutionStatus.TERMINATED}
    assert "cut: 2 runs still open" in cut(rate) and "cut:" not in cut(Rate(19, 1.0))
    assert positive_seconds("300") == 300.0
    with pytest.raises(argparse.ArgumentTypeError, match="above 0"):
        positive_seconds("0")


def test_the_calls_made_twice_in_a_cut_phase_are_a_range() -> None:
    """Steps in flight at the cut may or may not have asked the model: both bounds are shown."""
    at = _NO_RUNS.loads[0]
    assert repeated_text(at).startswith("0 model calls made twice")
    assert repeated_text(replace(at, repeated=1, repeated_at_most=4)).startswith(
        "1 to 4 (steps in flight at the cut) model calls made twice"
    )


def test_workflow_tasks_lost_and_moved_are_told_apart() -> None:
    """A failed task (the deadlock check) and one timed out running are work done again; one
    timed out waiting for its sticky worker only moved to the normal queue; an activity's
    second attempt is a heartbeat or timeout missed."""
    failed = HistoryEvent(workflow_task_failed_event_attributes={"scheduled_event_id": 1})
    running, waiting = (
        HistoryEvent(workflow_task_timed_out_event_attributes={"timeout_type": kind})
        for kind in (
            TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
            TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
        )
    )
    other = HistoryEvent(workflow_task_completed_event_attributes={"scheduled_event_id": 1})
    first, again = (
        HistoryEvent(activity_task_started_event_attributes={"attempt": n}) for n in (1, 2)
    )
    assert task_trouble([[failed, running, other, first], [waiting, waiting, again]]) == (2, 2, 1)
    assert task_trouble([[other, first]]) == (0, 0, 0)
    text = cut(Rate(19, 1.0, overruns=2, sticky_misses=3, retried=4))
    assert "failed or timed out running: 2, moved off their sticky worker: 3" in text
    assert "activities retried: 4" in text


async def test_a_call_a_starved_server_timed_out_is_made_again() -> None:
    """A terminate or history read that a starved server let time out is made again; any
    other error, and the last late one, reach the bench."""
    attempts: list[RPCStatusCode] = []

    def failing(*statuses: RPCStatusCode) -> Callable[[], Awaitable[str]]:
        async def call() -> str:
            if len(attempts) < len(statuses):
                status = statuses[len(attempts)]
                attempts.append(status)
                raise RPCError("Timeout expired", status, b"")
            return "done"

        return call

    assert await patiently(failing(RPCStatusCode.DEADLINE_EXCEEDED)) == "done"
    attempts.clear()
    with pytest.raises(RPCError, match="Timeout expired"):
        await patiently(failing(RPCStatusCode.INVALID_ARGUMENT))
    assert attempts == [RPCStatusCode.INVALID_ARGUMENT], "not made again"


def test_a_baseline_that_completed_nothing_is_reported_not_divided_by() -> None:
    """At 4x oversubscription the no-op baseline on the SDK's default slots once completed no
    activity before its cut: the report says so instead of failing."""
    starved = replace(_NO_RUNS.loads[0], bare=Rate(0, 150.0, unfinished=100))
    assert starved.ratio == float("inf")
    assert "bare activities/s: infx" in report(replace(_NO_RUNS, loads=[starved]))
