"""Concurrent questions are independent in time (FR-094): an agent that asks
while another question of its fan-out waits is asked at once, each question (and each agent's
part of a combined one) is answered on its own and re-runs only its agents, at once, and no
finished agent runs again."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from typing import Any

from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import RESOLVED_MARKER, OfflineModel, OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.ids import dispatched_agent_key
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.state import EntryKind, EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.fan_out import early_continue_as_new_server, handed_over_together, only_part
from tests.support.interrupts import answer_all, full_status, interrupt_status, start

GOAL = "add rate limiting to the gateway"


def _agent(call: dict[str, Any]) -> str:
    """The ticket agent a model call was made for (its key), or "" for any other call."""
    if call["response_format"]["json_schema"]["name"] != "TicketAgentRouting":
        return ""
    return dispatched_agent_key(call["messages"][1]["content"].split("Node: ", 1)[1].split("\n")[0])


def _ticket_runs(received: list[dict[str, Any]]) -> Counter[str]:
    """How many times each ticket agent was called, by its key."""
    return Counter(key for call in received if (key := _agent(call)))


def _answered(received: list[dict[str, Any]], key: str) -> bool:
    """Whether agent ``key`` has run again with its answer."""
    return any(
        _agent(c) == key and RESOLVED_MARKER in c["messages"][0]["content"] for c in received
    )


async def _open_questions(handle: WorkflowHandle[Any, Any]) -> list[str]:
    children = (await handle.describe()).raw_description.pending_children
    return [c.workflow_id for c in children if c.workflow_type_name == "InterruptWorkflow"]


RE_RUN_WAIT = 90.0
"""Seconds an answered agent's re-run may take to reach the model: a bound for a loaded machine
(the whole suite beside a real model on two cores), not a measure."""


async def _questions(
    client: Client,
    handle: WorkflowHandle[Any, Any],
    count: int,
    timeout: float = 60,
    answered: str = "",
) -> dict[str, InterruptRequestBase]:
    """The run's ``count`` open questions by id, once that many are open (and ``answered`` is
    not)."""
    async with asyncio.timeout(timeout):
        while len(ids := await _open_questions(handle)) < count or answered in ids:
            await asyncio.sleep(0.05)
        return {i: await _started_question(client, i) for i in ids}


async def _started_question(client: Client, question_id: str) -> InterruptRequestBase:
    """The question of ``question_id``, once its start (listed as the run's child as soon as
    it is initiated) has reached the server."""
    while True:
        try:
            return (await interrupt_status(client, question_id)).request
        except RPCError as err:
            if err.status is not RPCStatusCode.NOT_FOUND:
                raise
            await asyncio.sleep(0.05)


def _asking(question: InterruptRequestBase) -> list[str]:
    return [q.agent_key for q in question.agent_questions]  # type: ignore[attr-defined]


async def test_a_later_question_is_asked_at_once_and_answered_before_the_first(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse(
        "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3;delay=TICKET_AGENT#3:3"
    )
    offline = OfflineModel(scenario)
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await agents.start(GOAL, workflow_id=workflow_id)
        (first_id, first), *_ = (await _questions(client, handle, 1)).items()
        assert _asking(first) == ["ticket-agent-1"]
        questions = await _questions(client, handle, 2)  # while the first still waits
        second_id = next(i for i in questions if i != first_id)
        second = questions[second_id]
        assert _asking(second) == ["ticket-agent-3"]
        started = time.monotonic()
        async with asyncio.timeout(10):  # listed where people look, within seconds
            while not await agents.is_listed_waiting(second_id):
                await asyncio.sleep(0.1)
        listed = time.monotonic() - started
        # the later one answered first: its agent runs again at once, the first still waits
        await client.get_workflow_handle(second_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(second, option="B")
        )
        async with asyncio.timeout(RE_RUN_WAIT):
            while not _answered(offline.received, "ticket-agent-3"):
                await asyncio.sleep(0.05)
        assert await _open_questions(handle) == [first_id], "the first question still waits"
        assert not _answered(offline.received, "ticket-agent-1")
        status = await handle.query(OrchestratorWorkflow.status)
        assert status.pending_interrupt is not None
        assert status.pending_interrupt.workflow_id == first_id
        await client.get_workflow_handle(first_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(first, option="A")
        )
        await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)
    assert listed < 5
    assert _ticket_runs(offline.received) == {
        "ticket-agent-1": 2,
        "ticket-agent-2": 1,
        "ticket-agent-3": 2,
    }, "each agent that asked runs once more, the finished one never"
    dispatches = [
        e
        for e in status.history
        if e.kind is EntryKind.REQUEST and e.agent_type is AgentType.TICKET_DISPATCH
    ]
    assert len(dispatches) == 1, "the node never ran again: its agents did, within it"
    assert [e.kind for e in status.history].count(EntryKind.RESOLUTION) == 2


async def test_each_part_of_a_combined_question_is_answered_on_its_own(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3")
    offline = OfflineModel(scenario)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        # agents asking within 10 s of each other share one question
        handle = await start(client, task_queue, workflow_id, question_gather_seconds=10)
        ((combined_id, combined),) = (await _questions(client, handle, 1)).items()
        assert _asking(combined) == ["ticket-agent-1", "ticket-agent-3"]
        assert (await interrupt_status(client, combined_id)).answers_in_parts
        whole = answer_all(combined, option="B")
        question = client.get_workflow_handle(combined_id)
        half = only_part(whole, "ticket-agent-1")
        half.selected_choices.pop("ticket-agent-1/approach")
        try:  # a part is answered whole or not at all
            await question.execute_update(InterruptWorkflow.resolve_validated, half)
            raise AssertionError("half of an agent's part was accepted")
        except WorkflowUpdateFailedError as err:
            assert "ticket-agent-1/approach" in str(err.cause)
        ack = await question.execute_update(
            InterruptWorkflow.resolve_validated, only_part(whole, "ticket-agent-1")
        )
        assert "ticket-agent-3 are asked again at once" in ack.message
        ((rest_id, rest),) = (await _questions(client, handle, 1, answered=combined_id)).items()
        assert rest_id != combined_id and _asking(rest) == ["ticket-agent-3"]
        assert {c.choice_id for c in rest.choices} == {"ticket-agent-3/approach"}
        async with asyncio.timeout(RE_RUN_WAIT):
            while not _answered(offline.received, "ticket-agent-1"):
                await asyncio.sleep(0.05)
        await client.get_workflow_handle(rest_id).execute_update(
            InterruptWorkflow.resolve_validated,
            only_part(answer_all(rest, option="A"), "ticket-agent-3"),
        )
        await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)
    assert _ticket_runs(offline.received) == {
        "ticket-agent-1": 2,
        "ticket-agent-2": 1,
        "ticket-agent-3": 2,
    }
    resumed = {
        _agent(c): c["messages"][0]["content"]
        for c in offline.received
        if _agent(c) and RESOLVED_MARKER in c["messages"][0]["content"]
    }
    assert "-> B (" in resumed["ticket-agent-1"] and "-> A (" not in resumed["ticket-agent-1"]
    assert "-> A (" in resumed["ticket-agent-3"] and "-> B (" not in resumed["ticket-agent-3"]
    assert any(
        e.kind is EventKind.INFO and "leaves ticket-agent-3 for later" in e.message
        for e in status.events
    )


async def test_an_answer_that_sends_the_run_elsewhere_closes_the_other_questions(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse(
        "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3;delay=TICKET_AGENT#3:2"
    )
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await AgentWorkflowClient(client, task_queue).start(GOAL, workflow_id=workflow_id)
        questions = await _questions(client, handle, 2)
        first_id, second_id = sorted(questions)
        answer = answer_all(questions[first_id]).model_copy(
            update={"continue_at": AgentType.TICKET_COLLECTOR}
        )
        await client.get_workflow_handle(first_id).execute_update(
            InterruptWorkflow.resolve_validated, answer
        )
        async with asyncio.timeout(RE_RUN_WAIT):
            while await _open_questions(handle):
                await asyncio.sleep(0.05)
        await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)
    closed = [e.message for e in status.events if "sends the run to TICKET_COLLECTOR" in e.message]
    assert closed and second_id in closed[0]
    described = await client.get_workflow_handle(second_id).describe()
    assert described.status is not None and described.status.name == "CANCELED"


async def test_questions_open_when_the_history_grows_long_are_asked_again_together() -> None:
    async with await early_continue_as_new_server() as env:
        client, task_queue = env.client, f"tq-{uuid.uuid4()}"
        # the third agent asks 2 s after the first, while the first's question waits
        scenario = OfflineScenario.parse(
            "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3;delay=TICKET_AGENT#3:2"
        )
        offline = OfflineModel(scenario)
        async with build_worker(client, task_queue, LlmSettings(), offline=offline):
            handle = await start(client, task_queue, f"wf-{uuid.uuid4()}")
            await handed_over_together(handle)  # and asked again by a next run
            questions = await _questions(client, handle, 2)
            assert sorted(questions) == [f"{handle.id}-interrupt-1", f"{handle.id}-interrupt-2"]
            for question_id, question in sorted(questions.items()):
                await client.get_workflow_handle(question_id).execute_update(
                    InterruptWorkflow.resolve_validated, answer_all(question)
                )
            await asyncio.wait_for(handle.result(), 90)
    assert _ticket_runs(offline.received) == {
        "ticket-agent-1": 2,
        "ticket-agent-2": 1,
        "ticket-agent-3": 2,
    }, "handed over and asked again, each asking agent runs once more, no other"
