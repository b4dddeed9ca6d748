"""``agents run``'s plan: which worker serves the run and on which task queue, decided once from
its options (the command's executor only carries it out)."""

from __future__ import annotations

import pytest

from agent_interrupts.app.cli.run import SCENARIO_NEEDS_A_WORKER, RunPlan, plan_run
from agent_interrupts.app.stack import scenario_queue

QUEUE = "agents"
SCENARIO = "interrupt=PLANNING_ORCHESTRATOR"


def plan(
    *, team_file: bool = False, scenario: str | None = None, worker: bool = False, local: bool
) -> RunPlan | str:
    return plan_run(QUEUE, team_file=team_file, scenario=scenario, in_process=worker, local=local)


def test_a_plain_run_uses_the_worker_that_serves_the_queue() -> None:
    for local in (True, False):
        assert plan(local=local) == RunPlan("already serving", QUEUE, team_elsewhere=False)


def test_a_scenario_against_a_configured_server_needs_worker() -> None:
    assert plan(scenario=SCENARIO, local=False) == SCENARIO_NEEDS_A_WORKER
    assert plan(scenario=SCENARIO, local=False, worker=True) == RunPlan(
        "in process", scenario_queue(QUEUE, SCENARIO), team_elsewhere=False
    )


@pytest.mark.parametrize("local", [True, False])
@pytest.mark.parametrize("team_file", [True, False])
def test_worker_runs_in_process_whatever_else_is_asked(local: bool, team_file: bool) -> None:
    assert plan(worker=True, local=local, team_file=team_file) == RunPlan(
        "in process", QUEUE, team_elsewhere=False
    )


def test_the_local_stack_serves_a_team_file_on_its_scenario_queue() -> None:
    assert plan(team_file=True, local=True) == RunPlan("stack team", QUEUE, team_elsewhere=False)
    assert plan(team_file=True, local=True, scenario=SCENARIO) == RunPlan(
        "stack team", scenario_queue(QUEUE, SCENARIO), team_elsewhere=False
    )


def test_the_local_stack_starts_a_scenario_worker() -> None:
    assert plan(scenario=SCENARIO, local=True) == RunPlan(
        "stack scenario", scenario_queue(QUEUE, SCENARIO), team_elsewhere=False
    )


def test_a_team_file_against_a_configured_server_is_noted_not_served() -> None:
    assert plan(team_file=True, local=False) == RunPlan(
        "already serving", QUEUE, team_elsewhere=True
    )


def test_an_empty_scenario_is_no_scenario() -> None:
    assert plan(scenario="", local=False) == RunPlan("already serving", QUEUE, team_elsewhere=False)
