"""Smoke test for the supervisor-event bench: it runs and measures something sane."""

from __future__ import annotations

from temporalio.client import Client

from agent_interrupts.teams.software.agents import AgentType
from bench.supervisor_event import TARGET, measure, report


async def test_bench_measures_the_event_path_and_the_round_trip(client: Client) -> None:
    result = await measure(client, runs=1, round_trips=1, warmups=0, round_trip_warmups=0, gap=0)

    assert len(result.event_runs) == 1
    assert len(result.round_trips) == 1
    (run,) = result.event_runs
    assert TARGET is AgentType.DISCOVERY_ORCHESTRATOR
    assert run.target_agent is AgentType.DISCOVERY_ORCHESTRATOR
    assert run.target_scheduled_event_id > run.child_completed_event_id
    for value in (
        run.to_cancel_requested,
        run.to_rerun_scheduled,
        run.rerun_llm,
        run.to_child_waiting,
        run.human_wait,
        run.resolve_to_target,
        run.total,
        run.orchestration,
    ):
        assert value > 0
    assert run.rerun_dispatch >= 0
    assert result.rerun_scheduled_median > 0
    assert result.total_median > 0
    assert result.orchestration_median > 0
    assert result.round_trip_median > 0
    assert result.ratio > 0
    text = report(result)
    assert "ratio (c) / interrupt round trip:" in text
    assert "(a) alone:" in text
    assert "1 runs, 0 s gap" in text
