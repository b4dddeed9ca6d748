"""The benches' second baseline: a bare workflow of an agent run's shape whose activities make
that run's model calls again, carrying the same payload bytes in and out as its agent steps.

A no-op activity (``bench.harness.noop``) measures Temporal's floor; an agent step also makes a
model call (the openai SDK building and sending the request, the offline model answering, the
reply validated) and carries its call in (an ``AgentCall``: goal, request, context) and its reply
out. ``BareModelCalls`` runs, round after round, ``model_call`` activities that make the recorded
calls of a warm-up run (``OfflineModel.received``) through the same ``StructuredLlm`` an agent
step uses, each with an input payload of the same bytes as the warm-up's ``run_agent`` input at
that place and a result of the same bytes as its result (``step_bytes``: padded JSON, so the
server stores, sends and the worker decodes as many bytes). Against it, a ratio shows what the
orchestration adds to the calls and their payloads: the workflow's state and decisions, the
typed models' conversion, prompt rendering and heartbeats. Its worker (``baseline_worker``) has
the agents' worker's options and workflow runner, so the ratio does not count the workers'
differences.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from temporalio import activity, workflow
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from temporalio.contrib.pydantic import pydantic_data_converter

    from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
    from agent_interrupts.activities.offline_model import OfflineModel
    from agent_interrupts.app.config import (
        OFFLINE_MAX_ACTIVITIES,
        WORKER_CACHED_WORKFLOWS,
        WORKER_STICKY_SECONDS,
        WORKER_WORKFLOW_TASKS,
    )
    from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, openai_client
    from agent_interrupts.models.graph import NODES_BY_OUTPUT
    from bench.history_times import (
        ACTIVITY_COMPLETED,
        ACTIVITY_SCHEDULED,
        AGENT_ACTIVITY,
        activity_event,
    )

MODEL_CALL = "model_call"
CALL_TIMEOUT = timedelta(seconds=60)
PAD = "x"
"""One byte of JSON per character: a padded payload has exactly the bytes it should."""


@dataclass(frozen=True)
class StepBytes:
    """One activity's payload bytes (the JSON data of its input and of its result)."""

    sent: int
    returned: int


def step_bytes(
    events: Sequence[HistoryEvent], activity_type: str = AGENT_ACTIVITY
) -> list[StepBytes]:
    """The input and result bytes of each ``activity_type`` activity of a history, in the order
    they were scheduled."""
    found = []
    for event in events:
        attrs = event.activity_task_scheduled_event_attributes
        if event.event_type != ACTIVITY_SCHEDULED or attrs.activity_type.name != activity_type:
            continue
        done = activity_event(events, ACTIVITY_COMPLETED, event)
        result = done.activity_task_completed_event_attributes.result.payloads
        found.append(
            StepBytes(
                sent=sum(len(p.data) for p in attrs.input.payloads),
                returned=sum(len(p.data) for p in result),
            )
        )
    return found


def json_bytes(value: object) -> int:
    """Bytes of ``value``'s payload data as the benches' data converter encodes it."""
    (payload,) = pydantic_data_converter.payload_converter.to_payloads([value])
    return len(payload.data)


def padding(size: int, empty: object) -> int:
    """Characters of ``PAD`` that make a payload whose data with no padding is ``empty`` exactly
    ``size`` bytes (0 when ``empty`` is already as large)."""
    return max(0, size - json_bytes(empty))


@workflow.defn
class BareModelCalls:
    """Per round, the ``model_call`` activities of that round's recorded calls, in parallel, each
    sent ``[index, padding]`` as ``{"index": index, "pad": "xx..."}``."""

    @workflow.run
    async def run(self, rounds: list[list[list[int]]]) -> int:
        for calls in rounds:
            await asyncio.gather(
                *(
                    workflow.execute_activity(
                        MODEL_CALL,
                        {"index": index, "pad": PAD * pad},
                        start_to_close_timeout=CALL_TIMEOUT,
                    )
                    for index, pad in calls
                )
            )
        return sum(map(len, rounds))


class RecordedModelCalls:
    """The recorded request bodies of an offline run, made again as agent steps make them, with
    the payload bytes of the run's steps (``sizes``, in the order of the calls; none: the
    smallest payloads)."""

    def __init__(self, bodies: Sequence[dict[str, Any]], sizes: Sequence[StepBytes] = ()) -> None:
        settings = LlmSettings()
        self._llm = StructuredLlm(
            openai_client(settings, OfflineModel(keep_requests=False)), settings
        )
        self._calls = [
            (NODES_BY_OUTPUT[body["response_format"]["json_schema"]["name"]], body["messages"])
            for body in bodies
        ]
        if sizes and len(sizes) != len(bodies):
            raise ValueError(f"{len(sizes)} payload sizes for {len(bodies)} calls")
        self.sizes = list(sizes) or [StepBytes(0, 0)] * len(bodies)
        self._sent = [padding(s.sent, {"index": i, "pad": ""}) for i, s in enumerate(self.sizes)]
        self._replies = [PAD * padding(s.returned, {"pad": ""}) for s in self.sizes]

    def __len__(self) -> int:
        return len(self._calls)

    def rounds(self, widths: Sequence[int]) -> list[list[list[int]]]:
        """``BareModelCalls``'s input: round by round, each call's index and padding."""
        return [[[i, self._sent[i]] for i in indices] for indices in call_rounds(widths)]

    @activity.defn(name=MODEL_CALL)
    async def model_call(self, call: dict[str, Any]) -> dict[str, str]:
        """Make recorded call ``call["index"]``: same messages, output model and validation;
        return as many bytes as its agent step returned."""
        index = call["index"]
        node, messages = self._calls[index]
        await self._llm.complete(
            agent=str(node.agent_type),
            messages=messages,
            output_model=node.output_model,
            template_version="bench",
        )
        return {"pad": self._replies[index]}


def baseline_worker(
    client: Client, task_queue: str, workflows: Sequence[type], activities: Sequence[Any]
) -> Worker:
    """A baseline's worker on ``task_queue`` with what ``app.worker_setup.build_worker`` gives a
    worker with the offline model: its workflow runner (the sandbox entered only to run workflow
    code, ``app.sandbox_runner``), its activity and workflow-task slots, its sticky wait and its
    cache. A ratio then compares the work, not the workers' options."""
    return Worker(
        client,
        task_queue=task_queue,
        workflows=workflows,
        activities=activities,
        workflow_runner=WORKFLOW_RUNNER,
        max_concurrent_activities=OFFLINE_MAX_ACTIVITIES,
        max_concurrent_workflow_tasks=WORKER_WORKFLOW_TASKS,
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=WORKER_STICKY_SECONDS),
        max_cached_workflows=WORKER_CACHED_WORKFLOWS,
    )


def same_calls_worker(client: Client, task_queue: str, calls: RecordedModelCalls) -> Worker:
    """A worker for ``BareModelCalls`` on ``task_queue``, with the agents' worker options."""
    return baseline_worker(client, task_queue, [BareModelCalls], [calls.model_call])


def call_rounds(widths: Sequence[int]) -> list[list[int]]:
    """The recorded calls' indices, round by round: ``[1, 2, 1]`` -> ``[[0], [1, 2], [3]]``."""
    starts = [0, *itertools.accumulate(widths)]
    return [list(range(a, b)) for a, b in itertools.pairwise(starts)]
