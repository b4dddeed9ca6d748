"""Every decision carries a person's name: answers from the CLI (``--as``), the SDK
(``answered_by``) and the inbox (a named token) against a real dev server each show that name in
``agents status``, the run's events, the export's ``answeredBy`` (beside ``resolvedBy`` HUMAN) and
``agents stats``; the inbox escapes a name and takes one from a trusted proxy's header only."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import build_payload
from agent_interrupts.activities.notify_channels import detail_lines, headline
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.export import Format, Kind
from agent_interrupts.app.inbox.web import create_app
from agent_interrupts.app.people import person_name
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.notifications import Notice, NoticeKind, Question
from agent_interrupts.teams.software.agents import AgentType
from tests.support.cli import client_py
from tests.support.inbox import TOKEN
from tests.support.interrupts import GOAL, question_input, wait_for_interrupt

BASE = "http://127.0.0.1:8300"
SAME_ORIGIN = {"Origin": BASE, "Sec-Fetch-Site": "same-origin"}
OTHER_TOKEN = "an0ther-t0ken-for-the-inbox-tests"
INBOX_NAME = "Margaret <b>H</b>"
"""A name is untrusted text: the page shows its characters, never markup."""
ANSWER = {"selectedChoices": {"approach": "A"}, "confirmations": {"add-tests": True}}
"""The SDK's answer; the CLI's and the inbox's differ (the export keeps one of identical ones)."""


async def test_each_door_signs_the_answer_with_a_persons_name(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    runs = {door: f"names-{door}-{tmp_path.name}" for door in ("cli", "sdk", "inbox")}
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handles = {door: await agents.start(GOAL, workflow_id=i) for door, i in runs.items()}
        asked = {}
        for door, handle in handles.items():
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            asked[door] = pending.workflow_id

        cli = await client_py(
            client,
            "resolve",
            asked["cli"],
            "--choice",
            "approach=B",
            "--confirm",
            "add-tests=yes",
            "--as",
            "Ada Lovelace",
        )
        assert cli.returncode == 0, cli.stderr

        with pytest.raises(ResolutionRejected, match="--as: a name is one line"):
            await agents.resolve(
                asked["sdk"], InterruptResolution.model_validate(ANSWER), answered_by="x" * 101
            )
        await agents.resolve(
            asked["sdk"], InterruptResolution.model_validate(ANSWER), answered_by="grace"
        )

        tokens = f"linus={TOKEN}, {INBOX_NAME}={OTHER_TOKEN}"
        settings = InboxSettings.from_env({"AGENTS_INBOX_TOKEN": tokens}, host="0.0.0.0")
        app = create_app(agents, settings, limit=100)
        bearer = {"Authorization": f"Bearer {OTHER_TOKEN}"}
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url=BASE, headers=bearer
        ) as http:
            page = (await http.get("/")).text
            csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
            sent = await http.post(
                "/answer",
                data={
                    "csrf": csrf,
                    "interrupt": asked["inbox"],
                    "choice.approach": "B",
                    "confirm.add-tests": "no",
                },
                headers={**SAME_ORIGIN, "X-Inbox-Fetch": "1"},
            )
        assert sent.status_code == 200, sent.text
        assert 'answered by <span class="who">Margaret &lt;b&gt;H&lt;/b&gt;</span>' in sent.text
        assert "Resolved by: Margaret &lt;b&gt;H&lt;/b&gt; (HUMAN)" in sent.text, "as listed"
        assert "<b>H</b>" not in sent.text

        for handle in handles.values():
            assert (await asyncio.wait_for(handle.result(), 60)).summary

        names = {"cli": "Ada Lovelace", "sdk": "grace", "inbox": INBOX_NAME}
        shown = await asyncio.gather(
            *(client_py(client, "status", asked[door]) for door in names),
            *(client_py(client, "status", runs[door]) for door in names),
        )
        for door, said, run in zip(names, shown[:3], shown[3:], strict=True):
            assert said.returncode == 0 and run.returncode == 0, said.stderr + run.stderr
            assert f"Resolved by: {names[door]} (HUMAN)" in said.stdout, said.stdout
            assert f"{asked[door]} by {names[door]} (HUMAN)" in run.stdout, run.stdout

    out = tmp_path / "native.jsonl"
    await agents.export(out, fmt=Format.NATIVE, kinds=[Kind.RESOLUTION], ids=list(runs.values()))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    exported = {
        r["workflowId"]: (r["resolvedBy"], r["answeredBy"])
        for r in records
        if r["record"] == "example"
    }
    assert exported == {runs[door]: ("HUMAN", names[door]) for door in names}

    lines = {line.name: line for line in (await agents.stats(list(runs.values()))).lines()}
    person = lines["answered by a person"]
    assert person.value == f"3 (Ada Lovelace 1, {INBOX_NAME} 1, grace 1)"
    assert person.figures == {"byName": {"Ada Lovelace": 1, "grace": 1, INBOX_NAME: 1}}


async def test_the_inbox_names_people_by_a_trusted_proxys_header_only(
    client: Client, task_queue: str
) -> None:
    """With ``AGENTS_INBOX_USER_HEADER`` the inbox takes the name from that header and refuses a
    request without it or with a name that is no name; without the setting the header is ignored
    and the inbox's own person answers."""
    agents = AgentWorkflowClient(client, task_queue)
    trusted = InboxSettings.from_env({"AGENTS_INBOX_USER_HEADER": "X-Forwarded-User"})
    assert trusted.user_header == "X-Forwarded-User" and trusted.person == person_name(env={})
    with pytest.raises(ValueError, match="AGENTS_INBOX_USER_HEADER 'X: Y' is not a header name"):
        InboxSettings.from_env({"AGENTS_INBOX_USER_HEADER": "X: Y"})
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(agents, trusted, limit=1)), base_url=BASE
    ) as http:
        missing = await http.get("/")
        assert missing.status_code == 401
        assert missing.text == (
            "refused: no X-Forwarded-User header (this inbox takes people's names from the "
            "proxy in front of it)\n"
        )
        bad = await http.get("/", headers={"X-Forwarded-User": "x" * 101})
        assert bad.status_code == 400 and "a name is one line of printable text" in bad.text


def test_a_notification_names_the_person_who_answered() -> None:
    job = question_input()
    notice = Notice(
        delivery_id="run-interrupt-1/resolved",
        kind=NoticeKind.RESOLVED,
        interrupt_id="run-interrupt-1",
        orchestrator_id="run",
        origin=job.origin,
        question=Question.of(job.request),
        on_timeout=job.on_timeout,
        resolution=InterruptResolution(selected_choices={"cache": "B"}, answered_by="grace"),
        at=datetime(2026, 2, 28, 12, tzinfo=UTC),
    )
    payload = build_payload(notice, "default", "http://ui.example:8233/")
    assert headline(payload).startswith("Answered (by grace (HUMAN)): REVIEW_AGENT asked: ")
    assert "Answered by grace (HUMAN): cache=B" in detail_lines(payload)
    resolution = payload.to_wire()["resolution"]
    assert isinstance(resolution, dict) and resolution["answeredBy"] == "grace"
