"""The TypeScript supervisor example (docs/examples/ts-supervisor) with its codec: a node script on
Temporal's TypeScript SDK sends an InterruptRequestEvent into an encrypted run, encrypted with the
workers' scheme; the run takes it (it ends in a question) and the server holds only ciphertext."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx2
import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.history.v1 import History
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.app.codec import ENCRYPTED, KEY_ID_KEY, EncryptionCodec
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing, setting_value
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.agent_call import SUPERVISOR_MESSAGE_PREFIX
from agent_interrupts.models.graph import NODES_BY_OUTPUT
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import interrupt_status, start, wait_for_interrupt, wait_running

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "ts-supervisor"
REASON = "supervisor-said-caracal-6604"
CHOICE = "choice-text-tapir-1187"
HELD = AgentType.DISCOVERY_COLLECTOR
HELD_OUTPUTS = {name for name, node in NODES_BY_OUTPUT.items() if node.agent_type == HELD}


@pytest.fixture(scope="session")
def ts_supervisor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example copied to a temporary directory, its pinned packages installed by ``npm ci``
    (once per session, with npm's cache in the session's temporary directory)."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip("node and npm are not installed (Debian: apt-get install nodejs npm)")
    where = tmp_path_factory.mktemp("ts-supervisor")
    for source in EXAMPLE.iterdir():
        if source.is_file():
            shutil.copy(source, where / source.name)
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
        cwd=where,
        env=os.environ | {"npm_config_cache": str(tmp_path_factory.mktemp("npm-cache"))},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return where


class HeldCollector(OfflineModel):
    """The offline model, but the collector's call waits until a supervisor's message comes (the
    event cancels it, and the call runs again with the message), so the event finds it running."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
        if name in HELD_OUTPUTS and SUPERVISOR_MESSAGE_PREFIX not in json.dumps(body["messages"]):
            await asyncio.sleep(300)
        return await super().handle_async_request(request)


def _sent_payloads(history: History, how: str) -> list[Payload]:
    """The payloads of the supervisor's update request or signal in the run's raw history."""
    sent: list[Payload] = []
    for event in history.events:
        if how == "update" and event.HasField(
            "workflow_execution_update_accepted_event_attributes"
        ):
            accepted = event.workflow_execution_update_accepted_event_attributes.accepted_request
            sent += accepted.input.args.payloads
        elif how == "signal" and event.HasField("workflow_execution_signaled_event_attributes"):
            signal = event.workflow_execution_signaled_event_attributes
            if signal.signal_name == "interrupt_request_event":
                sent += signal.input.payloads
    return sent


async def _node(where: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(
        subprocess.run, args, cwd=where, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("how", ["update", "signal"])
async def test_a_typescript_supervisor_encrypts_its_event_and_the_run_takes_it(
    client: Client, task_queue: str, workflow_id: str, ts_supervisor: Path, how: str
) -> None:
    ring = KeyRing((("k1", os.urandom(32)),))
    config = client.config()
    config["data_converter"] = data_converter(ring)
    sealed = Client(**config)
    event = {
        "sourceAgentType": str(HELD),
        "rerouteToAgentType": "DISCOVERY_ORCHESTRATOR",
        "reason": REASON,
        "choices": [
            {"label": CHOICE, "value": "DISCOVERY_ORCHESTRATOR"},
            {"label": "Go on", "value": "PLANNING_ORCHESTRATOR"},
        ],
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTS_", "TEMPORAL_"))}
    env |= {
        "TEMPORAL_ADDRESS": client.service_client.config.target_host,
        "TEMPORAL_NAMESPACE": client.namespace,
        "AGENTS_ENCRYPTION_KEYS": setting_value(ring.keys),
    }
    model = HeldCollector()
    async with build_worker(sealed, task_queue, LlmSettings(), offline=model):
        handle = await start(sealed, task_queue, workflow_id)
        await wait_running(handle, HELD, timeout=60)
        args = ["node", "supervisor.js", *(["--signal"] if how == "signal" else [])]
        done = await _node(ts_supervisor, env, *args, workflow_id, json.dumps(event))
        assert done.returncode == 0, done.stderr
        if how == "update":  # the worker's encrypted answer, decrypted by the TypeScript codec
            ack = json.loads(done.stdout)
            assert ack["accepted"] is True, ack
        else:
            assert done.stdout.strip() == "signalled"
        pending = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
        assert pending is not None
        question = await interrupt_status(sealed, pending.workflow_id)
        supervisor = [c for c in question.request.choices if c.choice_id == "supervisor"]
        assert supervisor and CHOICE in json.dumps(supervisor[0].model_dump(mode="json"))
        if how == "update":  # the validator's refusal, decrypted: one line, exit status 1
            again = await _node(ts_supervisor, env, *args, workflow_id, json.dumps(event))
            assert again.returncode == 1 and again.stderr.count("\n") == 1, again.stderr
            assert again.stderr.startswith("error: event ") and "rejected" in again.stderr

    told = [r for r in model.received if SUPERVISOR_MESSAGE_PREFIX in json.dumps(r["messages"])]
    assert told and REASON in json.dumps(told[0]["messages"])  # the worker read the event
    history = History(events=(await client.get_workflow_handle(workflow_id).fetch_history()).events)
    child = await client.get_workflow_handle(pending.workflow_id).fetch_history()
    for raw in (history.SerializeToString(), History(events=child.events).SerializeToString()):
        assert REASON.encode() not in raw and CHOICE.encode() not in raw
    sent = _sent_payloads(history, how)
    assert len(sent) == 1
    assert sent[0].metadata["encoding"] == ENCRYPTED and sent[0].metadata[KEY_ID_KEY] == b"k1"
    opened = EncryptionCodec(ring).decode_now(sent)[0]
    assert opened.metadata["encoding"] == b"json/plain"
    assert json.loads(opened.data)["reason"] == REASON
    await client.get_workflow_handle(workflow_id).terminate("test cleanup: a sealed run")
