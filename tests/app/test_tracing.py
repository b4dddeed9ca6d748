"""Optional OpenTelemetry tracing: with ``AGENTS_TRACES`` set, the client that
``app.connect`` makes, and the worker built on it, trace a run as one trace."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.config import TemporalSettings
from agent_interrupts.app.connect import connect
from agent_interrupts.app.tracing import install_tracer_provider, traces_exporter
from agent_interrupts.app.worker_setup import build_worker
from tests.support.interrupts import start


def test_agents_traces_names_an_exporter_or_is_refused_naming_the_variable() -> None:
    assert traces_exporter({}) is None
    assert traces_exporter({"AGENTS_TRACES": " OTLP "}) == "otlp"
    assert traces_exporter({"AGENTS_TRACES": "console"}) == "console"
    with pytest.raises(ValueError, match=r"^AGENTS_TRACES='jaeger' names no exporter: use otlp"):
        traces_exporter({"AGENTS_TRACES": "jaeger"})


async def test_a_run_is_one_trace_from_its_start_to_its_agents(
    env: WorkflowEnvironment, task_queue: str, workflow_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans = InMemorySpanExporter()
    install_tracer_provider(spans, batch=False)  # before connect: the first provider wins
    monkeypatch.setenv("AGENTS_TRACES", "console")
    address = env.client.service_client.config.target_host
    traced = await connect(TemporalSettings.from_env({}), address)
    async with build_worker(traced, task_queue, LlmSettings()):
        handle = await start(traced, task_queue, workflow_id)
        assert (await asyncio.wait_for(handle.result(), 120)).summary
    names = [s.name for s in spans.get_finished_spans()]
    for expected in (
        "StartWorkflow:OrchestratorWorkflow",
        "RunWorkflow:OrchestratorWorkflow",
        "StartActivity:run_agent",
        "RunActivity:run_agent",
    ):
        assert expected in names, f"{expected} not among {sorted(set(names))}"
    ours = [s for s in spans.get_finished_spans() if workflow_id in str(s.attributes)]
    assert ours, "spans name the run's workflow id"
    assert len({s.context.trace_id for s in ours}) == 1, "the run is one trace"
