"""The benches' second baseline: a bare workflow of an agent run's shape whose activities make
that run's model calls again.

A no-op activity (``bench.harness.noop``) measures Temporal's floor; an agent step also makes a
model call (the openai SDK building and sending the request, the offline model answering, the
reply validated). ``BareModelCalls`` runs, round after round, ``model_call`` activities that make
the recorded calls of a warm-up run (``OfflineModel.received``) through the same ``StructuredLlm``
an agent step uses. Against it, a ratio shows what the orchestration adds to the calls: the
workflow's state and decisions, the agent call and reply payloads, prompt rendering and
heartbeats.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
    from agent_interrupts.activities.offline_model import OfflineModel
    from agent_interrupts.app.config import OFFLINE_MAX_ACTIVITIES
    from agent_interrupts.app.worker_setup import openai_client
    from agent_interrupts.models.graph import NODES_BY_OUTPUT

MODEL_CALL = "model_call"
CALL_TIMEOUT = timedelta(seconds=60)


@workflow.defn
class BareModelCalls:
    """Per round, the ``model_call`` activities of that round's recorded calls, in parallel."""

    @workflow.run
    async def run(self, rounds: list[list[int]]) -> int:
        for indices in rounds:
            await asyncio.gather(
                *(
                    workflow.execute_activity(MODEL_CALL, i, start_to_close_timeout=CALL_TIMEOUT)
                    for i in indices
                )
            )
        return sum(map(len, rounds))


class RecordedModelCalls:
    """The recorded request bodies of an offline run, made again as agent steps make them."""

    def __init__(self, bodies: Sequence[dict[str, Any]]) -> None:
        settings = LlmSettings()
        self._llm = StructuredLlm(
            openai_client(settings, OfflineModel(keep_requests=False)), settings
        )
        self._calls = [
            (NODES_BY_OUTPUT[body["response_format"]["json_schema"]["name"]], body["messages"])
            for body in bodies
        ]

    def __len__(self) -> int:
        return len(self._calls)

    @activity.defn(name=MODEL_CALL)
    async def model_call(self, index: int) -> int:
        """Make recorded call ``index``: same messages, output model and validation."""
        node, messages = self._calls[index]
        await self._llm.complete(
            agent=str(node.agent_type),
            messages=messages,
            output_model=node.output_model,
            template_version="bench",
        )
        return index


def same_calls_worker(client: Client, task_queue: str, calls: RecordedModelCalls) -> Worker:
    """A worker for ``BareModelCalls`` on ``task_queue``, with the agents' activity slots."""
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[BareModelCalls],
        activities=[calls.model_call],
        max_concurrent_activities=OFFLINE_MAX_ACTIVITIES,
    )


def call_rounds(widths: Sequence[int]) -> list[list[int]]:
    """The recorded calls' indices, round by round: ``[1, 2, 1]`` -> ``[[0], [1, 2], [3]]``."""
    starts = [0, *itertools.accumulate(widths)]
    return [list(range(a, b)) for a, b in itertools.pairwise(starts)]
