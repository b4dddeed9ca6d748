"""Smoke test for the long-run bench: a short looping run, and a stuck one."""

from __future__ import annotations

import logging

import pytest
from temporalio.client import Client, WorkflowExecutionStatus

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.output_schema import decoder_schema
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.long_run import GOAL, RefusedPayloads, measure, report, watch

CORE_WARNING = (
    "[sdk_core::temporalio_sdk_core::worker::workflow] Error while completing workflow activation "
    "{'error': 'code: \\'Client specified an invalid argument\\', message: \"[TMPRL1103] "
    'Attempted to upload payloads with size that exceeded the error limit.", source: '
    'PayloadLimitViolation { path: "commands[0].continue_as_new_workflow_execution_command_'
    "attributes.input\", class: Blob, severity: Error, size: 2343161, limit: 2097152 }'}"
)
"""A core warning as the forwarding runtime logs it, when a carried state is over the limit."""
MESSAGES = [{"role": "system", "content": "x"}, {"role": "user", "content": f"Goal: {GOAL}"}]


def test_the_loop_scenario_parses_a_positive_number_of_calls() -> None:
    assert OfflineScenario.parse("loop=1000;delay=REVIEW_AGENT:1").loop == 1000
    assert OfflineScenario.parse("interrupt=REVIEW_AGENT").loop is None
    for bad in ("loop=0", "loop=-3", "loop=many"):
        with pytest.raises(ValueError, match="loop=CALLS"):
            OfflineScenario.parse(bad)


def test_the_orchestrator_collector_goes_round_again_until_the_run_took_enough_calls() -> None:
    model = NODES[AgentType.ORCHESTRATOR_COLLECTOR].output_model
    schema = decoder_schema(model)

    def route(scenario: OfflineScenario) -> str:
        reply = OfflineModel(scenario).answer(model.__name__, schema, MESSAGES)
        routing = model.model_validate_json(reply)
        assert isinstance(routing, Routing)
        return routing.chosen_route()[0]

    assert route(OfflineScenario()) == "finalResult"
    assert route(OfflineScenario(loop=1)) == "orchestratorRequest", "no call answered yet"


async def test_a_short_looping_run_is_measured(client: Client) -> None:
    # two rounds of the graph (16 nodes each), continuing as new once between them
    result = await measure(client, steps=20, stall=30, continue_as_new_every=16)

    assert result.outcome == "completed", result.detail
    assert len(result.steps) == 2 * 19, "the collector stops at the end of a round"
    assert result.runs == len(result.continued) + 1 == 2
    assert all(c.input_bytes > 0 for c in result.continued)
    assert len(result.history_bytes) == len(result.steps) + 1
    assert result.history_ratio > 1
    text = report(result, "dev server in memory")
    for expected in (
        "run completed",
        "carried state (WorkflowExecutionContinuedAsNew input; aim: flat):",
        "history bytes per step / the step's own payload bytes",
        "wall per step, steps",
        "aim <= 1.1x",
    ):
        assert expected in text


async def test_a_run_that_stops_progressing_is_called_stuck_and_terminated(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(delays={AgentType.ORCHESTRATOR: 30}))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL),
            id=workflow_id,
            task_queue=task_queue,
        )
        outcome, detail = await watch(handle, time_limit=60, stall=1)

    assert outcome == "stuck"
    assert "no progress for 1 s (terminated); no workflow task failed" in detail
    assert (await handle.describe()).status is WorkflowExecutionStatus.TERMINATED


def test_a_refused_continue_as_new_is_described_from_the_core_log() -> None:
    refused = RefusedPayloads()
    refused.handle(logging.LogRecord("core", logging.WARNING, "", 0, CORE_WARNING, (), None))

    assert refused.last == (
        "the SDK refuses to upload commands[0].continue_as_new_workflow_execution_command_"
        "attributes.input: 2,343,161 bytes, over the 2,097,152 byte limit"
    )


def test_a_declared_teams_agent_that_may_end_the_run_goes_round_again_too() -> None:
    team = build_team(load_team_file(builtin_team_files()["incident-response"]))
    model = team.node("REMEDIATION_REVIEW").output_model
    schema = decoder_schema(model)

    def route(scenario: OfflineScenario) -> str:
        reply = OfflineModel(scenario).answer(model.__name__, schema, MESSAGES)
        routing = model.model_validate_json(reply)
        assert isinstance(routing, Routing)
        return routing.chosen_route()[0]

    assert route(OfflineScenario()) == "finalResult"
    assert route(OfflineScenario(loop=1)) == "remediationRequest"
