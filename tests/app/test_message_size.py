"""The server's payload limit, as a worker reads it at start (real dev servers), and the size
our doors measure before sending, encrypted or not."""

from __future__ import annotations

import asyncio
import os

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.message_size import oversize_problem, server_limit_problem
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.limits import MAX_PAYLOAD_BYTES, SERVER_PAYLOAD_BYTES
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import answer_all, start, wait_for_interrupt


async def test_a_server_with_our_payload_limit_has_no_problem(client: Client) -> None:
    assert await server_limit_problem(client) is None


async def test_a_server_with_temporals_default_limit_is_named_with_the_fix() -> None:
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli()
    ) as default:
        problem = await server_limit_problem(default.client)
    assert problem is not None and "\n" not in problem
    assert problem.startswith("the server's payload limit is 2097152 bytes")
    assert f"limit.blobSize.error={SERVER_PAYLOAD_BYTES}" in problem


CUSTOM_CHARS = 4_000
"""The longest write-in an answer takes."""


def near_the_limit(under: int) -> InterruptResolution:
    """An answer whose JSON is ``under`` bytes under ``MAX_PAYLOAD_BYTES``."""

    def answer(filler: int) -> InterruptResolution:
        """Write-ins of ``filler`` bytes of text in all (two-byte characters, one less byte)."""
        full, rest = divmod(filler, 2 * CUSTOM_CHARS)
        inputs = {f"c{i}": "é" * CUSTOM_CHARS for i in range(full)}
        inputs["last"] = "é" * (rest // 2) + "a" * (rest % 2)
        return InterruptResolution(custom_inputs=inputs)

    target = MAX_PAYLOAD_BYTES - under
    filler = 0
    for _ in range(4):  # each write-in's key and quotes: settled once their number is
        filler += target - json_bytes(answer(filler))
    answer_there = answer(filler)
    assert json_bytes(answer_there) == MAX_PAYLOAD_BYTES - under
    return answer_there


def json_bytes(value: object) -> int:
    return len(pydantic_data_converter.payload_converter.to_payloads([value])[0].data)


def test_an_encrypting_client_counts_the_bytes_encryption_adds() -> None:
    """Sealed, a payload is about 100 bytes larger than its JSON: what the doors measure then."""
    codec = data_converter(KeyRing((("k1", os.urandom(32)),))).payload_codec
    answer = near_the_limit(under=40)
    assert oversize_problem("the answer", answer) is None
    assert oversize_problem("the answer", answer, data_converter(None).payload_codec) is None
    problem = oversize_problem("the answer", answer, codec)
    assert problem is not None and "\n" not in problem
    sealed = int(problem.split(" bytes ", 1)[0].rsplit(" ", 1)[1])
    assert MAX_PAYLOAD_BYTES < sealed < MAX_PAYLOAD_BYTES + 200, problem
    assert problem.startswith(f"the answer is {sealed} bytes encrypted (its JSON and the ")
    assert problem.endswith(
        f"over the workflow's {MAX_PAYLOAD_BYTES} byte limit; send less text (not sent)"
    )
    assert oversize_problem("the answer", near_the_limit(under=300), codec) is None


async def test_an_encrypted_answer_near_the_limit_is_refused_by_the_sdk_not_sent(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Through a real server and worker, all with a key: an answer whose JSON fits and whose
    sealed payload does not is refused before sending, in the door's line; the question waits on
    and takes an answer that fits."""
    config = client.config()
    config["data_converter"] = data_converter(KeyRing((("k1", os.urandom(32)),)))
    sealed = Client(**config)
    agents = AgentWorkflowClient(sealed, task_queue)
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(sealed, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(sealed, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        with pytest.raises(ResolutionRejected) as refused:
            await agents.resolve(pending.workflow_id, near_the_limit(under=40))
        question = (await agents.interrupt_status(pending.workflow_id)).request
        ack = await agents.resolve(pending.workflow_id, answer_all(question))
        await asyncio.wait_for(handle.result(), 60)
    assert "bytes encrypted" in str(refused.value) and str(refused.value).endswith("(not sent)")
    assert ack.accepted
