"""A run's code changes, workflow side: a worktree and a real commit per ticket step,
the diffs a review reads, the real merge of the ticket branches with a conflict as the merger's
typed question, and the run branch in the final result.

Claims come from git and the test run: after a ticket agent answers, its ``filesModified``,
``commit``, ``testResults`` and ``verificationStatus`` are replaced by what the commit activity
found; the merger's result carries the real merge. All of it runs only for runs with a workspace
and behind the ``20-code-changes`` patch, so runs recorded before keep their commands.
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic.alias_generators import to_camel
from temporalio import workflow
from temporalio.exceptions import ActivityError

from agent_interrupts.models.agent_call import AgentReply
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.code import (
    MAX_RUN_TICKETS,
    OTHER_FILES,
    CodeCommit,
    CodeState,
    CommitRequest,
    ConflictChoice,
    Diff,
    FileResolution,
    FinishRequest,
    MergeOutcome,
    MergeRequest,
    PrepareRequest,
    ReviewMaterialRequest,
    TestRun,
    TicketBranch,
    TicketChange,
    TicketCommit,
    WorktreeRef,
)
from agent_interrupts.models.errors import AgentFailed, failure_message, failure_type
from agent_interrupts.models.ids import ref_component
from agent_interrupts.models.interrupts import (
    ChoiceOption,
    ConfirmationItem,
    InterruptResolution,
    InterruptType,
    OptionKey,
    StructuredChoice,
)
from agent_interrupts.models.limits import MAX_ANSWER_CHARS, clip
from agent_interrupts.models.policies import (
    CODE_WORK_HEARTBEAT,
    CODE_WORK_RETRY,
    CODE_WORK_TIMEOUT,
)
from agent_interrupts.models.results import (
    CodeChange,
    CommitInfo,
    MergeConflict,
    ReferenceCheck,
    VerificationStatus,
)
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import PendingStep
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import STR_CHARS, TEXT_CHARS
from agent_interrupts.models.team_spec import FILLED_FROM_GIT, Role
from agent_interrupts.teams.software.questions import ConflictFile, MergerInterruptRequest
from agent_interrupts.teams.software.results import (
    MergerResult,
    OrchestratorCollectorResult,
    TicketAgentResult,
)
from agent_interrupts.teams.software.routings import MergerRouting
from agent_interrupts.workflows.patches import (
    CODE_CHANGES,
    GIT_FILLED,
    REVIEW_FINDINGS,
    WORKTREE_LIMIT_ASKS,
)
from agent_interrupts.workflows.run_book import RunBook

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.code_changes import CodeChangeActivities

REVIEW_DIFF_CHARS = 24_000
"""All ticket diffs one review reads; each ticket gets an equal share (at least 2,000)."""
MAX_RESOLVED = 20


def ticket_names(requests: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[str]:
    """The name of each ticket of a fan-out, which names its branch: the model's ``ticketId``
    (its first 100 characters; the agent's key when empty), a repeat as a git ref numbered
    (``T-1``, ``T-1-2``), so no two tickets share a branch or a worktree. A model's ids never
    decide uniqueness; the same fan-out gives the same names each round."""
    taken: set[str] = set()
    names = []
    for request, key in zip(requests, keys, strict=True):
        base = str(request.get("ticketId") or "").strip()[:100] or key
        name, n = base, 1
        while ref_component(name) in taken:
            n += 1
            name = f"{base[:90]}-{n}"
        taken.add(ref_component(name))
        names.append(name)
    return names


async def ticket_step(
    book: RunBook,
    agent: str,
    node_id: str,
    request: dict[str, Any],
    ticket: str,
    call: Callable[..., Awaitable[AgentReply]],
) -> AgentReply:
    """A ticket agent's step at ``node_id`` (for ``request``) in its own worktree on ticket
    ``ticket``'s branch (``ticket_names``), then its real commit (FR-064, FR-066)."""
    state = book.state
    workspace = state.workspace
    if (
        agent not in book.team.write_tools
        or workspace is None
        or not workflow.patched(CODE_CHANGES)
    ):
        return await call()
    try:
        worktree: WorktreeRef = await _git(
            book,
            node_id,
            CodeChangeActivities.prepare_worktree,
            PrepareRequest(
                workspace=workspace,
                run_id=workflow.info().workflow_id,
                ticket_id=ticket,
                node_id=node_id,
            ),
            f"worktree for {ticket}",
            rescuable=WORKTREE_LIMIT,
        )
    except _Rescuable as full:  # the worker's disk holds its limit: a person frees it or stops
        return AgentReply(output={}, route=None, stuck=str(full))
    book.worktree_ready(worktree)
    reply = await call(worktree=worktree)
    if reply.route != "result":
        return reply  # it asked a question: it runs again in a new step
    wire = reply.output["result"]
    declared = isinstance(wire, dict) and "teamAgent" in wire  # a declared team's agent
    result = None if declared else TicketAgentResult.model_validate(wire)
    subject, summary = (
        (result.commit.message or result.implementation_summary, result.implementation_summary)
        if result is not None
        else commit_message(wire, agent, ticket)
    )
    done: TicketCommit = await _git(
        book,
        node_id,
        CodeChangeActivities.commit_ticket,
        CommitRequest(
            worktree=worktree,
            run_id=workflow.info().workflow_id,
            subject=clip(subject, 150),
            summary=clip(summary, 1_500),
            test_command=workspace.test_command,
        ),
        f"commit {ticket}",
    )
    commit = code_commit(done)
    filled = git_filled(book.team, agent, commit) if result is None else {}
    if filled and not workflow.patched(GIT_FILLED):
        filled = {}
    real = (
        with_commit(result, done).to_wire()
        if result is not None
        else {**wire, "codeCommit": commit.to_wire(), **filled}
    )
    planned = request.get("ticket")
    depends = (
        planned.get("dependencies")
        if isinstance(planned, dict)
        else request.get("dependencies")
        if declared
        else None
    )
    book.keep_tickets(
        remember_ticket(
            state.code.tickets,
            TicketBranch(
                ticket_id=ticket,
                branch=done.branch,
                base=done.base_commit,
                head=done.sha or done.base_commit,
                dependencies=[str(d) for d in depends or []][:MAX_RUN_TICKETS],
                verification=verification_line(done.tests),
            ),
        )
    )
    return reply.model_copy(update={"output": {**reply.output, "result": real}})


def commit_message(result: dict[str, Any], agent: str, ticket: str) -> tuple[str, str]:
    """A declared code-writing agent's commit subject and body: its result's ``commitMessage``
    (else its ``summary``, else ``AGENT ticket``) and its ``summary``, when it declares them as
    text."""
    message, summary = result.get("commitMessage"), result.get("summary")
    body = summary.strip() if isinstance(summary, str) else ""
    subject = message.strip() if isinstance(message, str) else ""
    return subject or body or f"{agent} {ticket}", body


def code_commit(done: TicketCommit) -> CodeCommit:
    """A declared code-writing agent's ``codeCommit``: what git and the test run found."""
    tests = done.tests
    return CodeCommit(
        ticket_id=done.ticket_id,
        branch=done.branch,
        base_commit=done.base_commit,
        sha=done.sha,
        files=done.files,
        diff_stat=done.diff.stat,
        verification_status=tests.status if tests is not None else VerificationStatus.PARTIAL,
        verification=verification_line(tests),
        test_results=tests.outcomes if tests is not None else [],
    )


def git_filled(team: Team, agent: str, commit: CodeCommit) -> dict[str, Any]:
    """A declared code-writing agent's ``filled`` result fields that the workflow fills
    (``team_spec.FILLED_FROM_GIT``), by their JSON names, as git and its test run found them."""
    spec = team.spec
    declared = next((a for a in spec.agents if a.name == agent), None) if spec else None
    if declared is None:
        return {}
    chars = {"str": STR_CHARS, "text": TEXT_CHARS}
    values: dict[str, Any] = {
        "files_changed": commit.files,
        "commit_sha": commit.sha or "",
        "branch": commit.branch,
        "diff_stat": commit.diff_stat,
        "tests_passed": commit.verification_status is VerificationStatus.VERIFIED,
        "verification": commit.verification,
    }
    found: dict[str, Any] = {}
    for name, each in declared.result.items():
        if each.filled and name in FILLED_FROM_GIT:
            value = values[name]
            if isinstance(value, str):
                value = clip(value, chars.get(each.type, STR_CHARS))
            found[to_camel(name)] = value
    return found


def with_commit(result: TicketAgentResult, done: TicketCommit) -> TicketAgentResult:
    """The result with every claim about files, tests and the commit taken from git."""
    tests = done.tests
    return result.model_copy(
        update={
            "ticket_id": done.ticket_id,
            "files_modified": done.files,
            "commit": CommitInfo(
                message=result.commit.message, files=done.files, sha=done.sha, branch=done.branch
            ),
            "test_results": tests.outcomes if tests is not None else [],
            "verification_status": tests.status
            if tests is not None
            else VerificationStatus.PARTIAL,
            "diff_stat": done.diff.stat,
            "reference_check": ReferenceCheck(
                commit=done.sha or done.base_commit, checked=len(done.files)
            ),
        }
    )


def remember_ticket(tickets: list[TicketBranch], branch: TicketBranch) -> list[TicketBranch]:
    """The tickets with ``branch`` as its ticket's newest head, in the order tickets were first
    done (bounded)."""
    kept = [t for t in tickets if t.ticket_id != branch.ticket_id]
    place = next((i for i, t in enumerate(tickets) if t.ticket_id == branch.ticket_id), None)
    kept.insert(len(kept) if place is None else place, branch)
    return kept[-MAX_RUN_TICKETS:]


def verification_line(tests: TestRun | None) -> str:
    if tests is None:
        return "not run"
    if tests.problem is not None:
        return f"{tests.status.value}: {clip(tests.problem, 300)}"
    return f"{tests.status.value}: {tests.passed} passed, {tests.failed} failed ({tests.command})"


def merge_order(tickets: list[TicketBranch]) -> list[TicketBranch]:
    """Dependencies first; otherwise the order the tickets were done (ties keep it)."""
    left = list(tickets)
    ids = {t.ticket_id for t in tickets}
    done: list[TicketBranch] = []
    while left:
        merged = {t.ticket_id for t in done}
        ready = next(
            (t for t in left if all(d in merged or d not in ids for d in t.dependencies)),
            left[0],  # a cycle: take the first, git decides
        )
        done.append(ready)
        left.remove(ready)
    return done


@dataclass
class Prepared:
    """What a review or merger step gets from git before (and applies after) its agent call."""

    request: dict[str, Any]
    question: dict[str, Any] | None = None
    merge: MergeOutcome | None = None
    changes: list[TicketChange] = field(default_factory=list)


async def before_call(
    book: RunBook,
    agent: str,
    node_id: str,
    request: dict[str, Any],
    step: PendingStep,
    output_id: str,
    upstream: list[str],
) -> Prepared:
    """Review: the tickets' diffs in its request. Merger: the real merge first; a conflict
    becomes its typed question (US39), else the merge report goes in its request."""
    state = book.state
    code = state.code
    workspace = state.workspace
    role = book.team.role(agent)
    if workspace is None or not code.tickets or role not in (Role.REVIEWER, Role.MERGER):
        return Prepared(request)
    if role is Role.REVIEWER:
        limit = max(2_000, REVIEW_DIFF_CHARS // len(code.tickets))
        changes: list[TicketChange] = await _git(
            book,
            node_id,
            CodeChangeActivities.review_material,
            ReviewMaterialRequest(workspace=workspace, tickets=code.tickets, diff_chars=limit),
            "diffs for review",
        )
        wire = [c.to_wire() for c in changes]
        return Prepared({**request, "ticketChanges": wire}, changes=changes)
    code = book.merge_answered(take_answer(code, step.resolution))
    outcome: MergeOutcome = await _git(
        book,
        node_id,
        CodeChangeActivities.merge_tickets,
        MergeRequest(
            run_id=workflow.info().workflow_id,
            repository=code.repository,
            base_commit=workspace.commit,
            tickets=merge_order(code.tickets),
            resolutions=code.resolutions,
            test_command=workspace.test_command,
        ),
        f"merge {len(code.tickets)} ticket branches",
    )
    book.merged(outcome)
    if outcome.conflict_ticket is not None:
        question = conflict_question(outcome, output_id, upstream)
        output_model = book.team.node(agent).output_model
        if not issubclass(output_model, MergerRouting):  # a declared merger: in its own form
            question = in_form_of(output_model, question)
        return Prepared(request, question=question)
    return Prepared({**request, "mergeReport": outcome.to_wire()}, merge=outcome)


def after_call(prepared: Prepared, code: CodeState, payload: dict[str, Any]) -> dict[str, Any]:
    """The agent's output with the real merge, and its review findings checked against the
    diffs it read."""
    declared = payload.get("result")
    if prepared.merge is not None and isinstance(declared, dict) and "teamAgent" in declared:
        change = code_change(prepared.merge).to_wire()
        return {**payload, "result": {**declared, "codeChange": change}}
    if prepared.merge is not None and isinstance(payload.get("mergerResult"), dict):
        result = MergerResult.model_validate(payload["mergerResult"])
        outcome = prepared.merge
        failed = outcome.tests is not None and outcome.tests.status is VerificationStatus.FAILED
        real = result.model_copy(
            update={
                "acceptable": not failed,
                "conflicts": list(code.resolved),
                "code_change": code_change(outcome),
            }
        )
        return {**payload, "mergerResult": real.to_wire()}
    if prepared.changes and isinstance(review := payload.get("reviewResult"), dict):
        for finding in review.get("findings") or []:
            finding["valid"] = finding_is_in(prepared.changes, finding)
    if prepared.changes and isinstance(declared, dict) and "teamAgent" in declared:
        findings = checkable_findings(declared)
        if findings and workflow.patched(REVIEW_FINDINGS):
            for finding in findings:
                finding["valid"] = finding_is_in(prepared.changes, finding)
    return payload


def checkable_findings(result: dict[str, Any]) -> list[dict[str, Any]]:
    """A declared reviewer's findings that name files, as the software review's do: the
    records of its result's lists with a ``path`` (and ``startLine`` / ``endLine``) and a
    ``filled`` ``valid`` flag, which the workflow sets against the diffs the reviewer read."""
    return [
        item
        for value in result.values()
        if isinstance(value, list)
        for item in value
        if isinstance(item, dict) and isinstance(item.get("path"), str) and "valid" in item
    ]


def finding_is_in(changes: list[TicketChange], finding: dict[str, Any]) -> bool:
    """Whether a finding's path is a changed file and its lines touch a hunk of that file's diff
    (any lines, when the file's diff was cut away)."""
    path = str(finding.get("path", ""))
    start, end = finding.get("startLine"), finding.get("endLine")
    for change in changes:
        if path not in change.diff.files:
            continue
        hunks = hunk_ranges(change.diff, path)
        if hunks is None:
            return True
        if not isinstance(start, int) or not isinstance(end, int):
            continue
        if any(start <= last and end >= first for first, last in hunks):
            return True
    return False


def hunk_ranges(diff: Diff, path: str) -> list[tuple[int, int]] | None:
    """New-side line ranges of ``path``'s hunks in the diff text; None: the file is not shown."""
    header = f"diff --git a/{path} b/{path}\n"
    if header not in diff.text:
        return None
    section = diff.text.split(header, 1)[1].split("\ndiff --git ", 1)[0]
    ranges = []
    for line in section.splitlines():
        if line.startswith("@@ "):
            new = line.split(" ")[2].lstrip("+")
            first, _, count = new.partition(",")
            n = int(count) if count else 1
            ranges.append((int(first), int(first) + max(n, 1) - 1))
    return ranges


def take_answer(code: CodeState, answer: InterruptResolution | None) -> CodeState:
    """The run's code once a person's answer to the conflict question became the ticket's file
    resolutions (a declined confirmation leaves the ticket out of the merge); ``code`` itself
    when no conflict question was answered."""
    asked = code.asked
    if asked is None or answer is None:
        return code
    if any(not answer.confirmations.get(f"merge-{i}", True) for i in range(len(asked.paths))):
        left_out = [
            MergeConflict(
                path=p,
                description=f"{asked.ticket_id} conflicts with the run branch",
                resolution_guidance="a person left the ticket out of the merge",
            )
            for p in asked.paths
        ]
        return code.model_copy(
            update={
                "asked": None,
                "tickets": [t for t in code.tickets if t.ticket_id != asked.ticket_id],
                "resolved": [*code.resolved, *left_out][-MAX_RESOLVED:],
            }
        )
    resolutions = []
    for index, path in enumerate(asked.paths):
        choice_id = f"file-{index + 1}"
        key = answer.selected_choices.get(choice_id, OptionKey.A)
        written = answer.custom_inputs.get(choice_id)
        if key is OptionKey.CUSTOM and written is not None:
            resolution = FileResolution(
                path=path, choice=ConflictChoice.CONTENT, content=_as_file(written)
            )
        elif key is OptionKey.B:
            resolution = FileResolution(path=path, choice=ConflictChoice.THEIRS)
        else:
            resolution = FileResolution(path=path, choice=ConflictChoice.OURS)
        resolutions.append(resolution)
    if asked.more and resolutions:  # the last choice covers the files not shown
        last = resolutions[-1].choice
        rest = ConflictChoice.THEIRS if last is ConflictChoice.THEIRS else ConflictChoice.OURS
        resolutions.append(FileResolution(path=OTHER_FILES, choice=rest))
    chosen = [
        MergeConflict(
            path=r.path,
            description=f"{asked.ticket_id} conflicts with the run branch",
            resolution_guidance=f"a person chose {_CHOSEN[r.choice]}",
        )
        for r in resolutions
    ]
    return code.model_copy(
        update={
            "asked": None,
            "resolutions": {**code.resolutions, asked.ticket_id: resolutions},
            "resolved": [*code.resolved, *chosen][-MAX_RESOLVED:],
        }
    )


def _as_file(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


_CHOSEN = {
    ConflictChoice.OURS: "the run branch's version",
    ConflictChoice.THEIRS: "the ticket's version",
    ConflictChoice.CONTENT: "their own content (write-in)",
}


def conflict_question(outcome: MergeOutcome, output_id: str, upstream: list[str]) -> dict[str, Any]:
    """The merger's typed question for a conflicting ticket (US39): per file its diff summary
    and both sides, choices ours / theirs / a write-in of the file, and a confirmation each."""
    ticket = outcome.conflict_ticket or ""
    sides = outcome.conflicts
    more = max(outcome.conflict_count - len(sides), 0)
    choices = []
    for index, side in enumerate(sides):
        last = more and index == len(sides) - 1
        files = f"{side.path} (and the {more} other conflicting files)" if last else side.path
        choices.append(
            StructuredChoice(
                choice_id=f"file-{index + 1}",
                question=f"How should {files} be resolved when {ticket} merges?",
                context=clip(
                    f"{side.diff_summary}.\nRun branch:\n{side.ours}\n{ticket}:\n{side.theirs}",
                    3_000,
                ),
                options=[
                    ChoiceOption(
                        key=OptionKey.A, description="Keep the run branch's version (ours)"
                    ),
                    ChoiceOption(key=OptionKey.B, description=f"Take {ticket}'s version (theirs)"),
                    ChoiceOption(
                        key=OptionKey.CUSTOM,
                        description="Or provide your own approach",
                    ),
                ],
                recommended=OptionKey.A,
            )
        )
    confirmations = [
        ConfirmationItem(
            confirmation_id=f"merge-{index}",
            statement=f"Merge {ticket} with {side.path} resolved as chosen",
            context=f"{side.path} is changed by {ticket} and by a ticket merged before it; the "
            "tests run on the merged branch afterwards.",
            default_value=True,
            impact_if_no=f"{ticket} is left out of the run branch.",
        )
        for index, side in enumerate(sides)
    ]
    merged = ", ".join(outcome.merged) or "no ticket yet"
    question = MergerInterruptRequest(
        type=InterruptType.HUMAN_REVIEW,
        reason=f"Merging {ticket} into {outcome.run_branch} conflicts in "
        f"{outcome.conflict_count} file(s); "
        "a wrong pick would drop one ticket's change.",
        choices=choices,
        confirmation_items=confirmations,
        context_for_decision=clip(
            f"Merged so far: {merged}. A write-in (CUSTOM) is the file's whole resolved content "
            f"(at most {MAX_ANSWER_CHARS:,} characters)"
            + (
                f"; the {more} files not shown keep the run branch's version unless the last "
                "choice takes the ticket's (B)."
                if more
                else "."
            )
            + f"\nDiff of the run branch so far:\n{outcome.diff.stat}",
            4_000,
        ),
        conflict_files=[ConflictFile(path=s.path, diff_summary=s.diff_summary) for s in sides],
        resolution_strategies=[
            "keep the run branch's version (ours)",
            f"take {ticket}'s version (theirs)",
            "write the resolved file (manual)",
        ],
        merge_approach=f"Merge the ticket branches in dependency order with git; {ticket} "
        "conflicts, so its merge waits for this answer and the tests run on the result.",
    )
    result = MergerResult(
        acceptable=False,
        summary=f"{ticket} conflicts with the run branch in {outcome.conflict_count} file(s)",
        conflicts=[
            MergeConflict(
                path=s.path,
                description=s.diff_summary,
                resolution_guidance="keep ours, take theirs, or write the file",
            )
            for s in sides
        ],
        result_id=output_id,
        upstream_context_ids=upstream,
    )
    return MergerRouting(merger_result=result, interrupt_request=question).to_wire()


def in_form_of(output_model: type[Routing], asked: dict[str, Any]) -> dict[str, Any]:
    """The merge-conflict question (``conflict_question``'s) as a declared merger's own output:
    its result and its question keep the fields they share with the software merger's (the
    reason, choices, confirmations, ids), their declared fields blank (``""``, ``[]``, 0, false,
    an enum's first name)."""
    fields = output_model.model_fields
    out: dict[str, Any] = dict.fromkeys(output_model.route_aliases())
    out["result"] = _kept(fields["result"].annotation, asked["mergerResult"])
    question = {k: v for k, v in asked["interruptRequest"].items() if k != "origin"}
    out["interruptRequest"] = _kept(fields["interrupt_request"].annotation, question)
    return out


def _kept(annotation: Any, carried: dict[str, Any]) -> dict[str, Any]:
    """``carried``'s keys that the model of ``annotation`` (``Model | None`` too) has, and a
    blank for each of its required fields ``carried`` lacks."""
    model: type[WireModel] = next(
        a
        for a in (annotation, *typing.get_args(annotation))
        if isinstance(a, type) and issubclass(a, WireModel)
    )
    out: dict[str, Any] = {}
    for name, each in model.model_fields.items():
        key = each.alias or name
        if key in carried:
            out[key] = carried[key]
        elif each.is_required():
            out[key] = _blank(each.annotation)
    return out


def _blank(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return typing.get_args(annotation)[0]
    kind = origin or annotation
    blanks: dict[Any, Any] = {str: "", list: [], bool: False, int: 0, float: 0.0}
    return blanks.get(kind)


def code_change(outcome: MergeOutcome) -> CodeChange:
    return CodeChange(
        run_branch=outcome.run_branch,
        repository=outcome.repository,
        head=outcome.head,
        merged_tickets=outcome.merged,
        commits=outcome.commits,
        diff_stat=outcome.diff.stat,
        checkout=outcome.checkout,
        verification=verification_line(outcome.tests) if outcome.tests else None,
        pushed_to=outcome.pushed_to,
    )


async def finish(book: RunBook, final: OrchestratorCollectorResult) -> OrchestratorCollectorResult:
    """At the end: the run branch in the final result, and the run's worktrees removed (a failed
    run keeps them, and its status lists their paths)."""
    change = await finish_code(book)
    if change is None:
        return final
    return final.model_copy(update={"code_change": change})


async def finish_code(book: RunBook) -> CodeChange | None:
    """At the end of any team's run: the run's worktrees removed (a failed run keeps them, and
    its status lists their paths); the run branch, when its code-writing agents' branches were
    merged."""
    state = book.state
    code = state.code
    if state.workspace is None or not code.worktrees:
        return None
    await _git(
        book,
        None,
        CodeChangeActivities.finish_code,
        FinishRequest(workspace=state.workspace, run_id=workflow.info().workflow_id),
        "remove worktrees",
    )
    book.worktrees_removed()
    return code_change(code.merge) if code.merge is not None else None


WORKTREE_LIMIT = "WorktreeLimit"
"""``activities.tools.gitwork.WorktreeLimit``, by name: a ticket step that finds the worker's
worktrees at ``AGENT_WORKTREES`` asks a person (free some, raise it, or stop) instead of failing."""


class _Rescuable(Exception):
    """A git activity's failure a person can rescue at the step (its message says how)."""


async def _git(
    book: RunBook,
    node_id: str | None,
    method: Any,
    arg: Any,
    summary: str,
    *,
    rescuable: str | None = None,
) -> Any:
    """One git activity; its failure ends the run with the activity's message, unless it is of
    the ``rescuable`` type (raised as ``_Rescuable``)."""
    try:
        return await workflow.execute_activity_method(
            method,
            arg,
            start_to_close_timeout=CODE_WORK_TIMEOUT,
            heartbeat_timeout=CODE_WORK_HEARTBEAT,
            retry_policy=CODE_WORK_RETRY,
            summary=clip(summary, 150),
        )
    except ActivityError as err:
        if workflow.cancellation_reason() is not None:
            raise
        if (
            rescuable is not None
            and failure_type(err) == rescuable
            and workflow.patched(WORKTREE_LIMIT_ASKS)
        ):
            raise _Rescuable(f"{summary} failed: {failure_message(err)}") from None
        book.fail(AgentFailed(f"{summary} failed: {failure_message(err)}"), node_id)
