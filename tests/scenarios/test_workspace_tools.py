"""Agents that look at real code: runs with a workspace on a fixture repository.

Offline runs use the offline model's deterministic discovery (search, read, retain, reflect);
the HTTP runs go through the openai SDK to a local OpenAI-compatible server that plays the same
model and records every request it receives.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import EntryKind, HistoryEntry, OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.postgres import PostgresServer
from tests.support.workspace import make_repo

GOAL = "add rate limiting to the gateway"
ROOT = Path(__file__).resolve().parents[2]


async def _run(
    client: Client, queue: str, workflow_id: str, repo: Path | str, tools: ToolSettings, **llm: str
) -> list[HistoryEntry]:
    settings = LlmSettings(**llm)  # type: ignore[arg-type]
    async with build_worker(client, queue, settings, tools=tools):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL, workspace=WorkspaceSpec(source=str(repo))),
            id=workflow_id,
            task_queue=queue,
        )
        await handle.result()
        return await read_blackboard(client, workflow_id, payloads=True)  # queries need a worker


def _outputs(entries: list[HistoryEntry], agent: AgentType) -> list[HistoryEntry]:
    return [e for e in entries if e.kind is EntryKind.OUTPUT and e.agent_type is agent]


async def test_discovery_reports_only_valid_references_and_every_tool_call_is_visible(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    entries = await _run(client, task_queue, workflow_id, repo, tools)

    reports = _outputs(entries, AgentType.DISCOVERY_AGENT)
    assert reports
    for report in reports:
        refs = report.payload["result"]["fileReferences"]  # type: ignore[index]
        assert refs and all(r["valid"] for r in refs)
        assert {r["path"] for r in refs} <= {"shop/gateway.py", "shop/config.py", "README.md"}
        assert report.payload["result"]["referenceCheck"]["invalid"] == []  # type: ignore[index]
        tools_used = [t.tool for t in report.tool_calls]
        assert tools_used[:2] == ["memory_recall", "search"] and "memory_reflect" in tools_used
        for trace in report.tool_calls:
            assert trace.arguments and len(trace.result_sha256) == 64 and trace.latency_ms >= 0
            assert trace.error is None and trace.result_bytes > 0
    (collector,) = _outputs(entries, AgentType.DISCOVERY_COLLECTOR)
    consolidated = collector.payload["collectorResult"]["fileReferences"]  # type: ignore[index]
    cited = {r["path"] for e in reports for r in e.payload["result"]["fileReferences"]}  # type: ignore[index]
    assert consolidated and {r["path"] for r in consolidated} <= cited  # the reports' valid ones

    review = _outputs(entries, AgentType.REVIEW_AGENT)[-1]  # in the status query's window
    assert review.tool_calls and review.tool_call_count == len(review.tool_calls)
    # tool results stay out of history: a line only read_file showed is nowhere in it
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    assert b"def route(self, request)" not in history.to_json().encode()


async def test_a_second_run_recalls_and_links_the_first_runs_memories(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    await _run(client, task_queue, "memory-run-1-" + task_queue, repo, tools)
    db = sqlite3.connect(tools.state_dir / "memory.sqlite3")
    (first_max,) = db.execute("SELECT max(id) FROM memories").fetchone()
    assert db.execute("SELECT count(*) FROM memories WHERE kind = 'insight'").fetchone()[0] > 0

    await _run(client, task_queue, "memory-run-2-" + task_queue, repo, tools)
    linked_back = db.execute(
        "SELECT count(*) FROM links JOIN memories i ON i.id = links.a "
        "WHERE i.kind = 'insight' AND i.id > ? AND links.b <= ?",
        (first_max, first_max),
    ).fetchone()[0]
    assert linked_back > 0  # run 2 reflected on memories it recalled from run 1


async def test_workers_on_two_machines_share_memories_through_postgresql(
    client: Client, task_queue: str, tmp_path: Path, postgres: PostgresServer
) -> None:
    """Each worker has its own state directory, as on its own machine; the
    second run, on the other worker, recalls and links what the first one retained."""
    repo = make_repo(tmp_path)
    url = postgres.create_database()
    first, second = (ToolSettings(state_dir=tmp_path / m, memory_url=url) for m in ("a", "b"))
    await _run(client, task_queue + "-a", "pg-run-1-" + task_queue, repo, first)
    (first_max,) = postgres.query(url, "SELECT max(id) FROM memories")
    await _run(client, task_queue + "-b", "pg-run-2-" + task_queue, repo, second)
    (linked_back,) = postgres.query(
        url,
        "SELECT count(*) FROM memory_links l JOIN memories i ON i.id = l.a "
        f"WHERE i.kind = 'insight' AND i.id > {first_max} AND l.b <= {first_max}",
    )
    assert linked_back > 0
    assert not (tmp_path / "b" / "memory.sqlite3").exists()


async def test_tool_calls_over_http_and_retain_is_idempotent_under_an_activity_retry(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    """The 5th request (the discovery orchestrator's call after it asked to retain) fails with
    HTTP 500: Temporal retries the activity, which runs the retain again under the same key."""
    repo = make_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    with ScriptedOpenAIServer(["valid"] * 4 + ["500"]) as server:
        entries = await _run(
            client,
            task_queue,
            workflow_id,
            f"file://{repo}",
            tools,
            api_key="sk-test",
            base_url=server.base_url,
            model="m",
        )
    assert server.replies[4] == "500"
    offered = [r for r in server.completions if r.body.get("tools")]
    assert offered and all(
        t["type"] == "function" and t["function"]["strict"] is True
        for r in offered
        for t in r.body["tools"]
    )
    retried = server.completions[4].messages
    assert retried == server.completions[5].messages  # the same call, asked again
    assert [m["role"] for m in retried[-2:]] == ["assistant", "tool"]
    assert json.loads(retried[-2]["tool_calls"][0]["function"]["arguments"])["files"]

    (orchestrator,) = _outputs(entries, AgentType.DISCOVERY_ORCHESTRATOR)
    db = sqlite3.connect(tools.state_dir / "memory.sqlite3")
    kinds = db.execute(
        "SELECT kind FROM memories WHERE key LIKE ? ORDER BY id", (orchestrator.context_id + "/%",)
    ).fetchall()
    assert kinds == [("episode",), ("insight",)]


WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from datetime import timedelta
    from pathlib import Path
    from agent_interrupts.models import policies
    policies.AGENT_ACTIVITY = {**policies.AGENT_ACTIVITY, "heartbeat_timeout": timedelta(seconds=2)}
    from temporalio.client import Client
    from temporalio.contrib.pydantic import pydantic_data_converter
    from agent_interrupts.activities.llm import LlmSettings
    from agent_interrupts.activities.tools.settings import ToolSettings
    from agent_interrupts.app.worker_setup import build_worker

    async def main(address, queue, base_url, state):
        client = await Client.connect(address, data_converter=pydantic_data_converter)
        llm = LlmSettings(api_key="sk-test", base_url=base_url, model="m")
        async with build_worker(client, queue, llm, tools=ToolSettings(state_dir=Path(state))):
            await asyncio.Event().wait()

    asyncio.run(main(*sys.argv[1:]))
    """
)


async def test_a_worker_killed_mid_step_repeats_at_most_one_model_call(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    address = client.service_client.config.target_host
    with ScriptedOpenAIServer() as server:
        server.hold(4)  # the discovery orchestrator's third model call (rounds 1 and 2 are done)
        worker = subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                address,
                task_queue,
                server.base_url,
                str(tools.state_dir),
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            handle = await client.start_workflow(
                OrchestratorWorkflow.run,
                OrchestratorInput(goal=GOAL, workspace=WorkspaceSpec(source=str(repo))),
                id=workflow_id,
                task_queue=task_queue,
            )
            assert await asyncio.to_thread(server.holding.wait, 60)
        finally:
            worker.kill()
            worker.wait()
        server.release_hold()
        async with build_worker(
            client,
            task_queue,
            LlmSettings(api_key="sk-test", base_url=server.base_url, model="m"),
            tools=tools,
        ):
            await handle.result()
        sent = [json.dumps(r.messages, sort_keys=True) for r in server.completions]
    repeats = {m: sent.count(m) for m in sent if sent.count(m) > 1}
    assert list(repeats.values()) == [2]  # one model call asked twice: the one in flight
    assert sent[3] in repeats  # and it is the held one; rounds 1 and 2 were not asked again
    history = await handle.fetch_history()
    retried = [
        e
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and e.activity_task_started_event_attributes.attempt > 1
    ]
    assert len(retried) == 1
