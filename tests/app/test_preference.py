"""``agents export --format preference``: a parent and two forks of its question, through a real
dev server and worker, give one DPO line per fork in OpenAI's documented shape; the preferred
answer is the branch that reached the final result, then the one with fewer questions and agent
calls; the lineage closes across the forks (``--check``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.export import Example, Format, Kind
from agent_interrupts.app.lineage_records import check_file, check_files
from agent_interrupts.app.preference import Branch, preferred
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import AgentReviewDecision
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.teams.software.agents import AgentType
from tests.support.cli import client_py
from tests.support.interrupts import answer_offered, start, wait_for_interrupt

ASKER = AgentType.PLANNING_COLLECTOR
OTHER_ROUTE = AgentType.ORCHESTRATOR_COLLECTOR

EXAMPLE = Example(
    kind=Kind.RESOLUTION,
    agent_type="PLANNING_COLLECTOR",
    schema_name="AgentReviewDecision",
    prompt=[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    answer="{}",
    input={},
    output={},
    workflow_id="wf",
    run_id="r",
    first_run_id="r",
    node_id="n",
    consumed=[],
    produced=[],
    call=None,
)


def _branch(status: str, questions: int, steps: int) -> Branch:
    return Branch("wf", EXAMPLE, status, steps, questions)


@pytest.mark.parametrize(
    ("parent", "fork", "wins", "rule"),
    [
        (("COMPLETED", 0, 9), ("FAILED", 0, 1), "parent", "finalResult"),
        (("TERMINATED", 0, 1), ("COMPLETED", 3, 20), "fork", "finalResult"),
        (("COMPLETED", 2, 3), ("COMPLETED", 1, 30), "fork", "fewerQuestions"),
        (("COMPLETED", 1, 3), ("COMPLETED", 1, 4), "parent", "fewerSteps"),
        (("COMPLETED", 1, 3), ("COMPLETED", 1, 3), None, None),
        (("FAILED", 0, 1), ("FAILED", 0, 9), None, None),
    ],
)
def test_which_answer_is_preferred(
    parent: tuple[str, int, int], fork: tuple[str, int, int], wins: str | None, rule: str | None
) -> None:
    sides = {"parent": _branch(*parent), "fork": _branch(*fork)}
    decided = preferred(sides["parent"], sides["fork"])
    if wins is None:
        assert decided is None
        return
    assert decided is not None
    best, other, how = decided
    assert best is sides[wins] and other is sides["fork" if wins == "parent" else "parent"]
    assert how == rule


def assert_dpo_shape(line: dict[str, Any]) -> None:
    """OpenAI's preference fine-tuning line: ``input.messages`` (the prompt), and exactly one
    assistant message each in ``preferred_output`` and ``non_preferred_output``."""
    assert set(line) <= {"input", "preferred_output", "non_preferred_output", "metadata"}
    assert {"input", "preferred_output", "non_preferred_output"} <= set(line)
    messages = line["input"]["messages"]
    assert set(line["input"]) == {"messages"} and messages
    assert all(set(m) == {"role", "content"} and isinstance(m["content"], str) for m in messages)
    assert [m["role"] for m in messages][-1] == "user"
    assert {m["role"] for m in messages} <= {"system", "user"}
    for side in ("preferred_output", "non_preferred_output"):
        (message,) = line[side]
        assert set(message) == {"role", "content"} and message["role"] == "assistant"
        answer = json.loads(message["content"])
        ways_out = {k: answer.pop(k) for k in ("continueAt", "stopRun") if k in answer}
        AgentReviewDecision.model_validate(answer)
        assert all(isinstance(v, str) and v for v in ways_out.values())
    assert line["preferred_output"] != line["non_preferred_output"]


async def test_a_parent_and_two_forks_export_as_preference_pairs_whose_lineage_closes(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None and pending.origin_agent_type == ASKER
        question = pending.workflow_id
        offered = answer_offered((await agents.interrupt_status(question)).request)
        await agents.resolve(question, offered, answered_by="ada")
        await asyncio.wait_for(handle.result(), 60)

        shorter = await agents.fork(
            workflow_id,
            at=question,
            resolution=offered.model_copy(update={"continue_at": OTHER_ROUTE}),
            forked_by="grace",
        )
        stopped = await agents.fork(
            workflow_id,
            at=question,
            resolution=InterruptResolution(stop_run="not this way"),
            forked_by="linus",
        )
        await asyncio.wait_for(client.get_workflow_handle(shorter.workflow_id).result(), 60)
        with pytest.raises(WorkflowFailureError):
            await asyncio.wait_for(client.get_workflow_handle(stopped.workflow_id).result(), 60)

    out = tmp_path / "preference.jsonl"
    summary = await agents.export(out, fmt=Format.PREFERENCE, ids=[workflow_id], metadata=True)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.written == {"preference": 2}, summary.lines()
    for line in lines:
        assert_dpo_shape(line)
    by_fork = {line["metadata"]["fork"]["workflowId"]: line for line in lines}
    assert list(by_fork) == [shorter.workflow_id, stopped.workflow_id], "oldest fork first"

    to_other = by_fork[shorter.workflow_id]["metadata"]
    assert to_other["preferred"] == "fork" and to_other["decidedBy"] == "fewerSteps"
    assert to_other["interruptId"] == question and to_other["workflowId"] == workflow_id
    parent_side, fork_side = to_other["parent"], to_other["fork"]
    assert parent_side["reachedFinalResult"] and fork_side["reachedFinalResult"]
    assert fork_side["stepsAfter"] < parent_side["stepsAfter"]
    assert parent_side["questionsAfter"] == fork_side["questionsAfter"] == 0
    assert (parent_side["answeredBy"], parent_side["resolvedBy"]) == ("ada", "HUMAN")
    assert (fork_side["answeredBy"], fork_side["forkedBy"]) == ("grace", "grace")
    chosen = by_fork[shorter.workflow_id]["preferred_output"][0]["content"]
    assert json.loads(chosen) != json.loads(
        by_fork[shorter.workflow_id]["non_preferred_output"][0]["content"]
    )
    assert by_fork[shorter.workflow_id]["input"] == by_fork[stopped.workflow_id]["input"], (
        "one decision, one prompt"
    )

    to_stop = by_fork[stopped.workflow_id]["metadata"]
    assert to_stop["preferred"] == "parent" and to_stop["decidedBy"] == "finalResult"
    assert not to_stop["fork"]["reachedFinalResult"] and to_stop["fork"]["status"] == "FAILED"
    assert to_stop["fork"]["forkedBy"] == "linus"
    assert (
        by_fork[stopped.workflow_id]["preferred_output"][0]["content"]
        == (by_fork[shorter.workflow_id]["non_preferred_output"][0]["content"])
    ), "the parent's answer, the same on both lines"

    same = tmp_path / "from-a-fork.jsonl"
    await agents.export(same, fmt=Format.PREFERENCE, ids=[shorter.workflow_id], metadata=True)
    assert [json.loads(x) for x in same.read_text().splitlines()] == [
        by_fork[shorter.workflow_id]
    ], "a fork selected alone gives its pair too"

    native, fork_only = tmp_path / "native.jsonl", tmp_path / "fork-only.jsonl"
    runs = [workflow_id, shorter.workflow_id, stopped.workflow_id]
    await agents.export(native, fmt=Format.NATIVE, ids=runs)
    await agents.export(fork_only, fmt=Format.NATIVE, ids=[shorter.workflow_id])
    assert check_file(native).unresolved == {}, check_file(native).lines()
    assert check_file(fork_only).unresolved == {}, (
        "a fork's chain is closed from its parent's: " + "\n".join(check_file(fork_only).lines())
    )
    report = check_files([out, native])
    assert report.unresolved == {} and report.ids > 0, report.lines()
    assert check_file(out).unresolved, "the preference file names the parent's context ids"
    cli = await client_py(client, "export", "--check", str(out), str(native))
    assert cli.returncode == 0 and cli.stdout.startswith("lineage closed"), cli.stdout + cli.stderr

    private = tmp_path / "private.jsonl"
    cli = await client_py(
        client, "export", workflow_id, "--format", "preference", "--metadata",
        "--without-names", "--out", str(private),
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    text = private.read_text()
    assert len(text.splitlines()) == 2
    assert not any(name in text for name in ('"ada"', '"grace"', '"linus"')), text
    for line in map(json.loads, text.splitlines()):
        assert_dpo_shape(line)
        assert line["metadata"]["fork"]["forkedBy"] is None
