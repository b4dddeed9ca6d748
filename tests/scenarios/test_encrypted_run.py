"""A whole run with encryption on: the server holds ciphertext only (every payload of the run's
histories and its children's, failures included), the keys rotate mid-run, a plaintext event
from the ``temporal`` CLI is taken, and a worker without the keys refuses to start in one line."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import History
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.codec import ENCRYPTED, KEY_ID_KEY, EncryptionCodec
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing, rotated, setting_value
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.cli import client_env
from tests.support.interrupts import answer_all, interrupt_status, wait_for_interrupt
from tests.support.workspace import git, make_repo

GOAL = "add rate limiting to the gateway, goal-aubergine-7781"
REPLY = "reply-quokka-5512"
FILE = "file-content-narwhal-3390"
PERSON = "Zelda Quintessa-Marlowe"
FAILURE = "endpoint-said-pangolin-4417"
SUPERVISOR = "supervisor-said-ocelot-2208"
MARKS = (GOAL, REPLY, FILE, PERSON, FAILURE, SUPERVISOR)
ROOT = Path(__file__).resolve().parents[2]
SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_AGENT}))


class MarkedModel(OfflineModel):
    """The offline model, but its first request fails with an endpoint message that a failure
    quotes, and every reply carries a distinctive word."""

    def __init__(self) -> None:
        super().__init__(SCENARIO)
        self.failed = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not self.failed:
            self.failed = True
            return httpx2.Response(503, json={"error": {"message": f"busy: {FAILURE}"}})
        return await super().handle_async_request(request)

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        return _marked(super().answer(name, schema, messages))


def _marked(answer: str) -> str:
    """The reply with REPLY added to its first free text (a summary, a reason)."""
    value = json.loads(answer)

    def mark(node: Any) -> bool:
        if isinstance(node, dict):
            for key, item in node.items():
                if key in ("summary", "reasoning", "rationale", "reason") and isinstance(item, str):
                    node[key] = f"{item} ({REPLY})"
                    return True
                if mark(item):
                    return True
        elif isinstance(node, list):
            return any(mark(item) for item in node)
        return False

    mark(value)
    return json.dumps(value)


def _client(client: Client, ring: KeyRing | None) -> Client:
    config = client.config()
    config["data_converter"] = data_converter(ring)
    return Client(**config)


def _payloads(message: Message, path: str = "") -> Iterator[tuple[str, Payload]]:
    """Every Payload inside ``message``, with the field path that holds it."""
    if isinstance(message, Payload):
        yield path, message
        return
    for field, value in message.ListFields():
        where = f"{path}.{field.name}"
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            for key, item in value.items():
                if isinstance(item, Message):
                    yield from _payloads(item, f"{where}[{key}]")
        elif field.is_repeated:
            for item in value:
                yield from _payloads(item, where)
        else:
            yield from _payloads(value, where)


NOT_ENCODED = (
    "search_attributes",
    "header",
    "[patch-data]",
    "marker_recorded_event_attributes.details[data]",
)
"""Payloads Temporal writes for itself, the codec never sees them (search attributes, headers,
a ``workflow.patched`` marker's id, a local activity marker's sequence number, type and times):
checked for the marks only."""


async def _histories(plain: Client, workflow_id: str) -> dict[str, History]:
    """The raw histories of the run and of every child it (or a child) started."""
    found: dict[str, History] = {}
    todo = [workflow_id]
    while todo:
        current = todo.pop()
        history = History(events=(await plain.get_workflow_handle(current).fetch_history()).events)
        found[current] = history
        for event in history.events:
            if event.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
                child = event.start_child_workflow_execution_initiated_event_attributes
                if child.workflow_id not in found:
                    todo.append(child.workflow_id)
    return found


EVENT_ID = "plain-event-1"


async def _cli_signal(client: Client, workflow_id: str) -> None:
    event = {"eventId": EVENT_ID, "sourceAgentType": "PLANNING_AGENT", "reason": SUPERVISOR}
    done = await asyncio.to_thread(
        subprocess.run,
        [
            str(temporal_cli()),
            "workflow",
            "signal",
            "--address",
            client.service_client.config.target_host,
            "--workflow-id",
            workflow_id,
            "--name",
            "interrupt_request_event",
            "--input",
            json.dumps(event),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


async def _until_event_seen(client: Client, workflow_id: str) -> None:
    """The run read the plaintext event: its status names the event's id."""
    handle = client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
    async with asyncio.timeout(60):
        while True:
            status = await handle.query(OrchestratorWorkflow.status)
            if any(EVENT_ID in e.message for e in status.events):
                return
            await asyncio.sleep(0.1)


async def test_a_run_with_encryption_on_leaves_only_ciphertext_on_the_server(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path, huge_bytes=10)
    gateway = repo / "shop" / "gateway.py"
    gateway.write_text(gateway.read_text().replace("# no rate limiting yet", f"# {FILE}"))
    git(repo, "commit", "--quiet", "-am", "a mark")
    tools = ToolSettings(state_dir=tmp_path / "state")
    old = KeyRing((("k1", os.urandom(32)),))
    new = KeyRing(rotated(old.keys))
    first = _client(client, old)
    async with build_worker(first, task_queue, LlmSettings(), offline=MarkedModel(), tools=tools):
        handle = await first.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL, workspace=WorkspaceSpec(source=str(repo))),
            id=workflow_id,
            task_queue=task_queue,
        )
        pending = (await wait_for_interrupt(handle, timeout=120)).pending_interrupt
        assert pending is not None
    # the keys rotate: a worker with a new newest key takes the answer, the old key still reads
    second = _client(client, new)
    async with build_worker(second, task_queue, LlmSettings(), offline=MarkedModel(), tools=tools):
        question = (await interrupt_status(second, pending.workflow_id)).request
        # a supervisor's event in plaintext, from the temporal CLI (another language's client)
        await _cli_signal(client, workflow_id)
        await _until_event_seen(second, workflow_id)
        await AgentWorkflowClient(second).resolve(
            pending.workflow_id, answer_all(question), answered_by=PERSON
        )
        await asyncio.wait_for(second.get_workflow_handle(workflow_id).result(), 120)

    plain = _client(client, None)
    plain_config = plain.config()
    plain_config["data_converter"] = pydantic_data_converter
    histories = await _histories(Client(**plain_config), workflow_id)
    assert len(histories) > 1  # the question's child, at least
    key_ids: set[bytes] = set()
    failures = 0
    codec = EncryptionCodec(new)
    opened = bytearray()
    for run, history in histories.items():
        raw = history.SerializeToString()
        for mark in MARKS:
            assert mark.encode() not in raw or mark == SUPERVISOR, (run, mark)
        for path, payload in _payloads(history):
            if any(part in path for part in NOT_ENCODED):
                continue
            if payload.metadata.get("encoding") != ENCRYPTED:
                assert EVENT_ID.encode() in payload.data, (run, path)  # the CLI's, in plain
                continue
            key_ids.add(payload.metadata[KEY_ID_KEY])
            opened += codec.decode_now([payload])[0].SerializeToString()
        failures += sum("Encoded failure" in str(e) for e in history.events)
    assert key_ids == {b"k1", b"k2"}  # started under the old key, answered under the new one
    assert failures > 0  # the endpoint's message, quoted by the agent call's failure
    for mark in (GOAL, REPLY, PERSON, FAILURE):  # the scan looked where the words are
        assert mark.encode() in opened, mark


def _worker(client: Client, task_queue: str, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in client_env(client).items() if not k.startswith("AGENTS_ENCRYPTION")}
    return subprocess.run(
        [sys.executable, "worker.py"],
        cwd=ROOT,
        env=env | {"TEMPORAL_TASK_QUEUE": task_queue, "AGENTS_STUCK_CHECK_SECONDS": "0"} | settings,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_turning_encryption_off_with_encrypted_runs_open_is_refused_in_one_line(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    ring = KeyRing((("k1", os.urandom(32)),))
    await _client(client, ring).start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL),
        id=workflow_id,
        task_queue=task_queue,  # no worker polls it: the run stays open
    )
    off = await asyncio.to_thread(_worker, client, task_queue)
    assert off.returncode == 1 and off.stderr.count("\n") == 1, off.stderr
    assert f"open run {workflow_id} is encrypted (key id 'k1')" in off.stderr
    assert "AGENTS_ENCRYPTION_KEYS is not set" in off.stderr
    other = setting_value((("k2", os.urandom(32)),))  # a ring without k1
    dropped = await asyncio.to_thread(_worker, client, task_queue, AGENTS_ENCRYPTION_KEYS=other)
    assert dropped.returncode == 1, dropped.stderr
    assert "under key id 'k1', which AGENTS_ENCRYPTION_KEYS does not hold" in dropped.stderr
    assert other.split(":")[1] not in dropped.stderr + dropped.stdout
