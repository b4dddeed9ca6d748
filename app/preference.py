"""Preference pairs from forks: ``agents export --format preference`` (``docs/training-data.md``).

A fork answered one of its parent's questions another way (``docs/forks.md``). That decision
becomes one line of OpenAI's preference fine-tuning (DPO) JSONL: ``input.messages`` is the
prompt at the decision (the reviewer's, as the ``resolution`` example has it: the question and
its context), and the two answers are each one assistant message (an ``AgentReviewDecision``),
``preferred_output`` and ``non_preferred_output``. Which one is preferred is decided by what
each branch came to after the point (``preferred``): reaching the team's final result beats not
reaching it; between two that reached it, fewer questions to people, then fewer agent calls.
With ``metadata``, the line also says which branch reached the final result, in how many steps
and questions, and who chose each answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.resolution import review_messages
from agent_interrupts.app.export import (
    OTHER_VERSION,
    Example,
    ExportSummary,
    Kind,
    Unverifiable,
    decision_of,
    resolution_example,
    select_runs,
)
from agent_interrupts.app.fork_lineage import fork_link
from agent_interrupts.app.forks import fork_question_id
from agent_interrupts.app.history import RecordedInterrupt, RecordedRun, read_run
from agent_interrupts.app.without_names import NameScrubber, names_of_run, recorded_names
from agent_interrupts.models.forks import FORK_OF_ATTRIBUTE, ForkLink, ForkPointKind
from agent_interrupts.models.interrupt_flow import AgentReviewDecision, ReviewInput
from agent_interrupts.models.interrupts import InterruptResolution, ResolvedBy

KIND = "preference"
"""How the summary counts the lines written."""
NO_PREFERENCE = (
    "no preference: both branches reached the final result with as many questions and agent "
    "calls after the decision, or neither reached it"
)
STILL_RUNNING = "a branch still runs (export it when it has finished)"
NOT_FOUND = "the decision is not in the parent's history, or the fork never asked it again"


@dataclass(frozen=True)
class Branch:
    """One side of a forked decision: the run that took one answer there, and where it went."""

    workflow_id: str
    example: Example
    """Its ``resolution`` example at the decision: the prompt and the answer it took."""
    status: str
    """Its chain's last run's status (COMPLETED, FAILED, ...)."""
    steps: int
    """Agent calls after the decision."""
    questions: int
    """Questions asked after the decision."""
    native: Example | None = None
    """The ``resolution`` example a native export writes of the answer (None: it writes none,
    as for a stop, which nothing translates)."""

    @property
    def reached_final_result(self) -> bool:
        """A run completes only by returning its team's final result (a stop, a failure or a
        step limit ends it otherwise)."""
        return self.status == WorkflowExecutionStatus.COMPLETED.name

    def key(self) -> tuple[bool, int, int]:
        """Smaller is better: the final result reached, then fewer questions, fewer calls."""
        return (not self.reached_final_result, self.questions, self.steps)


def preferred(parent: Branch, fork: Branch) -> tuple[Branch, Branch, str] | None:
    """(preferred, non-preferred, the rule that decided) for a forked decision; None when
    nothing tells them apart (both reached the final result alike, or neither reached it)."""
    if not (parent.reached_final_result or fork.reached_final_result):
        return None
    if parent.key() == fork.key():
        return None
    best, other = (parent, fork) if parent.key() < fork.key() else (fork, parent)
    if best.reached_final_result != other.reached_final_result:
        rule = "finalResult"
    elif best.questions != other.questions:
        rule = "fewerQuestions"
    else:
        rule = "fewerSteps"
    return best, other, rule


def after(run: RecordedRun, it: RecordedInterrupt) -> tuple[int, int]:
    """(agent calls, questions) of ``run`` after its question ``it``."""
    steps = sum(1 for c in run.calls if c.position > it.position)
    questions = sum(1 for i in run.interrupts if i.position > it.position)
    return steps, questions


def branch(run: RecordedRun, it: RecordedInterrupt, status: str, prompts: PromptRenderer) -> Branch:
    """The branch ``run`` took at its question ``it`` (Unverifiable: its answer's example
    cannot be built)."""
    steps, questions = after(run, it)
    native = resolution_example(run, it, prompts) if it.translation is not None else None
    example = answer_example(run, it, prompts, native)
    return Branch(run.workflow_id, example, status, steps, questions, native)


def answer_example(
    run: RecordedRun, it: RecordedInterrupt, prompts: PromptRenderer, native: Example | None
) -> Example:
    """The answer ``run`` took at ``it`` as a ``resolution`` example (``native``: the one the
    native export writes; a person's stop, which nothing translates, has none), its answer with
    the ways out it took (``answer_content``)."""
    if native is not None:
        example = native
    elif it.outcome is not None and it.outcome.resolution.resolved_by is ResolvedBy.HUMAN:
        answer = it.outcome.resolution
        job = ReviewInput(
            goal=it.asked.goal, request=it.asked.request, origin_request=it.asked.origin_request
        )
        asking = [c for c in run.calls if c.call.node_id == it.asked.origin_node_id]
        example = Example(
            kind=Kind.RESOLUTION,
            agent_type=str(it.asked.origin),
            schema_name=AgentReviewDecision.__name__,
            prompt=review_messages(prompts, job),
            answer="",
            input=job.to_wire(),
            output=answer.to_wire(),
            workflow_id=run.workflow_id,
            run_id=it.run_id,
            first_run_id=run.first_run_id,
            node_id=it.asked.origin_node_id,
            consumed=[asking[-1].call.result_id] if asking else [],
            produced=[],
            call=None,
            resolved_by=answer.resolved_by,
            answered_by=answer.answered_by,
            door=answer.door.value if answer.door else None,
            interrupt_id=it.interrupt_id,
        )
    else:
        raise Unverifiable("the question was never answered")
    review = ReviewInput.model_validate(example.input)
    answer = InterruptResolution.model_validate(example.output)
    return replace(example, answer=answer_content(review, answer))


def answer_content(job: ReviewInput, answer: InterruptResolution) -> str:
    """An answer as an assistant message: the controller's output shape (AgentReviewDecision),
    and ``continueAt`` / ``stopRun`` when the answer sent the run on elsewhere or stopped it
    (ways out a person has that the reviewer's schema does not offer)."""
    content: dict[str, Any] = decision_of(job, answer).to_wire()
    if answer.continue_at is not None:
        content["continueAt"] = str(answer.continue_at)
    if answer.stop_run is not None:
        content["stopRun"] = answer.stop_run
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def preference_line(
    parent: Branch,
    fork: Branch,
    link: ForkLink,
    metadata: bool,
    scrubber: NameScrubber | None = None,
) -> dict[str, Any] | None:
    """The DPO line of a forked decision (None: no preference); ``scrubber`` takes people's
    names out (``--without-names``)."""
    decided = preferred(parent, fork)
    if decided is None:
        return None
    best, other, rule = decided
    line: dict[str, Any] = {
        "input": {"messages": parent.example.prompt},
        "preferred_output": [{"role": "assistant", "content": best.example.answer}],
        "non_preferred_output": [{"role": "assistant", "content": other.example.answer}],
    }
    if metadata:
        line["metadata"] = {
            "kind": KIND,
            "agentType": parent.example.agent_type,
            "schemaName": parent.example.schema_name,
            "workflowId": parent.workflow_id,
            "runId": parent.example.run_id,
            "interruptId": parent.example.interrupt_id,
            "nodeId": parent.example.node_id,
            "consumedContextIds": parent.example.consumed,
            "preferred": "parent" if best is parent else "fork",
            "decidedBy": rule,
            "parent": _side(parent, best is parent, scrubber),
            "fork": {**_side(fork, best is fork, scrubber), "forkedBy": link.forked_by},
        }
    if scrubber is not None:
        return scrubber.record(line)
    return line


def _side(side: Branch, chosen: bool, scrubber: NameScrubber | None) -> dict[str, Any]:
    example, native = side.example, side.native
    example_id = native and (
        scrubber.example_id(native.messages) if scrubber else native.example_id
    )
    return {
        "workflowId": side.workflow_id,
        "interruptId": example.interrupt_id,
        "exampleId": example_id,
        "preferred": chosen,
        "reachedFinalResult": side.reached_final_result,
        "status": side.status,
        "stepsAfter": side.steps,
        "questionsAfter": side.questions,
        "resolvedBy": example.resolved_by.value if example.resolved_by else None,
        "answeredBy": example.answered_by,
        "door": example.door,
        "model": example.call.model if example.call else None,
    }


# --- selecting the forked decisions and writing them -----------------------------------------


@dataclass(frozen=True)
class Pair:
    parent_id: str
    fork_id: str
    link: ForkLink


async def forked_pairs(client: Client, ids: Sequence[str], query: str | None) -> list[Pair]:
    """The forked decisions of the selected runs: each selected run that is a fork of a
    question, with its parent, and each fork of a selected run; once each, oldest fork first."""
    pairs: dict[str, Pair] = {}
    for ref in await select_runs(client, ids, query):
        link = await fork_link(client, ref.workflow_id)
        if link is not None:
            pairs.setdefault(ref.workflow_id, Pair(link.parent.workflow_id, ref.workflow_id, link))
        for fork_id in await _forks_of(client, ref.workflow_id):
            if fork_id not in pairs and (found := await fork_link(client, fork_id)) is not None:
                pairs[fork_id] = Pair(ref.workflow_id, fork_id, found)
    ordered = sorted(pairs.values(), key=lambda p: (p.link.forked_at, p.fork_id))
    return [p for p in ordered if p.link.point.kind is ForkPointKind.QUESTION]


async def _forks_of(client: Client, workflow_id: str) -> list[str]:
    """The ids of a run's forks (nothing where the namespace lacks the attribute)."""
    query = f"{FORK_OF_ATTRIBUTE} = '{workflow_id.replace(chr(39), '')}'"
    try:
        return [found.id async for found in client.list_workflows(query)]
    except RPCError:
        return []


async def _status(client: Client, workflow_id: str) -> str:
    described = await client.get_workflow_handle(workflow_id).describe()
    return described.status.name if described.status is not None else "?"


async def export_preferences(
    client: Client,
    out: Path,
    *,
    ids: Sequence[str] = (),
    query: str | None = None,
    metadata: bool = False,
    prompts: PromptRenderer | None = None,
    without_names: bool = False,
) -> ExportSummary:
    """Write one DPO line per forked decision of the selected runs (a decision forked twice:
    one line per fork), oldest fork first; a parent is read once for all its forks."""
    prompts = prompts or PromptRenderer()
    scrubber = NameScrubber() if without_names else None
    summary = ExportSummary(files=[out])
    pairs = await forked_pairs(client, ids, query)
    parents: dict[str, RecordedRun] = {}
    read: set[str] = set()
    with out.open("w", encoding="utf-8") as sink:
        for pair in pairs:
            statuses = [await _status(client, i) for i in (pair.parent_id, pair.fork_id)]
            if WorkflowExecutionStatus.RUNNING.name in statuses:
                summary.skipped.setdefault(STILL_RUNNING, []).append(pair.fork_id)
                continue
            try:
                if pair.parent_id not in parents:
                    parents = {pair.parent_id: await read_run(client, pair.parent_id)}
                parent, fork = parents[pair.parent_id], await read_run(client, pair.fork_id)
            except (ValidationError, RPCError):
                summary.skipped.setdefault(OTHER_VERSION, []).append(pair.fork_id)
                continue
            read.update((pair.parent_id, pair.fork_id))
            question = pair.link.point.question_id or ""
            asked = _interrupt(parent, question)
            again = _interrupt(fork, fork_question_id(pair.fork_id, question))
            if asked is None or again is None:
                summary.skipped.setdefault(NOT_FOUND, []).append(pair.fork_id)
                continue
            try:
                sides = (
                    branch(parent, asked, statuses[0], prompts),
                    branch(fork, again, statuses[1], prompts),
                )
            except Unverifiable as why:
                summary.skipped.setdefault(str(why), []).append(pair.fork_id)
                continue
            if scrubber is not None:
                names = names_of_run(parent) | names_of_run(fork) | {pair.link.forked_by or ""}
                scrubber.learn(names | recorded_names(pair.link.to_wire()))
            line = preference_line(*sides, pair.link, metadata, scrubber)
            if line is None:
                summary.skipped.setdefault(NO_PREFERENCE, []).append(pair.fork_id)
                continue
            _write(sink, line)
            summary.written[KIND] += 1
    summary.runs = len(read)
    return summary


def _interrupt(run: RecordedRun, interrupt_id: str) -> RecordedInterrupt | None:
    return next((i for i in run.interrupts if i.interrupt_id == interrupt_id), None)


def _write(sink: IO[str], line: dict[str, Any]) -> None:
    sink.write(json.dumps(line, ensure_ascii=False) + "\n")
