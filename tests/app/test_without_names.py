"""``agents export --without-names``: no person's name in any exported record (the name fields
null, each name in a text replaced), ids kept, so the lineage still closes (``--check``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings, messages_sha256
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.export import Format, Kind
from agent_interrupts.app.lineage_records import check_file
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.without_names import PERSON, NameScrubber, recorded_names
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.teams.software.agents import AgentType
from tests.support.cli import client_py
from tests.support.interrupts import GOAL, wait_for_interrupt

NAME = "Ada Lovelace"
MESSAGES = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": f"{NAME} (HUMAN) answered; ask ada lovelace, not adalovelace"},
]
EXAMPLE = {
    "record": "example",
    "exampleId": messages_sha256(MESSAGES)[:24],
    "messagesSha256": messages_sha256(MESSAGES[:1]),
    "workflowId": "wf-ada-lovelace",
    "answeredBy": NAME,
    "producedContextIds": ["wf-r1/ORCHESTRATOR/001/ada lovelace"],
    "output": {"answeredBy": NAME, "freeText": f"{NAME} says no", "door": "cli"},
    "messages": MESSAGES,
}


def test_a_name_field_is_nulled_and_each_name_in_a_text_replaced_ids_kept() -> None:
    scrubber = NameScrubber()
    scrubber.learn(recorded_names(EXAMPLE))
    assert scrubber.names == {NAME}
    out = scrubber.record(EXAMPLE)
    assert out["answeredBy"] is None and out["output"]["answeredBy"] is None
    assert out["output"]["freeText"] == f"{PERSON} says no"
    assert out["messages"][1]["content"] == (
        f"{PERSON} (HUMAN) answered; ask {PERSON}, not adalovelace"
    ), "whole words in any case"
    assert out["workflowId"] == EXAMPLE["workflowId"], "ids are the lineage"
    assert out["producedContextIds"] == EXAMPLE["producedContextIds"]
    assert out["messagesSha256"] is None, "it proved messages with a name"
    assert out["exampleId"] == messages_sha256(out["messages"])[:24] != EXAMPLE["exampleId"]
    context = {"record": "context", "exampleId": EXAMPLE["exampleId"], "answeredBy": None}
    assert scrubber.record(context)["exampleId"] == out["exampleId"], "a record naming it follows"
    openai = {"messages": MESSAGES, "metadata": {"exampleId": EXAMPLE["exampleId"]}}
    assert scrubber.record(openai)["metadata"]["exampleId"] == out["exampleId"]
    assert NAME.lower() not in json.dumps([out["output"], out["messages"]]).lower()


def test_a_record_without_names_is_written_as_it_was() -> None:
    scrubber = NameScrubber()
    scrubber.learn(["grace"])
    plain = {**EXAMPLE, "answeredBy": None, "output": {}, "messages": MESSAGES[:1]}
    assert scrubber.record(plain) == plain
    assert NameScrubber().record(plain) == plain


async def test_an_export_without_names_holds_none_and_its_lineage_closes(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    run = f"without-names-{tmp_path.name}"
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await agents.start(GOAL, workflow_id=run)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        answer = InterruptResolution(
            selected_choices={"approach": "B"},
            confirmations={"add-tests": True},
            free_text=f"{NAME} thinks the smaller change is safer",
        )
        await agents.resolve(pending.workflow_id, answer, answered_by=NAME)
        assert (await asyncio.wait_for(handle.result(), 60)).summary

    named, native = tmp_path / "named.jsonl", tmp_path / "native.jsonl"
    await agents.export(named, fmt=Format.NATIVE, ids=[run])
    assert NAME in named.read_text(), "the name is recorded (else this test proves nothing)"
    await agents.export(native, fmt=Format.NATIVE, ids=[run], without_names=True)
    text = native.read_text()
    assert NAME.lower() not in text.lower() and PERSON in text
    records = [json.loads(line) for line in text.splitlines()]
    answers = [r for r in records if r.get("kind") in (Kind.RESOLUTION, Kind.TRANSLATION)]
    assert answers and all(r["resolvedBy"] == "HUMAN" for r in answers)
    assert all(r["answeredBy"] is None for r in answers)
    assert check_file(native).lines()[0].startswith("lineage closed"), check_file(native).lines()
    assert check_file(named).lines()[0].split(":")[0] == "lineage closed"
    assert len(records) == len(named.read_text().splitlines()), "the same records"

    openai = tmp_path / "openai.jsonl"
    cli = await client_py(
        client, "export", run, "--out", str(openai), "--metadata", "--without-names"
    )
    assert cli.returncode == 0, cli.stderr
    lines = [json.loads(line) for line in openai.read_text().splitlines()]
    assert lines and NAME.lower() not in openai.read_text().lower()
    assert {line["metadata"]["answeredBy"] for line in lines} == {None}
