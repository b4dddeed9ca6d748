"""An email reply -> the run's next agent step scheduled, against the same answer through the
SDK (the CLI's and the inbox's path).

Run it with ``python -m bench.email_reply [--runs N] [--gap SECONDS]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (in
memory, with the project's search attributes), with the worker of ``app.worker_setup.build_worker``
(the offline model, scripted to ask at ORCHESTRATOR; email notices with signed reply tokens to a
local aiosmtpd receiver) and the email door (``app.mail_door``, an SMTP server on this event
loop, as ``agents inbox`` runs it):

1. **Email**: once the question's email notice has arrived, a real ``smtplib`` client replies
   ``A`` to it (keeping its subject, which carries the reply token) from the addressee. From the
   moment the client connects (wall clock) to the orchestrator's first ``ActivityTaskScheduled``
   event after its ``ChildWorkflowExecutionCompleted`` (the next agent step; server event time,
   the same machine's clock). The door's own reply ("taken") is checked.
2. **SDK**: the same answer (``reply_resolution("A", ...)``) through
   ``AgentWorkflowClient.resolve`` (the validated update), from its call to the same event.

``--runs`` of each (default 20), alternating, each after a pause of ``--gap`` seconds (default
2, ``bench.harness.DEFAULT_GAP``), after one warm-up of each. Medians are reported, and
email / SDK. Aim: email <= 1 s.
"""

from __future__ import annotations

import asyncio
import smtplib
import statistics
import sys
import time
from datetime import timedelta
from email.message import EmailMessage, Message

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.answer_links import LinkSigner
from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings, SmtpTarget
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.config import MailDoorSettings
from agent_interrupts.app.mail_door import MailDoor, start_mail_door
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.door_answers import reply_resolution
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows import visibility
from bench.harness import bench_parser, fresh_id, load_average, versions, versus_aim
from bench.history_times import (
    ACTIVITY_SCHEDULED,
    child_completed_event,
    event_time,
    fetch_history,
    first_event,
)
from tests.cli.support import free_port
from tests.support.interrupts import GOAL, wait_for_interrupt
from tests.support.receivers import SmtpReceiver, until

DEFAULT_RUNS = 20
AIM_SECONDS = 1.0
SECRET = "bench-signing-secret-0123456789abcdef"
ALICE = "alice@example.test"
DOOR = "answers@example.test"
WAIT = 120


async def once(
    agents: AgentWorkflowClient, smtp: SmtpReceiver, door_port: int, *, email: bool
) -> float:
    """Seconds from the answer's start to the next agent step scheduled."""
    handle = await agents.start(GOAL, workflow_id=fresh_id("bench-email"))
    pending = (await wait_for_interrupt(handle, WAIT)).pending_interrupt
    assert pending is not None
    question = pending.workflow_id
    notice = await _notice(smtp, question)
    if email:
        reply = EmailMessage()
        reply["From"], reply["To"] = ALICE, str(notice["Reply-To"])
        reply["Subject"] = f"Re: {notice['Subject']}"
        reply.set_content("A\n\n> the question\n")
        taken = len(_door_replies(smtp))
        start = time.time()
        await asyncio.to_thread(_send, door_port, reply)
        await until(lambda: len(_door_replies(smtp)) > taken, WAIT)
        said = str(_door_replies(smtp)[-1].get_payload())
        if "was taken" not in said:
            raise RuntimeError(f"the email door did not take the reply: {said}")
    else:
        status = await agents.interrupt_status(question)
        answer = reply_resolution("A", status.request)  # the answer the email gives
        assert isinstance(answer, InterruptResolution)
        start = time.time()
        await agents.resolve(question, answer, answered_by=ALICE)
    await asyncio.wait_for(handle.result(), WAIT)
    events = await fetch_history(handle)
    completed = child_completed_event(events, question)
    scheduled = first_event(events, ACTIVITY_SCHEDULED, after=completed.event_id)
    return event_time(scheduled).timestamp() - start


async def _notice(smtp: SmtpReceiver, question: str) -> Message:
    delivery = f"{question}/question"
    await until(lambda: any(m["X-Interrupt-Delivery"] == delivery for m in smtp.messages), WAIT)
    return next(m for m in smtp.messages if m["X-Interrupt-Delivery"] == delivery)


def _door_replies(smtp: SmtpReceiver) -> list[Message]:
    return [m for m in smtp.messages if m["Auto-Submitted"] == "auto-replied"]


def _send(port: int, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=WAIT) as client:
        client.send_message(message)


async def measure(client: Client, runs: int, gap: float) -> list[str]:
    task_queue = fresh_id("bench-email-tq")
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    loads = [load_average()]
    with SmtpReceiver().running() as smtp:
        notify = NotifySettings(
            smtp=SmtpTarget.parse(smtp.url()),
            email_to=(ALICE,),
            signer=LinkSigner(SECRET, "http://127.0.0.1:8300", timedelta(hours=1)),
            reply_to=DOOR,
        )
        mail = MailDoorSettings("127.0.0.1", free_port(), SECRET, smtp.url(), DOOR)
        door = await start_mail_door(MailDoor(agents, mail), mail)
        try:
            async with build_worker(
                client, task_queue, LlmSettings(), offline=offline, notify=notify
            ):
                for email in (True, False):  # warm-ups
                    await once(agents, smtp, mail.port, email=email)
                by_email: list[float] = []
                by_sdk: list[float] = []
                for _ in range(runs):
                    for email, into in ((True, by_email), (False, by_sdk)):
                        await asyncio.sleep(gap)
                        into.append(await once(agents, smtp, mail.port, email=email))
                loads.append(load_average())
        finally:
            door.close()
            await door.wait_closed()
    email_median, sdk_median = statistics.median(by_email), statistics.median(by_sdk)
    return [
        "email reply -> the run's next agent step scheduled",
        versions(),
        f"email (median of {runs}): {versus_aim(email_median, AIM_SECONDS, unit=' s')} "
        f"(min {min(by_email):.3f}, max {max(by_email):.3f})",
        f"SDK resolve (median of {runs}): {sdk_median:.3f} s "
        f"(min {min(by_sdk):.3f}, max {max(by_sdk):.3f})",
        f"email / SDK: {email_median / sdk_median:.2f}x",
        f"load average before / after: {loads[0]} / {loads[-1]}",
    ]


async def _main(runs: int, gap: float) -> list[str]:
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=visibility.dev_server_args(),
    ) as env:
        return await measure(env.client, runs, gap)


def main(argv: list[str] | None = None) -> None:
    parser = bench_parser(
        "python -m bench.email_reply",
        "An email reply -> the run's next agent step scheduled, against the SDK's resolve.",
        ("--runs", DEFAULT_RUNS, "measured answers of each kind"),
        gap=True,
    )
    args = parser.parse_args(argv)
    for line in asyncio.run(_main(args.runs, args.gap)):
        print(line)
    sys.stdout.flush()
    exit_now(0)


if __name__ == "__main__":
    main()
