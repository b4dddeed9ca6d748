"""``client.py export`` and ``stats`` on real runs against a recording OpenAI-compatible server.

Every exported system/user message is, byte for byte, what the server received for that call;
what is recorded per call, the formats, the rates, and the CONTROLLER_MODEL's answers recorded
as such. Nothing is mocked: the real openai SDK talks HTTP to
``ScriptedOpenAIServer``, the workflows run on the session's Temporal dev server.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio import activity, workflow
from temporalio.client import Client, WorkflowFailureError
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from agent_interrupts.activities.llm import LlmSettings, messages_sha256
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.activities.output_schema import reply_json, reply_object
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.tools.results import ToolResultStore
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.binaries import temporal_test_server
from agent_interrupts.app.export import (
    OTHER_VERSION,
    Format,
    Kind,
    export,
    in_train,
    project,
    split_paths,
)
from agent_interrupts.app.history import RecordedRun, read_run
from agent_interrupts.app.lineage_records import check_file, check_lineage
from agent_interrupts.app.stats import Tally, measure
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.graph import NODES_BY_OUTPUT
from agent_interrupts.models.ids import parse_context_id
from agent_interrupts.models.interrupt_flow import AgentReviewDecision
from agent_interrupts.models.interrupts import InterruptResolution, ResolvedBy
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import InterruptRouting
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.cli import client_py
from tests.support.code_repo import TEST_COMMAND, make_code_repo
from tests.support.interrupts import answer_all, interrupt_status, start, wait_for_interrupt
from tests.support.openai_server import ReceivedRequest, ScriptedOpenAIServer, usage_for

AGENT_MODEL = "agent-model"
CONTROLLER_MODEL = "ft:controller-model"
SCENARIO = OfflineScenario(
    interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}),
    agent_review_at=frozenset({AgentType.MERGER_AGENT}),
)


def _settings(server: ScriptedOpenAIServer) -> LlmSettings:
    """Agents on AGENT_MODEL, the reviewer on CONTROLLER_MODEL, both at the recording server."""
    return LlmSettings(
        api_key="sk-test-export",
        base_url=server.base_url,
        model=AGENT_MODEL,
        controller_model=CONTROLLER_MODEL,
    )


@dataclass
class Runs:
    client: Client
    server: ScriptedOpenAIServer
    task_queue: str
    asked: str
    """A run with a person's answer (PLANNING_ORCHESTRATOR) and the controller's (MERGER_AGENT)."""
    plain: str
    """A run without questions."""


@pytest.fixture(scope="module")
async def runs(env: WorkflowEnvironment) -> AsyncIterator[Runs]:
    """Two finished runs whose every LLM call went to a recording server."""
    client = env.client
    task_queue = f"tq-{uuid.uuid4()}"
    asked, plain = f"wf-{uuid.uuid4()}", f"wf-{uuid.uuid4()}"
    with ScriptedOpenAIServer(scenario=SCENARIO) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, asked)
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            question = (await interrupt_status(client, pending.workflow_id)).request
            await client.get_workflow_handle(pending.workflow_id).signal(
                "resolve",
                InterruptResolution(
                    selected_choices={c.choice_id: "CUSTOM" for c in question.choices},
                    custom_inputs={c.choice_id: "reuse the merge queue" for c in question.choices},
                    confirmations={c.confirmation_id: True for c in question.confirmation_items},
                    free_text="keep it small",
                ).to_wire(),
            )
            await handle.result()
            # The second run asks nothing: only the first carries the scenario's questions.
            server._model.scenario = OfflineScenario()
            await (await start(client, task_queue, plain)).result()
        yield Runs(client, server, task_queue, asked, plain)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _prompt_key(messages: list[dict[str, Any]]) -> tuple[tuple[str, bytes], ...]:
    return tuple((m["role"], str(m["content"]).encode("utf-8")) for m in messages)


def _sent(server: ScriptedOpenAIServer) -> dict[tuple[tuple[str, bytes], ...], int]:
    """Each received request's messages, decoded from the raw bytes, -> its index."""
    return {
        _prompt_key(json.loads(request.raw)["messages"]): index
        for index, request in enumerate(server.received)
    }


def _output_model(name: str) -> type[BaseModel]:
    node = NODES_BY_OUTPUT.get(name)
    if node is not None:
        return node.output_model
    return {"InterruptRouting": InterruptRouting, "AgentReviewDecision": AgentReviewDecision}[name]


async def test_every_exported_message_is_what_the_server_received(
    runs: Runs, tmp_path: Path
) -> None:
    out = tmp_path / "data.jsonl"
    await export(runs.client, out, ids=[runs.asked, runs.plain], metadata=True)
    examples = _lines(out)
    sent = _sent(runs.server)
    contents = runs.server.contents
    from_calls = [e for e in examples if e["metadata"]["model"] is not None]
    # One example per distinct call: both runs' first ORCHESTRATOR calls are the same example.
    assert {_prompt_key(e["messages"][:-1]) for e in from_calls} == set(sent)
    assert len(from_calls) == len(sent) == len(runs.server.received) - 1
    for example in from_calls:
        *prompt, assistant = example["messages"]
        assert [m["role"] for m in prompt][:2] == ["system", "user"]
        assert assistant["role"] == "assistant"
        index = sent.get(_prompt_key(prompt))
        assert index is not None, f"{example['metadata']['nodeId']}: not what the server got"
        received: ReceivedRequest = runs.server.received[index]
        assert received.schema_name == example["metadata"]["schemaName"]
        if example["metadata"]["kind"] == Kind.RESOLUTION:
            continue  # its answer is the answer that was used, in the reviewer's output shape
        model = _output_model(received.schema_name)
        schema = received.body["response_format"]["json_schema"]["schema"]
        written = reply_json(contents[index], schema)
        given = model.model_validate_json(written).model_dump(mode="json", by_alias=True)
        shaped = reply_object(given, model, schema)  # the reply's shape: its route's variant
        assert json.loads(assistant["content"]) == project(shaped, schema, schema)
    kinds = {e["metadata"]["kind"] for e in examples}
    assert kinds == {k.value for k in Kind}


async def test_each_call_records_model_attempts_usage_latency_schema_and_fingerprint(
    runs: Runs,
) -> None:
    chains = [await read_run(runs.client, w) for w in (runs.asked, runs.plain)]
    received = {messages_sha256(r.messages): (i, r) for i, r in enumerate(runs.server.received)}
    records = [c.reply.call for run in chains for c in run.calls]
    records += [
        x.call for run in chains for it in run.interrupts for x in (it.translated, it.reviewed) if x
    ]
    assert len(records) == len(runs.server.received)
    for call in records:
        assert call is not None
        index, request = received[call.messages_sha256]
        usage = usage_for(request, runs.server.contents[index])
        assert (call.model, call.attempts, call.schema_version) == (request.body["model"], 1, "1.0")
        assert call.schema_name == request.schema_name
        assert (call.prompt_tokens, call.completion_tokens) == (
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )
        assert call.latency_ms >= 0
        assert call.template_version == PromptRenderer().template_version
        assert call.controller is (request.body["model"] == CONTROLLER_MODEL)


async def test_the_controller_model_answers_agent_reviews_and_is_recorded_as_such(
    runs: Runs, tmp_path: Path
) -> None:
    reviews = [r for r in runs.server.received if r.schema_name == "AgentReviewDecision"]
    assert [r.body["model"] for r in reviews] == [CONTROLLER_MODEL]
    out = tmp_path / "native.jsonl"
    await export(runs.client, out, fmt=Format.NATIVE, kinds=[Kind.RESOLUTION], ids=[runs.asked])
    answers = {
        (r["agentType"], r["resolvedBy"], r["model"], r["controllerModel"])
        for r in _lines(out)
        if r["record"] == "example"
    }
    assert answers == {
        ("PLANNING_ORCHESTRATOR", "HUMAN", None, False),
        ("MERGER_AGENT", "AGENT_REVIEW", CONTROLLER_MODEL, True),
    }
    lines = {line.name: line for line in (await measure(runs.client, [runs.asked])).lines()}
    assert lines["answered by a model"].value == "1 (CONTROLLER_MODEL 1)"
    assert lines["answered by a person"].value == "1"


async def test_native_lineage_closes_in_the_file(runs: Runs, tmp_path: Path) -> None:
    """SC-008: every context id a record names is defined in the same file;
    ``check_lineage`` fails on the file with one record removed."""
    out = tmp_path / "native.jsonl"
    await export(runs.client, out, fmt=Format.NATIVE, ids=[runs.asked, runs.plain])
    report = check_file(out)
    assert report.unresolved == {} and report.ids > 40
    records = _lines(out)
    kinds = {r["kind"] for r in records if r["record"] == "context"}
    assert kinds == {"request", "curated", "result"}, "the plain run's duplicate first step"
    curated = next(r for r in records if r["record"] == "context" and r["kind"] == "curated")
    lines = out.read_text(encoding="utf-8").splitlines()
    broken = [line for line in lines if json.loads(line) != curated]
    unresolved = check_lineage(broken).unresolved
    assert list(unresolved) == [curated["contextId"]]
    assert all(
        where.startswith(curated["workflowId"]) for where in unresolved[curated["contextId"]]
    )
    chains = {r["firstRunId"]: r for r in records if r["record"] == "run"}
    examples = [r for r in records if r["record"] == "example"]
    produced = {i for r in examples for i in r["producedContextIds"]}
    assert {r["workflowId"] for r in chains.values()} == {runs.asked, runs.plain}
    for record in examples:
        assert (
            record["firstRunId"] in chains
            and record["runId"] in chains[record["firstRunId"]]["runIds"]
        )
        for context_id in record["consumedContextIds"]:
            assert context_id in produced or parse_context_id(context_id)[0] == record["firstRunId"]
        if record["interruptId"]:
            assert record["interruptId"].startswith(record["workflowId"] + "-interrupt-")
    question = next(r for r in examples if r["kind"] == "interrupt")
    assert question["output"]["interruptRequest"]["reason"]
    assert question["schemaName"] == "PlanningOrchestratorRouting"


async def test_export_is_deterministic_deduplicated_and_split_by_run(
    runs: Runs, tmp_path: Path
) -> None:
    first, again = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    once = await export(runs.client, first, ids=[runs.asked, runs.plain])
    twice = await export(
        runs.client,
        again,
        ids=[runs.plain, runs.asked, runs.asked],
        query=f"TaskQueue = '{runs.task_queue}'",
    )
    assert first.read_bytes() == again.read_bytes()
    assert once.runs == twice.runs == 2
    assert once.duplicates == twice.duplicates == 1, "both runs' first call is the same example"
    split = await export(
        runs.client, tmp_path / "s.jsonl", ids=[runs.asked, runs.plain], split=0.5, metadata=True
    )
    train, valid = split_paths(tmp_path / "s.jsonl")
    for path, wanted in ((train, True), (valid, False)):
        for line in _lines(path):
            run = await read_run(runs.client, line["metadata"]["workflowId"])
            assert in_train(run.first_run_id, 0.5) is wanted
    assert sum(split.written.values()) == sum(once.written.values())
    assert len(_lines(train)) + len(_lines(valid)) == sum(once.written.values())


async def test_stats_show_the_spec_rates_beside_their_targets(runs: Runs) -> None:
    lines = {
        line.name: line for line in (await measure(runs.client, [runs.asked, runs.plain])).lines()
    }
    for name, line in lines.items():  # each rate in words, its shortfall counted
        assert ("SC-0" in name) is bool(line.meaning), name
        if line.met is False:
            assert line.short > 0, name
    for rich in ("5 tags", "3 generated queries", "10 file references"):
        line = lines[f"discovery reports with >= {rich} (SC-011)"]  # the schema's minItems
        assert (line.met, line.short) == (True, 0), line
    assert lines["runs"].value == "2"
    assert lines["interrupts per run"].value == "1.00"
    assert lines["choices with CUSTOM (SC-027)"].met is True
    assert lines["response rate of people (SC-026)"].value == "100% (1/1)"
    assert lines["planning tickets with a discovery link (SC-013)"].met is True
    assert lines["ticket results with the full upstream chain (SC-014)"].met is True
    assert lines["time to a person's answer p50 / p95"].value.endswith(" s")
    assert lines["translation latency p50 / p95 / max (SC-022)"].target == "< 2 s each"
    assert all(
        line.target.startswith(">=")
        for name, line in lines.items()
        if "SC-0" in name and "SC-022" not in name
    )


async def test_cli_export_and_stats(runs: Runs, tmp_path: Path) -> None:
    out = tmp_path / "cli.jsonl"
    exported = await client_py(
        runs.client, "export", "--out", str(out), "--kind", "resolution", runs.asked
    )
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.startswith("wrote 2 examples (resolution 2) from 1 run to ")
    assert [list(line) for line in _lines(out)] == [["messages"], ["messages"]]
    stats = await client_py(runs.client, "stats", "--json", runs.asked)
    assert stats.returncode == 0, stats.stderr
    meanings = {line["name"]: line["meaning"] for line in json.loads(stats.stdout)}
    assert meanings["choices with a recommendation (SC-025)"] == (
        "choices that name the option the asking agent recommends"
    )
    wrong = await client_py(runs.client, "export", "--out", str(out), "--split", "2", runs.asked)
    assert wrong.returncode == 2
    assert wrong.stderr.strip() == "error: --split must be between 0 and 1 (exclusive), not 2"
    native = tmp_path / "native.jsonl"
    mine = f"TaskQueue = '{runs.task_queue}'"  # the server is shared: other tests' runs differ
    written = await client_py(
        runs.client, "export", "--out", str(native), "--format", "native", "--query", mine
    )
    assert written.returncode == 0, written.stderr
    checked = await client_py(runs.client, "export", "--check", str(native))
    assert checked.returncode == 0 and checked.stdout.startswith("lineage closed: "), checked
    lines = native.read_text(encoding="utf-8").splitlines()
    native.write_text("\n".join(line for line in lines if '"record": "context"' not in line))
    broken = await client_py(runs.client, "export", "--check", str(native))
    assert broken.returncode == 1 and broken.stdout.startswith("lineage open: "), broken


async def test_the_controller_model_answers_a_timeout_escalation(tmp_path: Path) -> None:
    """Nobody answers by the deadline: CONTROLLER_MODEL answers, recorded as TIMEOUT_ESCALATION."""
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    workflow_id, task_queue = f"wf-{uuid.uuid4()}", f"tq-{uuid.uuid4()}"
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=temporal_test_server(), data_converter=pydantic_data_converter
    ) as skipping:
        client = skipping.client
        with ScriptedOpenAIServer(scenario=scenario) as server:
            async with build_worker(client, task_queue, _settings(server)):
                handle = await start(client, task_queue, workflow_id, interrupt_timeout_seconds=60)
                await asyncio.wait_for(handle.result(), 60)
            run = await read_run(client, workflow_id)
    (it,) = run.interrupts
    assert it.outcome is not None and it.outcome.timed_out
    answer = it.outcome.resolution
    assert answer.resolved_by is ResolvedBy.TIMEOUT_ESCALATION
    assert answer.call is not None and answer.call.controller
    assert answer.call.model == CONTROLLER_MODEL
    reviews = [r.body["model"] for r in server.received if r.schema_name == "AgentReviewDecision"]
    assert reviews == [CONTROLLER_MODEL]
    lines = {line.name: line for line in _tally(run).lines()}
    assert lines["answered by a model"].value == "1 (CONTROLLER_MODEL 1)"
    assert lines["response rate of people (SC-026)"].value == "0% (0/1)"
    assert lines["response rate of people (SC-026)"].met is False


def _tally(run: RecordedRun) -> Tally:
    tally = Tally()
    tally.add(run)
    return tally


async def test_a_continued_as_new_chain_is_exported_whole(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, workflow_id, continue_as_new_every=6)
        await handle.result()
    run = await read_run(client, workflow_id)
    assert len(run.run_ids) > 1, "the run continued as new"
    out = tmp_path / "chain.jsonl"
    summary = await export(client, out, fmt=Format.NATIVE, ids=[workflow_id])
    records = _lines(out)
    (chain,) = [r for r in records if r["record"] == "run"]
    examples = [r for r in records if r["record"] == "example"]
    assert chain["runIds"] == run.run_ids and summary.runs == 1
    assert {r["runId"] for r in examples} == set(run.run_ids), "every run of the chain"
    assert len(examples) + summary.duplicates == len(run.calls)
    assert check_file(out).unresolved == {}
    produced = {i for r in examples for i in r["producedContextIds"]}
    for record in examples:
        assert record["firstRunId"] == run.first_run_id
        for context_id in record["consumedContextIds"]:
            assert context_id in produced or parse_context_id(context_id)[0] == run.first_run_id


async def test_a_workspace_run_exports_every_step_byte_exact_with_tool_calls_and_diffs(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    """Every step of a run whose agents read, edit, test
    and commit is exported, its tool calls, tool results and tool definitions exactly as the
    server received them; ticket steps carry their real diffs; none is skipped."""
    repo = make_code_repo(tmp_path)
    tools = ToolSettings(state_dir=tmp_path / "state")
    spec = WorkspaceSpec(source=str(repo), test_command=TEST_COMMAND)
    with ScriptedOpenAIServer() as server:
        async with build_worker(client, task_queue, _settings(server), tools=tools):
            await client.execute_workflow(
                OrchestratorWorkflow.run,
                OrchestratorInput(goal="fix the calculator", workspace=spec),
                id=workflow_id,
                task_queue=task_queue,
            )
    out = tmp_path / "native.jsonl"
    results = ToolResultStore(tools.tool_results)
    summary = await export(client, out, fmt=Format.NATIVE, ids=[workflow_id], results=results)
    assert summary.skipped == {}
    assert check_file(out).unresolved == {}
    examples = [r for r in _lines(out) if r["record"] == "example" and r["model"] is not None]
    received = [(r.messages, r.body.get("tools")) for r in server.received]
    for example in examples:
        prompt = example["messages"][:-1]
        assert (prompt, example["tools"]) in received, f"{example['nodeId']}: not what was sent"
    # every request the server got is an exported prompt, or an earlier round of one
    prompts = [e["messages"][:-1] for e in examples]
    for messages, _ in received:
        assert any(p[: len(messages)] == messages for p in prompts)
    tickets = [e for e in examples if e["agentType"] == "TICKET_AGENT"]
    assert len(tickets) == 2
    for ticket in tickets:
        calls = [m for m in ticket["messages"] if m.get("tool_calls")]
        names = {c["function"]["name"] for m in calls for c in m["tool_calls"]}
        assert {"replace_snippet", "run_verification"} <= names, names
        assert "+++ b/calc/ops.py" in ticket["diff"]
    kinds = {e["kind"] for e in examples}
    assert {"delegation", "consolidation", "report"} <= kinds

    # the results kept elsewhere: the tool-using steps are counted and named, not lost silently
    elsewhere = await export(
        client,
        tmp_path / "x.jsonl",
        ids=[workflow_id],
        results=ToolResultStore(tmp_path / "elsewhere"),
    )
    ((why, where),) = elsewhere.skipped.items()
    assert "AGENT_TOOL_RESULTS_DIR" in why and len(where) >= len(tickets)
    assert any(line.startswith(f"skipped {len(where)}: ") for line in elsewhere.lines())


@activity.defn(name="run_agent")
async def _old_run_agent(call: dict[str, Any]) -> dict[str, Any]:
    return {}


@workflow.defn(name="OrchestratorWorkflow", sandboxed=False)
class _OldShapedRun:
    """A run as an earlier version recorded it: its agent call carries a field (``history``,
    as 83c9b6c's did) that this version's AgentCall does not take."""

    @workflow.run
    async def run(self) -> None:
        await workflow.execute_activity(
            "run_agent",
            {"history": [], "agentType": "ORCHESTRATOR"},
            start_to_close_timeout=timedelta(seconds=30),
        )


async def test_a_run_an_earlier_version_recorded_is_skipped_and_named(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    """Exporting every run after a deploy meets runs of earlier versions: each is named in the
    summary, and the export goes on (it failed whole, on one line, before)."""
    async with Worker(
        client, task_queue=task_queue, workflows=[_OldShapedRun], activities=[_old_run_agent]
    ):
        await client.execute_workflow(_OldShapedRun.run, id=workflow_id, task_queue=task_queue)
    summary = await export(client, tmp_path / "out.jsonl", ids=[workflow_id])
    assert summary.runs == 0 and summary.skipped == {OTHER_VERSION: [workflow_id]}
    assert any(
        line.startswith("skipped 1: the run was recorded by a version") for line in summary.lines()
    )


@pytest.mark.parametrize(
    ("scenario", "max_steps", "option", "kind"),
    [("interrupt=TICKET_AGENT#1", 100, "A", "lifted"), ("loop=1000", 6, "B", "step budget")],
)
async def test_the_lineage_of_a_question_the_workflow_raised_closes(
    client: Client,
    task_queue: str,
    workflow_id: str,
    tmp_path: Path,
    scenario: str,
    max_steps: int,
    option: str,
    kind: str,
) -> None:
    """Lineage closes for a dispatched agent's question lifted into its dispatch node's (the node's
    output has no model call) and the step-budget question; the merge conflict's and a stuck
    agent's are checked in their own scenario tests. B at the step budget stops the run."""
    async with build_worker(
        client, task_queue, LlmSettings(), scenario=OfflineScenario.parse(scenario)
    ):
        handle = await start(client, task_queue, workflow_id, max_steps=max_steps)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        question = (await interrupt_status(client, pending.workflow_id)).request
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            "resolve_validated", answer_all(question, option=option)
        )
        try:
            await asyncio.wait_for(handle.result(), 60)
        except WorkflowFailureError as err:
            assert kind == "step budget", failure_message(err)
    out = tmp_path / "native.jsonl"
    await export(client, out, fmt=Format.NATIVE, ids=[workflow_id])
    report = check_file(out)
    assert report.unresolved == {}, f"{kind}: {report.lines()}"
    if kind == "lifted":
        raised = [r for r in _lines(out) if r["record"] == "context" and r["kind"] == "raised"]
        assert [r["agentType"] for r in raised] == ["TICKET_DISPATCH"]
