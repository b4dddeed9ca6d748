"""Operators' view: with AGENTS_METRICS_ADDRESS the worker serves Prometheus
metrics: the SDK's worker metrics and ours (agent steps, LLM latency and tokens, questions)."""

from __future__ import annotations

import asyncio
import urllib.request
import uuid

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.metrics import metrics_address, metrics_runtime
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.teams.software.agents import AgentType
from tests.cli.support import free_port
from tests.support.interrupts import answer_all, interrupt_status, start, wait_for_interrupt


def test_the_address_is_host_and_port_or_a_one_line_error() -> None:
    assert metrics_address({}) is None
    assert metrics_address({"AGENTS_METRICS_ADDRESS": " 127.0.0.1:9464 "}) == "127.0.0.1:9464"
    for wrong in ("9464", "localhost:", "host:99999", "host:port"):
        with pytest.raises(ValueError, match=r"^AGENTS_METRICS_ADDRESS must be host:port"):
            metrics_address({"AGENTS_METRICS_ADDRESS": wrong})


def _scrape(address: str) -> str:
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as response:
        return str(response.read().decode())


async def test_a_run_shows_in_the_workers_metrics(env: WorkflowEnvironment) -> None:
    address = f"127.0.0.1:{free_port()}"
    client = await Client.connect(
        env.client.service_client.config.target_host,
        data_converter=pydantic_data_converter,
        runtime=metrics_runtime(address),
    )
    task_queue, workflow_id = f"tq-{uuid.uuid4()}", f"wf-{uuid.uuid4()}"
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        question = (await interrupt_status(client, pending.workflow_id)).request
        await AgentWorkflowClient(client).resolve(pending.workflow_id, answer_all(question))
        await handle.result()
        text = await asyncio.to_thread(_scrape, address)
    lines = [line for line in text.splitlines() if line.startswith("agents_")]
    steps = [line for line in lines if line.startswith("agents_agent_steps{")]
    assert any('agent_type="ORCHESTRATOR"' in s and 'outcome="routed"' in s for s in steps)
    assert any('agent_type="PLANNING_ORCHESTRATOR"' in s and 'outcome="asked"' in s for s in steps)
    asked = [line for line in lines if line.startswith("agents_questions_asked{")]
    answered = [line for line in lines if line.startswith("agents_questions_answered{")]
    assert any('origin="PLANNING_ORCHESTRATOR"' in line for line in asked)
    assert any('resolved_by="HUMAN"' in line for line in answered)
    assert any(line.startswith("agents_llm_latency_count{") for line in lines)
    assert any(line.startswith("agents_llm_tokens{") for line in lines)
    assert "temporal_workflow_completed" in text, "the SDK's own worker metrics are served too"
