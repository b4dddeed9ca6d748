"""A run started by any client (the Temporal UI, ``temporal workflow start``, another language's
SDK: here a bare client sending the JSON) has its questions listed by ``list --waiting``, the
inbox and ``InterruptState='WAITING'``; in a namespace without the search
attributes the run says so and still asks and takes answers."""

from __future__ import annotations

import asyncio
import uuid

from google.protobuf.duration_pb2 import Duration
from temporalio.api.enums.v1 import EventType
from temporalio.api.workflowservice.v1 import RegisterNamespaceRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows import visibility
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.inbox import until_listed
from tests.support.interrupts import answer_all, interrupt_status, wait_for_interrupt

SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))


async def test_a_run_started_by_another_client_lists_its_questions(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings(), scenario=SCENARIO):
        handle = await client.start_workflow(
            "OrchestratorWorkflow",
            {"goal": "Add rate limiting"},
            id=workflow_id,
            task_queue=task_queue,
            result_type=dict,
        )
        pending = (
            await wait_for_interrupt(
                client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
            )
        ).pending_interrupt
        assert pending is not None
        agents = AgentWorkflowClient(client)
        await until_listed(agents, pending.workflow_id)
        described = await handle.describe()
        assert described.typed_search_attributes.get(visibility.AGENT_PHASE) is not None
        question = (await interrupt_status(client, pending.workflow_id)).request
        await agents.resolve(pending.workflow_id, answer_all(question))
        await asyncio.wait_for(handle.result(), 60)


async def test_a_namespace_without_the_attributes_says_so_and_still_asks(
    env: WorkflowEnvironment, task_queue: str, workflow_id: str
) -> None:
    namespace = f"bare-{uuid.uuid4().hex[:8]}"
    await env.client.workflow_service.register_namespace(
        RegisterNamespaceRequest(
            namespace=namespace, workflow_execution_retention_period=Duration(seconds=86_400)
        )
    )
    bare = await Client.connect(
        env.client.service_client.config.target_host,
        namespace=namespace,
        data_converter=pydantic_data_converter,
    )
    async with build_worker(bare, task_queue, LlmSettings(), scenario=SCENARIO):
        handle = await bare.start_workflow(
            OrchestratorWorkflow.run,
            {"goal": "Add rate limiting"},
            id=workflow_id,
            task_queue=task_queue,
        )
        status = await wait_for_interrupt(handle)
        assert status.pending_interrupt is not None
        warnings = [e.message for e in status.events if e.kind is EventKind.WARNING]
        assert any("lacks the search attributes AgentPhase" in w for w in warnings), warnings
        question = (await interrupt_status(bare, status.pending_interrupt.workflow_id)).request
        await AgentWorkflowClient(bare).resolve(
            status.pending_interrupt.workflow_id, answer_all(question)
        )
        await asyncio.wait_for(handle.result(), 60)
    child = bare.get_workflow_handle(status.pending_interrupt.workflow_id)
    for run in (handle, child):
        events = [e async for e in run.fetch_history_events()]
        upserts = [
            e.upsert_workflow_search_attributes_event_attributes.search_attributes
            for e in events
            if e.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES
        ]
        upserted = {name for attributes in upserts for name in attributes.indexed_fields}
        # TemporalChangeVersion is the system attribute `workflow.patched` sets on every namespace
        assert not upserted & {key.name for key in visibility.KEYS}
        assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in {e.event_type for e in events}
