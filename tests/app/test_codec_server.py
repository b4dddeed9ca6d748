"""The codec server, served by the inbox: Temporal's contract over real HTTP, the Web UI's CORS,
``temporal workflow show --codec-endpoint`` on a real encrypted history, and nothing decoded
without an inbox token; ``agents up`` gives the UI the endpoint when encryption is on."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import uvicorn
from google.protobuf import json_format
from temporalio.api.common.v1 import Payloads
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.codec import EncryptionCodec
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing, setting_value
from agent_interrupts.app.inbox.codec_server import CodecServer, ui_origins
from agent_interrupts.app.inbox.web import create_app, listening
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.stack import ui_codec_args
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.cli.support import free_port
from tests.support.inbox import TOKEN

GOAL = "add rate limiting to the gateway, codec-goal-tamarind-6120"
RING = KeyRing((("k1", bytes(range(32))),))
UI = "http://127.0.0.1:8233"


@asynccontextmanager
async def inbox_with_codec(client: Client, settings: InboxSettings) -> AsyncIterator[str]:
    """The inbox, its codec server mounted, on a free port over real HTTP: its base URL."""
    settings = InboxSettings(
        port=free_port(),
        token=settings.token,
        people=settings.people,
        user_header=settings.user_header,
    )
    codec = CodecServer(EncryptionCodec(RING), settings, client.namespace, ui_origins(UI))
    app = create_app(AgentWorkflowClient(client), settings, codec=codec)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    with listening(settings) as sock:
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            while not server.started:
                await asyncio.sleep(0.01)
            yield f"http://127.0.0.1:{settings.port}"
        finally:
            server.should_exit = True
            await serving


async def _encrypted_run(client: Client, task_queue: str, workflow_id: str) -> list[dict]:
    """A finished run under RING; the payloads of its start event, as the codec contract's JSON."""
    config = client.config()
    config["data_converter"] = data_converter(RING)
    sealed = Client(**config)
    async with build_worker(sealed, task_queue, LlmSettings()):
        await sealed.execute_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL),
            id=workflow_id,
            task_queue=task_queue,
        )
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    started = history.events[0]
    assert started.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED
    payloads = started.workflow_execution_started_event_attributes.input
    assert GOAL.encode() not in payloads.SerializeToString()
    return json.loads(json_format.MessageToJson(payloads))["payloads"]


def _shows_goal(response: httpx.Response) -> bool:
    """Whether the codec's answer holds the goal in the clear."""
    opened = json_format.Parse(response.text, Payloads())
    return any(GOAL.encode() in payload.data for payload in opened.payloads)


async def test_the_codec_server_decodes_for_a_token_holder_only(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    sealed = await _encrypted_run(client, task_queue, workflow_id)
    async with (
        inbox_with_codec(client, InboxSettings(token=TOKEN)) as base,
        httpx.AsyncClient(base_url=base) as http,
    ):
        body = {"payloads": sealed}
        for path in ("/decode", f"/{client.namespace}/decode"):
            opened = await http.post(
                path,
                json=body,
                headers={"Authorization": f"Bearer {TOKEN}", "X-Namespace": client.namespace},
            )
            assert opened.status_code == 200, opened.text
            assert _shows_goal(opened)
        for headers in ({}, {"Authorization": "Bearer not-the-token-0123456789"}):
            refused = await http.post("/decode", json=body, headers=headers)
            assert refused.status_code == 401 and GOAL not in refused.text
            assert "inbox token" in refused.text
        # the cookie the inbox's link sets works too (the Web UI sends it with credentials)
        cookie = await http.post(
            "/decode", json=body, headers={"Cookie": f"agents_inbox_token={TOKEN}"}
        )
        assert cookie.status_code == 200 and _shows_goal(cookie)
        other = await http.post(
            "/decode", json=body, headers={"Authorization": f"Bearer {TOKEN}", "X-Namespace": "x"}
        )
        assert other.status_code == 404
        # encode, then decode: the round trip of `temporal workflow start --codec-endpoint`
        plain = {"payloads": [{"metadata": {"encoding": "anNvbi9wbGFpbg=="}, "data": "IngiCg=="}]}
        auth = {"Authorization": f"Bearer {TOKEN}"}
        encoded = (await http.post("/encode", json=plain, headers=auth)).json()
        assert encoded["payloads"][0]["metadata"]["encoding"] == "YmluYXJ5L2VuY3J5cHRlZA=="
        decoded = (await http.post("/decode", json=encoded, headers=auth)).json()
        assert decoded == plain
        # the Web UI's preflight (no credentials) and its call from its own origin
        preflight = await http.options(
            "/decode",
            headers={
                "Origin": UI,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,x-namespace",
            },
        )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == UI
        assert preflight.headers["access-control-allow-credentials"] == "true"
        assert "X-Namespace" in preflight.headers["access-control-allow-headers"]
        from_ui = await http.post("/decode", json=body, headers={**auth, "Origin": UI})
        assert from_ui.status_code == 200 and from_ui.headers["access-control-allow-origin"] == UI
        elsewhere = await http.post(
            "/decode", json=body, headers={**auth, "Origin": "https://evil.example"}
        )
        assert "access-control-allow-origin" not in elsewhere.headers
        # the inbox's own pages stay behind its guard
        assert (await http.get("/")).status_code == 401


async def test_an_inbox_without_a_token_decodes_for_nobody(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    sealed = await _encrypted_run(client, task_queue, workflow_id)
    async with (
        inbox_with_codec(client, InboxSettings()) as base,
        httpx.AsyncClient(base_url=base) as http,
    ):
        refused = await http.post("/decode", json={"payloads": sealed})
        assert refused.status_code == 401 and "decodes for nobody" in refused.text
    behind_proxy = InboxSettings(user_header="X-Forwarded-User")
    async with (
        inbox_with_codec(client, behind_proxy) as base,
        httpx.AsyncClient(base_url=base) as http,
    ):
        assert (await http.post("/decode", json={"payloads": sealed})).status_code == 401
        vouched = await http.post(
            "/decode", json={"payloads": sealed}, headers={"X-Forwarded-User": "ada"}
        )
        assert vouched.status_code == 200 and _shows_goal(vouched)


def _payload_texts(shown: str) -> str:
    """The payloads' data of ``temporal workflow show --output json``, in the clear (base64)."""
    datas = re.findall(r'"data": "([A-Za-z0-9+/=]*)"', shown)
    return "\n".join(base64.b64decode(data).decode(errors="replace") for data in datas)


def _show(client: Client, workflow_id: str, *codec: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(temporal_cli()),
            "workflow",
            "show",
            "--address",
            client.service_client.config.target_host,
            "--workflow-id",
            workflow_id,
            "--output",
            "json",
            *codec,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_temporal_workflow_show_decodes_through_the_codec_endpoint(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    await _encrypted_run(client, task_queue, workflow_id)
    async with inbox_with_codec(client, InboxSettings(token=TOKEN)) as base:
        endpoint = f"{base}/{{namespace}}"
        shown = await asyncio.to_thread(
            _show,
            client,
            workflow_id,
            "--codec-endpoint",
            endpoint,
            "--codec-auth",
            f"Bearer {TOKEN}",
        )
        assert shown.returncode == 0, shown.stderr
        assert GOAL in _payload_texts(shown.stdout)
        raw = await asyncio.to_thread(_show, client, workflow_id)
        assert raw.returncode == 0 and GOAL not in _payload_texts(raw.stdout)
        assert "YmluYXJ5L2VuY3J5cHRlZA==" in raw.stdout or "binary/encrypted" in raw.stdout
        tokenless = await asyncio.to_thread(
            _show, client, workflow_id, "--codec-endpoint", endpoint
        )
        assert GOAL not in _payload_texts(tokenless.stdout) + tokenless.stderr


def test_the_local_stack_gives_the_ui_the_codec_endpoint_when_encryption_is_on() -> None:
    keys = setting_value(RING.keys)
    assert ui_codec_args({"AGENTS_ENCRYPTION_KEYS": keys, "AGENTS_INBOX_PORT": "8400"}) == [
        "--ui-codec-endpoint",
        "http://127.0.0.1:8400",
    ]
    assert ui_codec_args({}) == []
    assert ui_origins("http://127.0.0.1:8233/namespaces/default") == {
        "http://127.0.0.1:8233",
        "http://localhost:8233",
    }


async def test_the_dev_servers_ui_is_given_the_codec_endpoint() -> None:
    """What ``agents up`` adds to ``temporal server start-dev`` reaches the UI's settings."""
    args = ui_codec_args({"AGENTS_ENCRYPTION_KEYS": setting_value(RING.keys)})
    port, ui_port = free_port(), free_port()
    command = [str(temporal_cli()), "server", "start-dev", "--ip", "127.0.0.1", "--port"]
    server = subprocess.Popen(
        [*command, str(port), "--ui-ip", "127.0.0.1", "--ui-port", str(ui_port), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with httpx.AsyncClient() as http, asyncio.timeout(120):
            while True:
                try:
                    answer = await http.get(f"http://127.0.0.1:{ui_port}/api/v1/settings")
                    if answer.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.5)
        assert answer.json()["Codec"]["Endpoint"] == "http://127.0.0.1:8300"
    finally:
        server.terminate()
        server.wait(30)
