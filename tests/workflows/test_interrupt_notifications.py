"""Notifications of waiting questions: real receivers on 127.0.0.1, real Temporal.

Dev server: a dispatched agent's question and a supervisor's event notify every channel once,
across a worker restart; a refusing receiver becomes a WARNING in ``status`` and the inbox; no
secret reaches a history or a log. Time-skipping server: retries with backoff, a receiver that
never answers, reminders at fractions of the deadline.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
from collections import Counter
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings, SmtpTarget
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.binaries import temporal_test_server
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS, build_worker
from agent_interrupts.models.interrupt_events import INTERRUPT_REQUEST_EVENT_SIGNAL
from agent_interrupts.models.interrupt_flow import InterruptState
from agent_interrupts.models.interrupts import ResolvedBy
from agent_interrupts.models.notifications import reminder_delay
from agent_interrupts.models.policies import NOTICE_PRIORITY, NOTIFY_RETRY, REMINDER_SPREAD
from agent_interrupts.models.state import EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import (
    answer_all,
    interrupt_status,
    question_input,
    start,
    wait_for_interrupt,
    wait_running,
)
from tests.support.receivers import HttpReceiver, SmtpReceiver, until

WEBHOOK_SECRET = "whsec-DISTINCTIVE-7f3a9c"
SLACK_TOKEN = "slacktoken-DISTINCTIVE-51b2e8"
SMTP_PASSWORD = "smtppass-DISTINCTIVE-0c4d1a"
SECRETS = (WEBHOOK_SECRET, SLACK_TOKEN, SMTP_PASSWORD)
MINUTE = timedelta(minutes=1)
DRAIN = timedelta(seconds=10)
"""A stopping worker's drain, as ``worker.py``'s (AGENTS_WORKER_DRAIN_SECONDS)."""


def _settings(http: HttpReceiver, smtp: SmtpReceiver | None = None, **kw: Any) -> NotifySettings:
    return NotifySettings(
        webhook_url=f"{http.url}/hook",
        webhook_secret=WEBHOOK_SECRET,
        slack_url=f"{http.url}/services/T000/B000/{SLACK_TOKEN}",
        smtp=SmtpTarget.parse(smtp.url()) if smtp else None,
        email_to=("oncall@example.test",) if smtp else (),
        **kw,
    )


def _verified(received: Any) -> dict[str, Any]:
    """The payload, after checking its signature the way the receiver in docs/operators.md does."""
    expected = hmac.new(WEBHOOK_SECRET.encode(), received.body, hashlib.sha256).hexdigest()
    assert received.headers["X-Interrupt-Signature"] == f"sha256={expected}"
    payload = received.json()
    assert received.headers["X-Interrupt-Delivery"] == payload["deliveryId"]
    return payload


async def _histories(client: Client, *workflow_ids: str) -> str:
    texts = []
    for workflow_id in workflow_ids:
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        texts.append(history.to_json())
    return "\n".join(texts)


async def test_a_dispatched_agents_question_notifies_every_channel_once_across_a_restart(
    client: Client, task_queue: str, workflow_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.TICKET_AGENT})))
    slow_reply = HttpReceiver(reply_delay=1.0)  # the worker stops while the replies are on the way
    with slow_reply.running() as http, SmtpReceiver(password=SMTP_PASSWORD).running() as smtp:
        notify = _settings(http, smtp)
        async with build_worker(
            client, task_queue, LlmSettings(), offline=offline, notify=notify, drain=DRAIN
        ):
            # both ticket agents ask: one question for both
            handle = await start(client, task_queue, workflow_id, question_gather_seconds=10)
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            await until(lambda: len(http.delivered()) == 2 and len(smtp.messages) == 1)
        # the stopping worker let the deliveries finish; a new worker replays the waiting
        # interrupt: nothing is sent again
        async with build_worker(client, task_queue, LlmSettings(), offline=offline, notify=notify):
            question = await interrupt_status(client, pending.workflow_id)
            await client.get_workflow_handle(pending.workflow_id).execute_update(
                InterruptWorkflow.resolve_validated, answer_all(question.request)
            )
            await asyncio.wait_for(handle.result(), 60)
            await until(lambda: len(http.delivered()) == 4 and len(smtp.messages) == 2)
            ids = (workflow_id, pending.workflow_id, f"{pending.workflow_id}-notify-resolved")
            histories = await _histories(client, *ids)
            replayer = Replayer(
                workflows=WORKFLOWS,
                workflow_runner=WORKFLOW_RUNNER,
                data_converter=pydantic_data_converter,
            )
            for replayed in ids:
                history = await client.get_workflow_handle(replayed).fetch_history()
                assert (await replayer.replay_workflow(history)).replay_failure is None
            done = await interrupt_status(client, pending.workflow_id)

    interrupt_id = pending.workflow_id
    webhook = [_verified(r) for r in http.delivered("/hook")]
    assert [p["kind"] for p in webhook] == ["question", "resolved"]
    asked, answered = webhook
    assert asked["deliveryId"] == f"{interrupt_id}/question"
    assert asked["interruptId"] == interrupt_id and asked["orchestratorId"] == workflow_id
    assert asked["origin"] == "TICKET_DISPATCH", "the dispatch node raises its agent's question"
    assert asked["question"]["choices"] == [c.to_wire() for c in question.request.choices]
    assert asked["question"]["choices"][0]["recommended"]
    assert asked["deadline"] and asked["schemaVersion"] == 1
    assert (
        asked["links"]["ui"] == f"http://127.0.0.1:8233/namespaces/default/workflows/{interrupt_id}"
    )
    assert asked["commands"]["resolve"].startswith(f"agents resolve {interrupt_id} --choice ")
    assert "--name resolve_validated" in asked["commands"]["temporalUpdate"]
    assert answered["resolution"]["resolvedBy"] == "HUMAN" and answered["commands"] is None

    slack = [r.json() for r in http.delivered() if r.path.startswith("/services/")]
    assert [s["blocks"][0]["type"] for s in slack] == ["header", "header"]
    assert "TICKET_DISPATCH asks" in slack[0]["text"]
    buttons = [b for b in slack[0]["blocks"] if b["type"] == "actions"]
    assert buttons[0]["elements"][0]["url"] == asked["links"]["ui"]

    mail = smtp.messages[0]
    assert mail["X-Interrupt-Delivery"] == f"{interrupt_id}/question"
    assert [p.get_content_type() for p in mail.walk()][1:] == ["text/plain", "text/html"]

    deliveries = Counter((r.path, r.headers["X-Interrupt-Delivery"]) for r in http.requests)
    assert set(deliveries.values()) == {1}, "one delivery per interrupt, kind and channel"
    delivered = [e.message for e in done.events if e.kind is EventKind.INFO]
    assert "question notice delivered by webhook" in delivered
    logs = "\n".join(r.getMessage() for r in caplog.records)
    for secret in SECRETS:
        assert secret not in histories and secret not in logs
        assert all(secret not in e.message for e in done.events)


async def test_a_supervisors_event_notifies_the_same_way(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(delays={AgentType.PLANNING_ORCHESTRATOR: 1.0}))
    with HttpReceiver().running() as http:
        notify = NotifySettings(webhook_url=f"{http.url}/hook")
        async with build_worker(client, task_queue, LlmSettings(), offline=offline, notify=notify):
            handle = await start(client, task_queue, workflow_id)
            await wait_running(handle, AgentType.PLANNING_ORCHESTRATOR)
            await handle.signal(
                INTERRUPT_REQUEST_EVENT_SIGNAL,
                {
                    "eventId": "event-notify-1",
                    "sourceAgentType": "PLANNING_ORCHESTRATOR",
                    "rerouteToAgentType": "DISCOVERY_ORCHESTRATOR",
                    "interruptType": "HUMAN_REVIEW",
                    "reason": "Need clarification on discovery scope",
                },
            )
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            await until(lambda: len(http.delivered()) == 1)
            await handle.cancel()
    payload = http.delivered()[0].json()
    assert "X-Interrupt-Signature" not in http.delivered()[0].headers, "no secret, no signature"
    assert payload["kind"] == "question" and payload["interruptId"] == pending.workflow_id
    assert payload["origin"] == "PLANNING_ORCHESTRATOR"
    assert payload["rerouteTo"] == "DISCOVERY_ORCHESTRATOR"


async def test_a_refusing_receiver_is_a_warning_in_status_and_the_inbox(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A 404 is not retried: the WARNING appears at once, and the question still waits."""
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT})))
    with HttpReceiver(statuses=[404]).running() as http:
        notify = NotifySettings(webhook_url=f"{http.url}/hook")
        async with build_worker(client, task_queue, LlmSettings(), offline=offline, notify=notify):
            agents = AgentWorkflowClient(client, task_queue)
            handle = await agents.start("add caching", workflow_id=workflow_id)
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            interrupt_id = pending.workflow_id
            async with asyncio.timeout(30):
                while not (rows := [r for r in await agents.waiting() if r.warning]):
                    await asyncio.sleep(0.2)
            status = await agents.interrupt_status(interrupt_id)
            assert await agents.is_interrupt(interrupt_id)
            await handle.cancel()
    assert rows[0].interrupt_id == interrupt_id
    assert "question notice not delivered by webhook" in rows[0].warning
    assert f"{http.url}/hook answered 404" in rows[0].warning
    assert "INTERRUPT_WEBHOOK_URL" in rows[0].warning
    assert status.state is InterruptState.WAITING
    assert len(http.requests) == 1, "a refusal is not retried"


@pytest.fixture
async def skipping() -> AsyncIterator[WorkflowEnvironment]:
    """A time-skipping server of its own: another test's leftover retries would hold its clock."""
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=temporal_test_server(),
        data_converter=pydantic_data_converter,
    ) as env:
        yield env


async def _start_question(
    env: WorkflowEnvironment, task_queue: str, workflow_id: str, timeout_seconds: int = 24 * 3600
) -> WorkflowHandle[InterruptWorkflow, Any]:
    return await env.client.start_workflow(
        InterruptWorkflow.run,
        question_input(timeout_seconds),
        id=workflow_id,
        task_queue=task_queue,
    )


async def test_a_receiver_failing_twice_then_succeeding_gets_one_delivery(
    skipping: WorkflowEnvironment, task_queue: str, workflow_id: str
) -> None:
    with HttpReceiver(statuses=[503, 503]).running() as http:
        notify = NotifySettings(webhook_url=f"{http.url}/hook")
        async with build_worker(skipping.client, task_queue, LlmSettings(), notify=notify):
            handle = await _start_question(skipping, task_queue, workflow_id)
            while not http.delivered():
                await skipping.sleep(timedelta(seconds=5))  # the retry backoffs pass
            async with asyncio.timeout(30):
                while not _infos((status := await handle.query(InterruptWorkflow.status)).events):
                    await asyncio.sleep(0.05)
            await handle.cancel()
    assert http.answered == [503, 503, 200]
    assert {r.headers["X-Interrupt-Delivery"] for r in http.requests} == {f"{workflow_id}/question"}
    assert status.state is InterruptState.WAITING
    assert not [e for e in status.events if e.kind is EventKind.WARNING]


def _infos(events: Any) -> list[str]:
    return [e.message for e in events if e.kind is EventKind.INFO]


async def test_a_receiver_that_never_answers_leaves_a_warning_and_the_question_waits(
    skipping: WorkflowEnvironment, task_queue: str, workflow_id: str
) -> None:
    with HttpReceiver(hang=True).running() as http:
        notify = NotifySettings(
            webhook_url=f"{http.url}/hook", request_timeout=timedelta(seconds=0.2)
        )
        async with build_worker(skipping.client, task_queue, LlmSettings(), notify=notify):
            handle = await _start_question(skipping, task_queue, workflow_id)
            async with asyncio.timeout(60):
                while not (warnings := _warnings(await handle.query(InterruptWorkflow.status))):
                    await skipping.sleep(timedelta(seconds=20))
            waiting = await handle.query(InterruptWorkflow.status)
            await handle.execute_update(
                InterruptWorkflow.resolve_validated, answer_all(waiting.request)
            )
            outcome = await asyncio.wait_for(handle.result(), 30)
    assert waiting.state is InterruptState.WAITING, "the question still waits"
    assert "question notice not delivered by webhook, retries exhausted" in warnings[0]
    assert outcome.resolution.resolved_by is ResolvedBy.HUMAN
    asked = [r for r in http.requests if r.headers["X-Interrupt-Delivery"].endswith("/question")]
    assert 1 < len(asked) <= NOTIFY_RETRY.maximum_attempts, "retried a bounded number of times"


def _warnings(status: Any) -> list[str]:
    return [e.message for e in status.events if e.kind is EventKind.WARNING]


async def test_reminders_at_fractions_of_the_deadline_then_escalation_and_outcome(
    skipping: WorkflowEnvironment, task_queue: str, workflow_id: str
) -> None:
    with HttpReceiver().running() as http:
        notify = NotifySettings(webhook_url=f"{http.url}/hook", reminders=(0.5, 0.9))
        async with build_worker(skipping.client, task_queue, LlmSettings(), notify=notify):
            handle = await _start_question(skipping, task_queue, workflow_id, 3600)
            outcome = await asyncio.wait_for(handle.result(), 60)  # skips to the deadline
            await until(lambda: len(http.delivered()) == 5)
    payloads = [r.json() for r in http.delivered()]
    assert [p["deliveryId"].rsplit("/", 1)[1] for p in payloads] == [
        "question",
        "reminder-1",
        "reminder-2",
        "escalated",
        "resolved",
    ]
    question, first, second, escalated, resolved = payloads
    assert [first["reminder"]["fraction"], second["reminder"]["fraction"]] == [0.5, 0.9]
    assert first["deadline"] == question["deadline"] == second["deadline"]
    asked_at = datetime.fromisoformat(question["at"])
    half, most = timedelta(minutes=30), timedelta(minutes=54)
    later = reminder_delay(workflow_id, half, half), reminder_delay(workflow_id, most, 6 * MINUTE)
    assert timedelta(0) < later[0] <= half * REMINDER_SPREAD, "spread by the question's id"
    assert later[1] <= 6 * MINUTE * REMINDER_SPREAD, "a reminder stays before the deadline"
    assert datetime.fromisoformat(first["at"]) - asked_at == pytest.approx(
        half + later[0], abs=timedelta(seconds=2)
    )
    assert datetime.fromisoformat(second["at"]) - asked_at == pytest.approx(
        most + later[1], abs=timedelta(seconds=2)
    )
    assert escalated["commands"] is not None, "a person may still answer while the reviewer works"
    assert resolved["resolution"]["resolvedBy"] == "TIMEOUT_ESCALATION"
    assert outcome.timed_out


async def test_a_declared_teams_question_notifies_with_its_agents(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A declared team's dispatched agent asks: the notice names the team's dispatcher as the
    asker and carries the agent's own choices."""
    from tests.workflows.test_declared_team import TINY_TEAM

    offline = OfflineModel(OfflineScenario.parse("interrupt=SURVEYOR#1", ["SURVEYOR"]))
    teams = {TINY_TEAM.name: TINY_TEAM}
    with HttpReceiver().running() as http:
        notify = NotifySettings(webhook_url=f"{http.url}/hook")
        async with build_worker(
            client, task_queue, LlmSettings(), offline=offline, notify=notify, teams=teams
        ):
            handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name)
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            await until(lambda: len(http.delivered()) == 1)
            await handle.cancel()
    payload = http.delivered()[0].json()
    assert payload["interruptId"] == pending.workflow_id and payload["origin"] == "SURVEY"
    assert "surveyor-1/site-access" in http.delivered()[0].body.decode()  # its own field


async def test_a_notice_is_delivered_behind_the_agent_steps_of_working_runs(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A burst of notices never queues in front of an agent step: each delivery is scheduled at
    the lowest task-queue priority (an agent step has the default)."""
    with HttpReceiver().running() as http:
        notify = NotifySettings(webhook_url=f"{http.url}/hook")
        offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
        async with build_worker(client, task_queue, LlmSettings(), offline=offline, notify=notify):
            handle = await start(client, task_queue, workflow_id)
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            await until(lambda: len(http.delivered()) == 1)
            question = client.get_workflow_handle(pending.workflow_id)
            await handle.terminate("test over")
    scheduled = [
        e.activity_task_scheduled_event_attributes
        async for e in question.fetch_history_events()
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    notices = [a for a in scheduled if a.activity_type.name == "notify"]
    assert notices and all(a.priority.priority_key == NOTICE_PRIORITY for a in notices)
    steps = [
        e.activity_task_scheduled_event_attributes
        async for e in handle.fetch_history_events()
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    agent_steps = [a for a in steps if a.activity_type.name == "run_agent"]
    assert agent_steps and all(a.priority.priority_key == 0 for a in agent_steps), "the default"
