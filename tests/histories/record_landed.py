"""Record histories with a landed version's own code (every landed version's runs continue on
the next).

``python -m tests.histories.record_landed 83c9b6c`` runs that version's ``worker.py`` (from
``git archive``) against a fresh dev server with the offline model and writes, into
``tests/histories/<version>/``: an orchestrator and its question while a planning orchestrator's
question waits, the same while a dispatch node's question waits, an orchestrator in the middle of
an agent call, and (from the version that serves declared teams) an incident-response run while
its investigator's question waits. These are the shapes a deploy meets in flight; the current
code must replay all of them; ``tests/workflows/test_deploys.py`` also hands waiting runs over
for real.
Recorded once per landed version; never re-recorded by a later version.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.workflows.visibility import dev_server_args
from tests.histories.landed import (
    GOAL,
    HISTORIES,
    LANDED,
    QUESTIONS,
    checkout,
    wait_for_question,
    worker_process,
)


async def _save(client: Client, workflow_id: str, path: Path) -> None:
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    path.write_text(history.to_json())


async def _record(client: Client, tree: Path, out: Path) -> None:
    address = client.service_client.config.target_host
    for name, agent in QUESTIONS.items():
        task_queue = f"record-{uuid.uuid4()}"
        workflow_id = f"landed-{name}"
        with worker_process(tree, address, task_queue, f"interrupt={agent}", out / "worker.log"):
            handle = await client.start_workflow(
                "OrchestratorWorkflow", {"goal": GOAL}, id=workflow_id, task_queue=task_queue
            )
            interrupt_id = f"{workflow_id}-interrupt-1"
            await wait_for_question(client, interrupt_id)
            await _save(client, workflow_id, out / f"orchestrator-{name}-waiting.json")
            await _save(client, interrupt_id, out / f"interrupt-{name}-waiting.json")
            await handle.terminate("recorded")
    if (tree / "teams" / "incident-response").is_dir():  # a version that serves declared teams
        task_queue = f"record-{uuid.uuid4()}"
        scenario = "interrupt=INVESTIGATOR#2"
        with worker_process(tree, address, task_queue, scenario, out / "worker.log"):
            workflow_id = "landed-team-question"
            handle = await client.start_workflow(
                "OrchestratorWorkflow",
                {"goal": GOAL, "team": "incident-response"},
                id=workflow_id,
                task_queue=task_queue,
            )
            interrupt_id = f"{workflow_id}-interrupt-1"
            await wait_for_question(client, interrupt_id)
            await _save(client, workflow_id, out / "orchestrator-team-question-waiting.json")
            await _save(client, interrupt_id, out / "interrupt-team-question-waiting.json")
            await handle.terminate("recorded")
    task_queue = f"record-{uuid.uuid4()}"
    with worker_process(tree, address, task_queue, "delay=TICKET_AGENT:30", out / "worker.log"):
        handle = await client.start_workflow(
            "OrchestratorWorkflow", {"goal": GOAL}, id="landed-mid-run", task_queue=task_queue
        )
        async with asyncio.timeout(90):
            while "ticket" not in str(await handle.query("status")).lower():
                await asyncio.sleep(0.2)
        await asyncio.sleep(2)  # the ticket agents' activities are scheduled and running
        await _save(client, handle.id, out / "orchestrator-mid-run.json")
    (out / "worker.log").unlink()


async def main(version: str) -> None:
    if version not in LANDED:
        raise SystemExit(f"{version} is not in LANDED ({', '.join(LANDED)}); add it there first")
    out = HISTORIES / version
    out.mkdir(exist_ok=True)
    async with (
        await WorkflowEnvironment.start_local(
            dev_server_existing_path=temporal_cli(),
            data_converter=pydantic_data_converter,
            dev_server_extra_args=dev_server_args(),
        ) as env,
    ):
        with checkout(version) as tree:
            await _record(env.client, tree, out)
    print("\n".join(sorted(p.name for p in out.glob("*.json"))))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
    exit_now(0)
