"""What the SDK tells every answering client: the ack after a re-route names where
the run goes (the terminal, the follow prompt and the inbox all print it)."""

from __future__ import annotations

import os
from datetime import timedelta

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.sdk import AgentWorkflowClient, accepted
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptState, InterruptStatus
from agent_interrupts.teams.software.agents import AgentType
from tests.models.test_resolution_rules import REQUEST
from tests.support.interrupts import start, wait_for_interrupt


def _status(reroute_to: AgentType | None) -> InterruptStatus:
    return InterruptStatus(
        workflow_id="run-interrupt-1",
        state=InterruptState.WAITING,
        origin=AgentType.PLANNING_ORCHESTRATOR,
        reroute_to=reroute_to,
        request=REQUEST,
        resolution=None,
        deadline=None,
        hooks_applied=[],
        events=[],
    )


def test_the_ack_names_the_agent_the_run_continues_at() -> None:
    said = "PLANNING_ORCHESTRATOR resumes"
    assert accepted(said, _status(None)) == said
    assert accepted(said, _status(AgentType.PLANNING_ORCHESTRATOR)) == said
    assert accepted(said, _status(AgentType.DISCOVERY_ORCHESTRATOR)) == (
        "the run continues at DISCOVERY_ORCHESTRATOR (re-routed from PLANNING_ORCHESTRATOR)"
    )
    overruled = "your answer overrules the controller's; PLANNING_ORCHESTRATOR resumes"
    assert accepted(overruled, _status(AgentType.DISCOVERY_ORCHESTRATOR)).endswith(
        "; the run continues at DISCOVERY_ORCHESTRATOR (re-routed from PLANNING_ORCHESTRATOR)"
    )


def test_an_ack_that_names_the_target_already_is_kept() -> None:
    """The current interrupt names where the chosen option leads, which may not be the event's
    own target: the ack is not rewritten to the event's."""
    said = "the run continues at TICKET_ORCHESTRATOR (re-routed from PLANNING_ORCHESTRATOR)"
    assert accepted(said, _status(AgentType.DISCOVERY_ORCHESTRATOR)) == said


def test_the_workflow_types_by_name_are_the_classes_names() -> None:
    """The SDK names the workflow types without loading their classes (fast commands)."""
    from agent_interrupts.app.sdk import INTERRUPT_TYPE, ORCHESTRATOR_TYPE
    from agent_interrupts.workflows.interrupt import InterruptWorkflow
    from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

    assert OrchestratorWorkflow.__name__ == ORCHESTRATOR_TYPE
    assert InterruptWorkflow.__name__ == INTERRUPT_TYPE


async def test_a_run_sealed_under_a_key_this_client_lacks_is_listed_not_fatal(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """``agents list`` shows every run; one whose memo it cannot open says why in its goal."""
    config = client.config()
    config["data_converter"] = data_converter(KeyRing((("k1", os.urandom(32)),)))
    sealed = AgentWorkflowClient(Client(**config), task_queue)
    handle = await sealed.start("a goal under a key", workflow_id=workflow_id)  # no worker needed
    try:
        rows = await AgentWorkflowClient(client, task_queue).runs(limit=50)
        (row,) = [r for r in rows if r.workflow_id == workflow_id]
        assert row.goal.startswith("(its goal cannot be read: ") and "'k1'" in row.goal, row.goal
        assert "a goal under a key" not in row.goal
    finally:
        await handle.terminate("test cleanup")


async def test_a_question_sealed_under_a_key_this_client_lacks_is_listed_not_fatal(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """``agents list --waiting`` and the inbox list every question; a sealed one says why it
    cannot be read, with its worker serving and once it is gone."""
    config = client.config()
    config["data_converter"] = data_converter(KeyRing((("k1", os.urandom(32)),)))
    sealed = Client(**config)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_COLLECTOR})))
    plain = AgentWorkflowClient(client, task_queue)
    handle = await start(sealed, task_queue, workflow_id)
    try:
        async with build_worker(sealed, task_queue, LlmSettings(), offline=offline):
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            served = await plain.waiting_questions(limit=100, query_timeout=timedelta(seconds=5))
        gone = await plain.waiting_questions(limit=100, query_timeout=timedelta(seconds=1))
        for listed in (served, gone):
            (row,) = [q for q in listed if q.interrupt_id == pending.workflow_id]
            assert row.status is None and row.summary.startswith("(unreadable: "), row.summary
            assert "'k1'" in row.summary
    finally:
        await handle.terminate("test cleanup")
