"""Training data from finished runs (the agents spec's aim: SC-016, SC-017, SC-024).

Every decision of a run becomes one example: the exact messages the model received, rendered
again from the call input recorded in history and checked against the call's recorded
fingerprint, and the validated output it gave. The builders are pure; ``export`` streams runs one
chain at a time, in a deterministic order, without duplicates.

Kinds, by the agent's role in the run's team (``KIND_BY_ROLE``): ``delegation`` (an
orchestrator: the software team's four), ``consolidation`` (a collector: its four), ``report``
(every other role: dispatched agents, dispatchers, single agents, reviewer, merger, context
manager), ``interrupt`` (any agent's call that asked a question
instead of routing on), ``resolution`` (the question and its context -> the answer that was
used: the controller's example, with the reviewer's prompt and AgentReviewDecision as output),
``translation`` (answer -> the run's team's handler routing filtered to the one route: the
software team's InterruptRouting).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ValidationError
from temporalio.client import Client

from agent_interrupts.activities.llm import messages_sha256
from agent_interrupts.activities.output_schema import decoder_schema, reply_json, reply_object
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.resolution import review_messages, translation_messages
from agent_interrupts.activities.route_filter import routing_schema
from agent_interrupts.activities.tools.results import ToolResultStore
from agent_interrupts.app.fork_lineage import closed_by_parents, fork_link, open_ids
from agent_interrupts.app.history import RecordedCall, RecordedInterrupt, RecordedRun, read_run
from agent_interrupts.app.lineage_records import closing_records, defined_ids
from agent_interrupts.app.tool_steps import offered_tools, transcripts
from agent_interrupts.app.without_names import NameScrubber, names_of_run, recorded_names
from agent_interrupts.models.agent_call import CallRecord
from agent_interrupts.models.interrupt_flow import (
    AgentReviewDecision,
    ChoiceDecision,
    ConfirmationDecision,
    ReviewInput,
)
from agent_interrupts.models.interrupts import InterruptResolution, ResolvedBy
from agent_interrupts.models.results import SCHEMA_VERSION
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import team_of
from agent_interrupts.models.team_spec import Role
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow


class Kind(StrEnum):
    DELEGATION = "delegation"
    CONSOLIDATION = "consolidation"
    REPORT = "report"
    INTERRUPT = "interrupt"
    RESOLUTION = "resolution"
    TRANSLATION = "translation"


KIND_BY_ROLE: dict[Role, Kind] = {
    Role.ORCHESTRATOR: Kind.DELEGATION,
    Role.COLLECTOR: Kind.CONSOLIDATION,
    Role.DISPATCHER: Kind.REPORT,
    Role.DISPATCHED: Kind.REPORT,
    Role.AGENT: Kind.REPORT,
    Role.REVIEWER: Kind.REPORT,
    Role.MERGER: Kind.REPORT,
    Role.CONTEXT_MANAGER: Kind.REPORT,
}
"""The kind of an agent's example when it routed on (a question is always ``interrupt``), by
the agent's role in the run's team: the software team's as any other's."""


def kind_of(agent: str, team: Team) -> Kind:
    """The kind of ``agent``'s example when it routed on, in the run's ``team`` (an agent the
    team does not have: ``report``)."""
    return KIND_BY_ROLE[team.role(agent)]


class Format(StrEnum):
    OPENAI = "openai"
    NATIVE = "native"
    PREFERENCE = "preference"
    """OpenAI's preference (DPO) lines, one per forked decision (``app/preference.py``)."""


@dataclass(frozen=True)
class Example:
    """One training example and where it came from."""

    kind: Kind
    agent_type: str
    schema_name: str
    prompt: list[dict[str, Any]]
    """The messages exactly as the model received them: system, user, and for a tool-using
    step its earlier rounds' tool calls and results."""
    answer: str
    """The validated output as compact JSON: the assistant message."""
    input: dict[str, Any]
    output: dict[str, Any]
    workflow_id: str
    run_id: str
    first_run_id: str
    node_id: str
    consumed: list[str]
    produced: list[str]
    call: CallRecord | None
    """The LLM call that gave ``answer``; None for a person's answer."""
    resolved_by: ResolvedBy | None = None
    answered_by: str | None = None
    """The person's name a HUMAN answer carried (``answeredBy``)."""
    door: str | None = None
    """Where a HUMAN answer came from (cli, inbox, sdk, ...); rows leave it out when unknown, so
    answers recorded before it existed export byte for byte as they did."""
    interrupt_id: str | None = None
    diff: str | None = None
    """The real diff (capped) a ticket step committed or a merge made."""
    tools: list[dict[str, Any]] | None = None
    """The tool definitions the model was offered, as it received them."""
    shadow: dict[str, Any] | None = None
    """A person's answer's shadow: what the controller answered, never acted on."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [*self.prompt, {"role": "assistant", "content": self.answer}]

    @property
    def example_id(self) -> str:
        """Stable and content-derived: two identical examples share it (deduplication)."""
        return messages_sha256(self.messages)[:24]


OTHER_VERSION = (
    "the run was recorded by a version whose agent calls or questions this version does not "
    "read (export it with that version's code)"
)


class Unverifiable(Exception):
    """The messages cannot be proven to be what the model received; the example is skipped."""


# --- pure builders ---------------------------------------------------------------------------


def agent_example(
    run: RecordedRun,
    recorded: RecordedCall,
    prompts: PromptRenderer,
    results: ToolResultStore | None = None,
) -> Example:
    """An agent call -> a delegation, consolidation, report or interrupt example; a tool-using
    step's transcript is read back from ``results``, the store its workers kept."""
    call, reply = recorded.call, recorded.reply
    team = team_of(call.team)
    node = team.node(call.agent_type)
    rendered = prompts.agent_messages(node, call, team).messages
    candidates = [rendered]
    if call.tool_requests:
        if results is None:
            raise Unverifiable("it used tools: export with the workers' tool results")
        traces = run.tool_traces.get(call.node_id, {})
        found = transcripts(call, reply, traces, results)
        candidates = [[*rendered, *more] for more in found]
        if not candidates:
            raise Unverifiable(
                f"its tool results are not in {results.root}: export where the workers' "
                "AGENT_TOOL_RESULTS_DIR is (agents export --tool-results DIR)"
            )
    prompt = _verified(candidates, reply.call, prompts)
    kind = Kind.INTERRUPT if reply.route == "interruptRequest" else kind_of(call.agent_type, team)
    return Example(
        kind=kind,
        agent_type=str(call.agent_type),
        schema_name=node.output_model.__name__,
        prompt=prompt,
        answer=_answer(reply.output, decoder_schema(node.output_model), node.output_model),
        input=call.request,
        output=reply.output,
        workflow_id=run.workflow_id,
        run_id=recorded.run_id,
        first_run_id=run.first_run_id,
        node_id=call.node_id,
        consumed=list(call.upstream_context_ids),
        produced=[call.result_id],
        call=reply.call,
        diff=run.diffs.get(call.node_id) or _merge_diff(call.request),
        tools=offered_tools(call),
    )


def _merge_diff(request: dict[str, Any]) -> str | None:
    """The merged branch's diff a merger's request carries (its prompt shows it too)."""
    report = request.get("mergeReport")
    diff = report.get("diff") if isinstance(report, dict) else None
    return str(diff.get("text") or "") or None if isinstance(diff, dict) else None


def resolution_example(run: RecordedRun, it: RecordedInterrupt, prompts: PromptRenderer) -> Example:
    """The question and its context -> the answer that was used, in the controller's shape:
    the reviewer's prompt in, an AgentReviewDecision out."""
    if it.translation is None:
        raise Unverifiable("the interrupt was never answered")
    answer = it.translation.resolution
    if answer.resolved_by is not ResolvedBy.HUMAN and it.reviewed is None:
        raise Unverifiable("nobody answered: the default was taken at the deadline")
    job = it.review or ReviewInput(
        goal=it.translation.goal,
        request=it.translation.request,
        origin_request=it.translation.origin_request,
    )
    call = it.reviewed.call if it.reviewed is not None else None
    messages = review_messages(prompts, job)
    if answer.resolved_by is not ResolvedBy.HUMAN:
        messages = _verified([messages], call, prompts)
    decision = decision_of(job, answer)
    return Example(
        kind=Kind.RESOLUTION,
        agent_type=str(it.asked.origin),
        schema_name=AgentReviewDecision.__name__,
        prompt=messages,
        answer=_compact(decision.to_wire()),
        input=job.to_wire(),
        output=answer.to_wire(),
        call=call if answer.resolved_by is not ResolvedBy.HUMAN else None,
        resolved_by=answer.resolved_by,
        answered_by=_person(answer),
        door=_door(answer),
        shadow=it.shadow.to_wire() if it.shadow is not None else None,
        **_from_interrupt(run, it),
    )


def translation_example(
    run: RecordedRun, it: RecordedInterrupt, prompts: PromptRenderer
) -> Example:
    """The question and its answer -> the run's team's handler routing (the software team's
    InterruptRouting) filtered to the one allowed route."""
    job, outcome = it.translation, it.translated
    if job is None or outcome is None:
        raise Unverifiable("the answer was never translated (no translation, or it failed)")
    prompt = _verified([translation_messages(prompts, job)], outcome.call, prompts)
    routing = team_of(job.team).interrupt_routing
    schema = routing_schema(job.allowed_route, model=routing)
    answer = _answer(outcome.routing, schema, routing)
    return Example(
        kind=Kind.TRANSLATION,
        agent_type=str(job.origin),
        schema_name=routing.__name__,
        prompt=prompt,
        answer=answer,
        input=job.to_wire(),
        output=outcome.routing,
        call=outcome.call,
        resolved_by=job.resolution.resolved_by,
        answered_by=_person(job.resolution),
        door=_door(job.resolution),
        **_from_interrupt(run, it),
    )


def decision_of(job: ReviewInput, answer: InterruptResolution) -> AgentReviewDecision:
    """A resolution in the reviewer's output shape, in the question's order."""
    return AgentReviewDecision(
        decisions=[
            ChoiceDecision(
                choice_id=c.choice_id,
                option=answer.selected_choices[c.choice_id],
                custom_input=answer.custom_inputs.get(c.choice_id),
            )
            for c in job.request.choices
            if c.choice_id in answer.selected_choices
        ],
        confirmations=[
            ConfirmationDecision(confirmation_id=c.confirmation_id, answer=answer.confirmations[i])
            for c in job.request.confirmation_items
            if (i := c.confirmation_id) in answer.confirmations
        ],
        rationale=answer.free_text or "",
    )


def run_examples(
    run: RecordedRun,
    prompts: PromptRenderer,
    kinds: frozenset[Kind],
    skipped: dict[str, list[str]],
    results: ToolResultStore | None = None,
) -> Iterator[Example]:
    """A run chain's examples of ``kinds`` in the order the run made them; what cannot be
    proven exact is named in ``skipped`` (reason -> ``<workflow id>/<node id>`` of each)."""
    steps: list[tuple[tuple[int, int], RecordedCall | RecordedInterrupt]] = [
        *((c.position, c) for c in run.calls),
        *((i.position, i) for i in run.interrupts),
    ]
    for _, step in sorted(steps, key=lambda s: s[0]):
        builders = []
        if isinstance(step, RecordedCall):
            asked = step.reply.route == "interruptRequest"
            team = team_of(step.call.team)
            kind = Kind.INTERRUPT if asked else kind_of(step.call.agent_type, team)
            if kind in kinds:
                builders.append(lambda s=step: agent_example(run, s, prompts, results))
        else:
            if Kind.RESOLUTION in kinds:
                builders.append(lambda s=step: resolution_example(run, s, prompts))
            if Kind.TRANSLATION in kinds:
                builders.append(lambda s=step: translation_example(run, s, prompts))
        node = step.call.node_id if isinstance(step, RecordedCall) else step.asked.origin_node_id
        for build in builders:
            try:
                yield build()
            except Unverifiable as why:
                skipped.setdefault(str(why), []).append(f"{run.workflow_id}/{node}")


def _person(answer: InterruptResolution) -> str | None:
    """The name of the person who answered; None for a model's answer."""
    return answer.answered_by if answer.resolved_by is ResolvedBy.HUMAN else None


def _door(answer: InterruptResolution) -> str | None:
    """Where a person's answer came from; None for a model's answer or when unknown."""
    if answer.resolved_by is not ResolvedBy.HUMAN or answer.door is None:
        return None
    return answer.door.value


def _with_door(row: dict[str, Any], door: str | None) -> dict[str, Any]:
    """``row`` with ``door`` right after ``answeredBy`` when known; else ``row`` as it was."""
    if door is None:
        return row
    keys = list(row)
    at = keys.index("answeredBy") + 1
    return {k: row[k] for k in keys[:at]} | {"door": door} | {k: row[k] for k in keys[at:]}


def openai_line(example: Example, metadata: bool) -> dict[str, Any]:
    """The chat fine-tuning format: system, user(s), assistant; optional metadata."""
    line: dict[str, Any] = {"messages": example.messages}
    if example.tools:
        line["tools"] = example.tools
    if metadata:
        line["metadata"] = {
            "exampleId": example.example_id,
            "kind": example.kind.value,
            "agentType": example.agent_type,
            "schemaName": example.schema_name,
            "workflowId": example.workflow_id,
            "runId": example.run_id,
            "nodeId": example.node_id,
            "model": example.call.model if example.call else None,
            "resolvedBy": example.resolved_by.value if example.resolved_by else None,
            "answeredBy": example.answered_by,
            "diff": example.diff,
        }
        line["metadata"] = _with_door(line["metadata"], example.door)
    return line


def native_line(example: Example) -> dict[str, Any]:
    """Everything about the example: kind, schema, call, ids consumed and produced, payloads."""
    call = example.call
    row = {
        "record": "example",
        "exampleId": example.example_id,
        "kind": example.kind.value,
        "agentType": example.agent_type,
        "schemaName": example.schema_name,
        "schemaVersion": call.schema_version if call else SCHEMA_VERSION,
        "model": call.model if call else None,
        "controllerModel": call.controller if call else False,
        "attempts": call.attempts if call else None,
        "promptTokens": call.prompt_tokens if call else None,
        "completionTokens": call.completion_tokens if call else None,
        "latencyMs": call.latency_ms if call else None,
        "messagesSha256": messages_sha256(example.prompt),
        "templateVersion": call.template_version if call else None,
        "workflowId": example.workflow_id,
        "runId": example.run_id,
        "firstRunId": example.first_run_id,
        "nodeId": example.node_id,
        "interruptId": example.interrupt_id,
        "resolvedBy": example.resolved_by.value if example.resolved_by else None,
        "answeredBy": example.answered_by,
        "consumedContextIds": example.consumed,
        "producedContextIds": example.produced,
        "input": example.input,
        "output": example.output,
        "diff": example.diff,
        "messages": example.messages,
        "tools": example.tools,
        "shadow": example.shadow,
    }
    return _with_door(row, example.door)


def run_line(run: RecordedRun) -> dict[str, Any]:
    """The native file's record of a run chain: the ids its context ids are made from."""
    return {
        "record": "run",
        "workflowId": run.workflow_id,
        "firstRunId": run.first_run_id,
        "runIds": run.run_ids,
        "goal": run.goal,
    }


def in_train(first_run_id: str, fraction: float) -> bool:
    """Whether a run chain goes to the training split: a stable hash of its first run id."""
    digest = hashlib.sha256(first_run_id.encode()).digest()
    return int.from_bytes(digest[:8]) / 2**64 < fraction


def project(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """``value`` with only what ``schema`` describes: the fields the model wrote, without those
    the system stamped afterwards (ids, links, computed aggregates)."""
    if "$ref" in schema:
        return project(value, _ref(root, schema["$ref"]), root)
    if "anyOf" in schema:
        for branch in schema["anyOf"]:
            if _fits(value, _ref(root, branch["$ref"]) if "$ref" in branch else branch):
                return project(value, branch, root)
        return value
    if isinstance(value, dict) and "properties" in schema:
        properties = schema["properties"]
        return {k: project(v, properties[k], root) for k, v in value.items() if k in properties}
    if isinstance(value, list) and "items" in schema:
        return [project(v, schema["items"], root) for v in value]
    return value


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    if value is None:
        return schema.get("type") == "null"
    if isinstance(value, dict):
        return set(schema.get("required", [])) <= set(value) and "properties" in schema
    if isinstance(value, list):
        return schema.get("type") == "array"
    return schema.get("type") not in ("null", "object", "array")


def _ref(root: dict[str, Any], ref: str) -> dict[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return dict(node)


def _answer(output: dict[str, Any], schema: dict[str, Any], model: type[BaseModel]) -> str:
    """The output as the model gave it (the schema's fields), validated again."""
    text = _compact(project(reply_object(output, model, schema), schema, schema))
    model.model_validate_json(reply_json(text, schema))
    return text


def _verified(
    candidates: list[list[dict[str, Any]]], call: CallRecord | None, prompts: PromptRenderer
) -> list[dict[str, Any]]:
    """The candidate messages that are provably what the model received."""
    if call is None:
        raise Unverifiable("recorded before calls were recorded (no fingerprint)")
    proven = [m for m in candidates if messages_sha256(m) == call.messages_sha256]
    if not proven:
        if call.template_version != prompts.template_version:
            raise Unverifiable(
                f"rendered by template set {call.template_version}, not the current "
                f"{prompts.template_version}: export with that version of prompts/"
            )
        raise Unverifiable("the messages rendered again differ from the fingerprint")
    return proven[0]


def _from_interrupt(run: RecordedRun, it: RecordedInterrupt) -> dict[str, Any]:
    """Where an interrupt's example comes from; it consumed the output that asked."""
    asking = [c for c in run.calls if c.call.node_id == it.asked.origin_node_id]
    return {
        "workflow_id": run.workflow_id,
        "run_id": it.run_id,
        "first_run_id": run.first_run_id,
        "node_id": it.asked.origin_node_id,
        "consumed": [asking[-1].call.result_id] if asking else [],
        "produced": [],
        "interrupt_id": it.interrupt_id,
        "diff": it.conflict,
    }


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- selecting and streaming runs ------------------------------------------------------------


@dataclass(frozen=True)
class RunRef:
    workflow_id: str
    run_id: str
    started: datetime


CLOSED = "ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew'"
"""Runs that ended a chain: a running run has no final result yet, and a continued-as-new run
is read with its chain."""


def visibility_query(query: str | None, *, running: bool = False) -> str:
    """Closed orchestrator runs that end a chain, and match ``query`` when it is given; with
    ``running``, the runs the query matches that still run instead (to count what was left out)."""
    workflow_type = OrchestratorWorkflow.__name__
    status = "ExecutionStatus = 'Running'" if running else CLOSED
    return f"WorkflowType = '{workflow_type}' AND {status}" + (f" AND ({query})" if query else "")


def plural(count: int, word: str) -> str:
    """``1 example``, ``2 examples``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


async def select_runs(client: Client, ids: Sequence[str], query: str | None) -> list[RunRef]:
    """Runs named by id (their newest run) and by the visibility query (default: every closed
    run when no id is given), once each, oldest first."""
    refs: dict[tuple[str, str], RunRef] = {}
    for workflow_id in ids:
        described = await client.get_workflow_handle(workflow_id).describe()
        ref = RunRef(workflow_id, described.run_id, described.start_time)
        refs[(ref.workflow_id, ref.run_id)] = ref
    if query or not ids:
        async for found in client.list_workflows(visibility_query(query)):
            ref = RunRef(found.id, found.run_id, found.start_time)
            refs[(ref.workflow_id, ref.run_id)] = ref
    return sorted(refs.values(), key=lambda r: (r.started, r.workflow_id, r.run_id))


SKIPPED_NAMED = 5
"""Steps a summary line names per reason of skipping; the count says how many there were."""


@dataclass
class ExportSummary:
    """What an export wrote and what it left out, and why."""

    files: list[Path]
    runs: int = 0
    written: Counter[str] = field(default_factory=Counter)
    """Examples written, by kind."""
    train_runs: int = 0
    duplicates: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)
    """Examples left out: reason -> where each was (``<workflow id>/<node id>``)."""
    running: int = 0
    """Runs the ``--query`` matched that still run: left out (they have no result yet)."""

    def lines(self) -> list[str]:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.written.items())) or "none"
        out = [
            f"wrote {plural(sum(self.written.values()), 'example')} ({kinds}) from "
            f"{plural(self.runs, 'run')} to " + ", ".join(str(f) for f in self.files)
        ]
        if self.running:
            out.append(
                f"left out {plural(self.running, 'running run')} the query matched (export "
                "them when they finish)"
            )
        if len(self.files) == 2:
            valid = self.runs - self.train_runs
            out.append(f"split: {plural(self.train_runs, 'run')} train, {valid} valid")
            if self.runs and not (self.train_runs and valid):
                empty = self.files[0 if valid else 1]
                out.append(
                    f"warning: {empty} is empty: a run chain goes to one side whole (a stable "
                    f"hash), and all {self.runs} went to the other; export more runs or choose "
                    "another --split"
                )
        if self.duplicates:
            out.append(f"left out {plural(self.duplicates, 'duplicate')}")
        for why, where in sorted(self.skipped.items()):
            named = ", ".join(where[:SKIPPED_NAMED]) + (
                ", ..." if len(where) > SKIPPED_NAMED else ""
            )
            out.append(f"skipped {len(where)}: {why} ({named})")
        return out


def split_paths(out: Path) -> tuple[Path, Path]:
    """``data.jsonl`` -> ``data.train.jsonl``, ``data.valid.jsonl``."""
    return (
        out.with_name(f"{out.stem}.train{out.suffix}"),
        out.with_name(f"{out.stem}.valid{out.suffix}"),
    )


async def export(
    client: Client,
    out: Path,
    *,
    fmt: Format = Format.OPENAI,
    kinds: Sequence[Kind] = (),
    ids: Sequence[str] = (),
    query: str | None = None,
    split: float | None = None,
    metadata: bool = False,
    prompts: PromptRenderer | None = None,
    results: ToolResultStore | None = None,
    without_names: bool = False,
) -> ExportSummary:
    """Write the selected runs' examples as JSONL, one run chain in memory at a time.

    ``kinds`` empty: every kind. ``split``: the fraction of runs (by a stable hash of each
    chain's first run id) written to ``<out>.train``; the rest go to ``<out>.valid``.
    ``prompts`` must be the renderer the workers used (same templates, same contributors);
    ``results`` the store their tool results were kept in (tool-using steps need it);
    ``without_names``: people's names left out (``app/without_names.py``).
    """
    if split is not None and not 0 < split < 1:
        raise ValueError(f"--split must be between 0 and 1 (exclusive), not {split:g}")
    if fmt is Format.PREFERENCE:
        if split is not None or kinds:
            raise ValueError("--split and --kind are for the openai and native formats")
        from agent_interrupts.app.preference import export_preferences  # it builds on this one

        return await export_preferences(
            client,
            out,
            ids=ids,
            query=query,
            metadata=metadata,
            prompts=prompts,
            without_names=without_names,
        )
    prompts = prompts or PromptRenderer()
    wanted = frozenset(kinds or Kind)
    refs = await select_runs(client, ids, query)
    paths = list(split_paths(out)) if split is not None else [out]
    summary = ExportSummary(files=paths)
    if query:
        counted = await client.count_workflows(visibility_query(query, running=True))
        summary.running = counted.count
    seen: set[str] = set()
    defined: set[str] = set()
    """Context ids the file's records define so far (a fork's chain names its parent's)."""
    scrubber = NameScrubber() if without_names else None
    files = [path.open("w", encoding="utf-8") for path in paths]
    try:
        for ref in refs:
            try:
                run = await read_run(client, ref.workflow_id, ref.run_id)
            except ValidationError:  # an earlier version's agent calls or questions
                summary.skipped.setdefault(OTHER_VERSION, []).append(ref.workflow_id)
                continue
            train = split is None or in_train(run.first_run_id, split)
            sink = files[0 if train else 1]
            summary.runs += 1
            summary.train_runs += train
            chain: list[dict[str, Any]] = [run_line(run)]
            examples_by_result: dict[str, str] = {}
            for example in run_examples(run, prompts, wanted, summary.skipped, results):
                examples_by_result.update((i, example.example_id) for i in example.produced)
                if example.example_id in seen:
                    summary.duplicates += 1
                    continue
                seen.add(example.example_id)
                native = fmt is Format.NATIVE
                line = native_line(example) if native else openai_line(example, metadata)
                chain.append(line)
                summary.written[example.kind.value] += 1
            if fmt is Format.NATIVE:
                chain += closing_records(run, chain, examples_by_result)
                if missing := open_ids(chain, defined):
                    link = await fork_link(client, ref.workflow_id, ref.run_id)
                    mine = {i for r in chain for i in defined_ids(r)}
                    chain += await closed_by_parents(client, link, missing, defined | mine)
                defined.update(i for r in chain for i in defined_ids(r))
            else:
                chain = chain[1:]
            if scrubber is not None:
                scrubber.learn(names_of_run(run) | recorded_names(chain))
                chain = [scrubber.record(line) for line in chain]
            for line in chain:
                _write(sink, line)
    finally:
        for file in files:
            file.close()
    return summary


def _write(sink: IO[str], line: dict[str, Any]) -> None:
    sink.write(json.dumps(line, ensure_ascii=False) + "\n")
