"""Record the histories CI replays (issue 9: in-flight runs survive deploys).

``python -m tests.histories.record`` runs, on a fresh in-memory dev server with the offline
model: an orchestrator run whose PLANNING_ORCHESTRATOR a supervisor's event interrupts and whose
REVIEW_AGENT asks a person, both answered; a run whose ticket agents ask at once (issue 10); and a
run that continues as new every 3 steps. It
writes every run's history (orchestrator runs and interrupt children) as JSON beside this file.
Re-record only on purpose: a history that no longer replays means runs in flight would break.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from activities.llm import LlmSettings
from activities.offline_model import OfflineModel, OfflineScenario
from app.binaries import temporal_cli
from app.worker_setup import build_worker
from models.agent_types import AgentType
from models.interrupt_events import InterruptRequestEvent
from tests.support.interrupts import answer_all, interrupt_status, start, wait_running
from workflows.interrupt import InterruptWorkflow
from workflows.orchestrator import OrchestratorWorkflow

HERE = Path(__file__).parent


async def _answer_next(client: Client, handle: WorkflowHandle, n: int) -> None:
    child_id = f"{handle.id}-interrupt-{n}"
    async with asyncio.timeout(60):
        while True:
            try:
                question = await interrupt_status(client, child_id)
                break
            except Exception:  # not started yet
                await asyncio.sleep(0.1)
    await client.get_workflow_handle(child_id).execute_update(
        InterruptWorkflow.resolve_validated, answer_all(question.request)
    )


async def _save(client: Client, workflow_id: str, name: str) -> None:
    runs = [e async for e in client.list_workflows(f"WorkflowId = '{workflow_id}'")]
    for i, run in enumerate(sorted(runs, key=lambda r: r.start_time)):
        history = await client.get_workflow_handle(workflow_id, run_id=run.run_id).fetch_history()
        (HERE / f"{name}-{i + 1}.json").write_text(history.to_json())


async def _interrupt_and_event(client: Client) -> None:
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario(
        interrupt_at=frozenset({AgentType.REVIEW_AGENT}),
        delays={AgentType.PLANNING_ORCHESTRATOR: 2.0},
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-interrupt-and-event")
        await wait_running(handle, AgentType.PLANNING_ORCHESTRATOR)
        await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent(
                event_id="recorded-event-1",
                source_agent_type=AgentType.PLANNING_ORCHESTRATOR,
                reroute_to_agent_type=AgentType.DISCOVERY_ORCHESTRATOR,
                reason="Need clarification on discovery scope",
            ),
        )
        await _answer_next(client, handle, 1)
        await _answer_next(client, handle, 2)
        await handle.result()
    await _save(client, handle.id, "orchestrator-interrupt-and-event")
    for n in (1, 2):
        await _save(client, f"{handle.id}-interrupt-{n}", f"interrupt-{n}")


async def _concurrent_questions(client: Client) -> None:
    """Issue 10: two of three ticket agents ask at once; the resumed fan-out runs only them."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3")
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-concurrent-questions")
        await _answer_next(client, handle, 1)
        await handle.result()
    await _save(client, handle.id, "orchestrator-concurrent-questions")
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-concurrent-questions")


async def _continued_as_new(client: Client) -> None:
    task_queue = f"record-{uuid.uuid4()}"
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(
            client, task_queue, "recorded-continue-as-new", continue_as_new_every=3
        )
        await handle.result()
    await _save(client, handle.id, "orchestrator-continued")


async def main() -> None:
    for old in HERE.glob("*.json"):
        old.unlink()
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(), data_converter=pydantic_data_converter
    ) as env:
        await _interrupt_and_event(env.client)
        await _concurrent_questions(env.client)
        await _continued_as_new(env.client)
    print("\n".join(sorted(p.name for p in HERE.glob("*.json"))))


if __name__ == "__main__":
    asyncio.run(main())
