"""The workflows' sandbox is entered to run workflow code only (app/sandbox_runner.py): an
orchestrator run enters it about once per workflow task, not once per payload sequence, and
every payload gets the serialization context the SDK's own runner gives it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from datetime import timedelta

import temporalio.converter
from temporalio import activity, workflow
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.api.enums.v1 import EventType
from temporalio.api.failure.v1 import Failure
from temporalio.client import Client
from temporalio.converter import PayloadCodec, SerializationContext, WithSerializationContext
from temporalio.worker import Worker
from temporalio.worker._workflow_instance import WorkflowInstanceDetails
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox import _runner as sdk_runner

with workflow.unsafe.imports_passed_through():  # the sandbox imports this module for Contexts
    from agent_interrupts.activities.llm import LlmSettings
    from agent_interrupts.app.sandbox_runner import COMPILED_ONCE, SUPPORTED, compiled
    from agent_interrupts.app.worker_setup import SANDBOXED_MODULES, WORKFLOW_RUNNER, build_worker
    from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
    from tests.support.interrupts import start


async def test_an_orchestrator_run_enters_the_sandbox_about_once_per_workflow_task(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    assert SUPPORTED  # this SDK's sandbox instance has what the runner overrides
    async with build_worker(client, task_queue, LlmSettings()):
        before = compiled.cache_info()
        handle = await start(client, task_queue, workflow_id)
        assert (await asyncio.wait_for(handle.result(), 120)).summary
        after = compiled.cache_info()
    entries = after.hits + after.misses - before.hits - before.misses
    events = [e async for e in handle.fetch_history_events()]
    tasks = sum(e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED for e in events)
    # the SDK's runner: about 12 a task (each payload sequence's contexts, each activation)
    assert 0 < entries <= 2 * tasks + 2, (entries, tasks)


@activity.defn
async def echo(text: str) -> str:
    return text


@workflow.defn(sandboxed=True)
class Contexts:
    @workflow.run
    async def run(self, text: str) -> str:
        first = await workflow.execute_activity(
            echo, text, start_to_close_timeout=timedelta(seconds=30), summary="one"
        )
        return await workflow.execute_activity(
            echo, first + "!", start_to_close_timeout=timedelta(seconds=30), summary="two"
        )


@dataclasses.dataclass
class ContextRecorder(PayloadCodec, WithSerializationContext):
    """A codec that changes nothing and notes the context of each payload it encodes."""

    seen: list[str]
    context: SerializationContext | None = None

    def with_context(self, context: SerializationContext) -> ContextRecorder:
        return ContextRecorder(self.seen, context)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        self.seen += [f"{self.context!r} {p.data!r}" for p in payloads]
        return list(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)


async def test_each_payload_gets_the_context_the_sdks_runner_gives_it(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    seen: dict[str, list[str]] = {}
    sdk_runner = SandboxedWorkflowRunner(restrictions=WORKFLOW_RUNNER.restrictions)
    for name, runner in (("ours", WORKFLOW_RUNNER), ("sdk", sdk_runner)):
        recorder = ContextRecorder([])
        config = client.config()
        config["data_converter"] = dataclasses.replace(
            config["data_converter"], payload_codec=recorder
        )
        recording = Client(**config)
        queue = f"{task_queue}-{name}"
        async with Worker(
            recording,
            task_queue=queue,
            workflows=[Contexts],
            activities=[echo],
            workflow_runner=runner,
        ):
            result = await recording.execute_workflow(
                Contexts.run, "hi", id=f"{workflow_id}-{name}", task_queue=queue
            )
        assert result == "hi!"
        seen[name] = sorted(s.replace(queue, "QUEUE").replace(name, "NAME") for s in recorder.seen)
    assert seen["ours"] == seen["sdk"]
    assert any("ActivitySerializationContext" in s for s in seen["ours"])


def instance_details(cls: type) -> WorkflowInstanceDetails:
    """What a worker gives the runner for a run of ``cls`` (with the SDK's stand-in info)."""
    return WorkflowInstanceDetails(
        payload_converter_factory=temporalio.converter.DataConverter.default._new_payload_converter,
        failure_converter_class=temporalio.converter.DataConverter.default.failure_converter_class,
        interceptor_classes=[],
        defn=workflow._Definition.from_class(cls),
        info=sdk_runner._fake_info,
        randomness_seed=-1,
        extern_functions={},
        disable_eager_activity_execution=False,
        worker_level_failure_exception_types=[],
        patch_activation_callback=None,
        last_completion_result=Payloads(),
        last_failure=Failure(),
    )


async def test_each_run_executes_its_workflow_module_afresh_from_code_compiled_once() -> None:
    """The sandbox imports the workflow's module again for every run (no module state crosses
    runs); its source is compiled once per process, not once per run."""
    details = instance_details(OrchestratorWorkflow)
    classes = [
        WORKFLOW_RUNNER.create_instance(details).globals_and_locals[  # type: ignore[attr-defined]
            "__temporal_workflow_class"
        ]
        for _ in range(2)
    ]
    first, second = classes
    assert first is not second and first is not OrchestratorWorkflow  # executed afresh
    assert first._run_node.__code__ is second._run_node.__code__  # from one code object
    assert set(SANDBOXED_MODULES) <= COMPILED_ONCE.modules
    assert COMPILED_ONCE.find_spec("json", None) is None  # every other module: as before
