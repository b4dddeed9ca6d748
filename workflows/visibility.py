"""What a person sees of a run in Temporal's visibility and UI.

Search attributes: ``AgentPhase`` on the orchestrator, ``InterruptState`` and ``InterruptOrigin``
on each InterruptWorkflow, all Keyword. Upserting an attribute the namespace does not know fails
the workflow task, so the workflows upsert only attributes they were *started* with or learnt the
namespace has: our client sets them at start when the namespace has them registered (recorded in
the start event); a run started by any other client asks once, by a local activity whose result
is recorded, and sets ``AgentPhase`` itself (``claim_attributes``); the orchestrator passes them
on to its interrupts.

Current details (``workflow.set_current_details``) are markdown the UI shows on the workflow's
page: the waiting question with ready-to-paste answers, or what the orchestrator is doing.
Every function here is pure or only touches workflow APIs (no I/O, no environment).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.common import (
    RetryPolicy,
    SearchAttributeKey,
    SearchAttributePair,
    TypedSearchAttributes,
)
from temporalio.exceptions import ActivityError

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.forks import FORK_OF_ATTRIBUTE
from agent_interrupts.models.interrupt_flow import InterruptInput, InterruptState
from agent_interrupts.models.interrupts import InterruptRequestBase, InterruptType
from agent_interrupts.models.limits import SERVER_PAYLOAD_BYTES
from agent_interrupts.models.policies import SEARCH_ATTRIBUTES_TIMEOUT
from agent_interrupts.models.resolution_rules import redirect_targets, suggested_answer
from agent_interrupts.models.state import NodeRef, PendingInterrupt
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import team_of
from agent_interrupts.workflows.patches import OWN_ATTRIBUTES

AGENT_PHASE = SearchAttributeKey.for_keyword("AgentPhase")
INTERRUPT_STATE = SearchAttributeKey.for_keyword("InterruptState")
INTERRUPT_ORIGIN = SearchAttributeKey.for_keyword("InterruptOrigin")
KEYS: tuple[SearchAttributeKey[str], ...] = (AGENT_PHASE, INTERRUPT_STATE, INTERRUPT_ORIGIN)
AGENT_FORK_OF = SearchAttributeKey.for_keyword(FORK_OF_ATTRIBUTE)
"""A fork's parent's workflow id, set by its starter (``docs/forks.md``). Registered with the
others, but not among ``KEYS``: a namespace without it still lists runs and questions (only
``agents forks`` needs it), and the runs recorded before read the same verdict."""
REGISTERED: tuple[SearchAttributeKey[str], ...] = (*KEYS, AGENT_FORK_OF)
"""Every attribute the local stack and ``create_commands`` register."""

DETAILS_BYTES = 16_000
"""UI markdown stays under Temporal's 20,000-byte limit on user-metadata details
(``limit.userMetadataDetailsSize``); a command over it is refused and the workflow task fails."""
_CUT = "\n\n... (cut to fit the UI; the whole question is in the interrupt's `status` query)"
_MARKUP = re.compile(r"([\\`*_\[\]<>#|~&])")
"""Characters that make markdown or HTML of a text: emphasis, code, links, tags, entities."""
_LINE_MARKUP = re.compile(r"^([ \t]*)([-+=]|\d+(?=[.)]))", re.M)
"""A list item, setext underline or numbered item at the start of a line."""

WAITING = "WAITING"
ESCALATED = "ESCALATED"
RESOLVED = "RESOLVED"
TIMED_OUT = "TIMED_OUT"
HANDED_OVER = "HANDED_OVER"
INTERRUPT_STATES = (WAITING, ESCALATED, RESOLVED, TIMED_OUT, HANDED_OVER)


REPORTED_PROBLEMS_AFTER = 2
"""Failed workflow tasks in a row after which the server marks an execution with
``TemporalReportedProblems`` (``app/stuck.py``: runs a deploy cannot replay)."""


def dev_server_args() -> list[str]:
    """``temporal server start-dev`` flags that register the search attributes, make the
    server mark executions whose workflow tasks keep failing, and raise its payload limit to
    ``SERVER_PAYLOAD_BYTES`` (so the workflows refuse, in one line, an oversized update of up to
    that size from any client, instead of failing workflow tasks on it)."""
    args: list[str] = []
    for key in REGISTERED:
        args += ["--search-attribute", f"{key.name}=Keyword"]
    return [
        *args,
        "--dynamic-config-value",
        "system.numConsecutiveWorkflowTaskProblemsToTriggerSearchAttribute="
        f"{REPORTED_PROBLEMS_AFTER}",
        "--dynamic-config-value",
        f"limit.blobSize.error={SERVER_PAYLOAD_BYTES}",
    ]


def create_commands(namespace: str = "default") -> list[str]:
    """The ``temporal operator`` commands that register the attributes on a cluster."""
    return [
        f"temporal operator search-attribute create --namespace {namespace} "
        f"--name {key.name} --type Keyword"
        for key in REGISTERED
    ]


def missing(registered: dict[str, int]) -> list[str]:
    """Our attributes that ``registered`` (name -> IndexedValueType) lacks as Keyword."""
    keyword = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    return missing_keywords(name for name, kind in registered.items() if kind == keyword)


def missing_keywords(keywords: Iterable[str]) -> list[str]:
    """Our attributes that are not among the namespace's Keyword attributes ``keywords``."""
    have = set(keywords)
    return [key.name for key in KEYS if key.name not in have]


def initial_orchestrator_attributes(phase: str) -> TypedSearchAttributes:
    """What the client starts an orchestrator with when the namespace knows the attributes."""
    return TypedSearchAttributes([SearchAttributePair(AGENT_PHASE, phase)])


def interrupt_state_value(state: InterruptState | str, request_type: InterruptType) -> str:
    """The ``InterruptState`` search-attribute value for the handler's state.

    REQUESTED is the moment before the wait starts: WAITING for a person's question, ESCALATED
    for an AGENT_REVIEW one (a reviewing LLM answers it).
    """
    value = str(state)
    if value == InterruptState.REQUESTED:
        return ESCALATED if request_type is InterruptType.AGENT_REVIEW else WAITING
    return value if value in INTERRUPT_STATES else WAITING


def child_attributes(job: InterruptInput) -> TypedSearchAttributes | None:
    """The interrupt's start attributes: set only when the orchestrator itself has them."""
    if workflow.info().typed_search_attributes.get(AGENT_PHASE) is None:
        return None
    state = interrupt_state_value(InterruptState.REQUESTED, job.request.type)
    return TypedSearchAttributes(
        [
            SearchAttributePair(INTERRUPT_STATE, state),
            SearchAttributePair(INTERRUPT_ORIGIN, str(job.origin)),
        ]
    )


LIST_SEARCH_ATTRIBUTES = "list_keyword_search_attributes"
"""``activities.search_attributes``'s local activity, by name."""


async def claim_attributes(phase: str) -> str | None:
    """A run started without ``AgentPhase`` (by the Temporal UI, ``temporal workflow start``,
    another language's SDK) sets it when its namespace has our attributes, so its questions are
    listed like any other run's; says why not otherwise (workflow code; None: nothing to say)."""
    if workflow.info().typed_search_attributes.get(AGENT_PHASE) is not None:
        return None
    if not workflow.patched(OWN_ATTRIBUTES):
        return None
    try:
        registered = await workflow.execute_local_activity(
            LIST_SEARCH_ATTRIBUTES,
            result_type=list[str],
            start_to_close_timeout=SEARCH_ATTRIBUTES_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=1),
        )
    except ActivityError as err:
        return f"the namespace's search attributes could not be listed ({err.cause or err})"
    except ValueError:  # a worker built without the activity (a test's, a user's own)
        return f"this worker does not register the activity {LIST_SEARCH_ATTRIBUTES}"
    lacking = missing_keywords(registered)
    if lacking:
        return f"the namespace lacks the search attributes {', '.join(lacking)}"
    workflow.upsert_search_attributes([AGENT_PHASE.value_set(phase)])
    return None


def upsert_phase(phase: str) -> None:
    """Set ``AgentPhase`` when it changed and the run was started with it (workflow code)."""
    current = workflow.info().typed_search_attributes.get(AGENT_PHASE)
    if current is not None and current != phase:
        workflow.upsert_search_attributes([AGENT_PHASE.value_set(phase)])


def show_orchestrator(
    phase: str, current: NodeRef | None, pending: PendingInterrupt | None
) -> None:
    """Upsert the phase and set the orchestrator's current details (workflow code)."""
    upsert_phase(phase)
    workflow.set_current_details(orchestrator_details(phase, current, pending))


def orchestrator_details(
    phase: str, current: NodeRef | None, pending: PendingInterrupt | None
) -> str:
    """One paragraph: waiting for an answer to <interrupt id>, or the running node."""
    if pending is not None:
        return (
            f"**Waiting for an answer** to `{pending.workflow_id}` "
            f"({pending.origin_agent_type} asked).\n\n"
            f"Open that workflow to read the question and answer it."
        )
    if current is not None:
        return f"**Phase {phase}**: running `{current.node_id}` ({current.agent_type})."
    return f"**Phase {phase}**."


def show_interrupt(
    job: InterruptInput, state: InterruptState | str, interrupt_id: str, now: datetime
) -> None:
    """Upsert ``InterruptState`` (when started with it) and set the current details."""
    value = interrupt_state_value(state, job.request.type)
    known = workflow.info().typed_search_attributes.get(INTERRUPT_STATE)
    if known is not None and known != value:
        workflow.upsert_search_attributes([INTERRUPT_STATE.value_set(value)])
    deadline = (
        now + timedelta(seconds=job.timeout_seconds)
        if job.timeout_seconds and value == WAITING
        else None
    )
    workflow.set_current_details(interrupt_details(interrupt_id, job, value, deadline))


def interrupt_details(
    interrupt_id: str, job: InterruptInput, state: str, deadline: datetime | None
) -> str:
    """The UI's current details: while WAITING the question and answers ready to paste."""
    if state != WAITING:
        return f"**{state}**: {job.origin}'s question ({job.request.type})."
    lines = [f"**WAITING for a person** to answer {job.origin}'s question."]
    if deadline is not None:
        lines.append(f"Deadline {deadline:%Y-%m-%d %H:%M:%S} UTC, then: {job.on_timeout}.")
    lines += ["", question_markdown(job.origin, job.request)]
    lines += ["", answer_markdown(interrupt_id, job.origin, job.request, team_of(job.team))]
    return fit_details("\n".join(lines))


def fit_details(text: str, budget: int = DETAILS_BYTES) -> str:
    """``text``, cut so that its JSON encoding takes at most ``budget`` bytes."""
    if _encoded(text) <= budget:
        return text
    room = budget - _encoded(_CUT)
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits
        middle = (low + high + 1) // 2
        low, high = (middle, high) if _encoded(text[:middle]) <= room else (low, middle - 1)
    return text[:low] + _CUT


def _encoded(text: str) -> int:
    return len(json.dumps(text))


def question_markdown(origin: str, request: InterruptRequestBase) -> str:
    """The question as markdown: reason, context, each choice with one bullet per option.
    What a model wrote is ``as_text``: a tag or a link in it shows as written."""
    reason = as_text(request.reason)
    lines = [f"### {origin} needs a decision ({request.type})", "", f"**Reason:** {reason}"]
    if request.context_for_decision:
        lines += ["", f"**Context:** {as_text(request.context_for_decision)}"]
    lines += typed_fields(request)
    for question in getattr(request, "agent_questions", ()):
        asked = question.request
        lines += [
            "",
            f"#### {question.agent_key} ({asked.origin}) asks: {as_text(asked.reason)}",
        ]
        lines += typed_fields(asked)
    for choice in request.choices:
        lines += ["", f"**Choice {code_span(choice.choice_id)}:** {as_text(choice.question)}"]
        if choice.context:
            lines += ["", f"_{as_text(choice.context)}_"]
        lines.append("")
        for option in choice.options:
            mark = " **(recommended)**" if option.key == choice.recommended else ""
            lines.append(f"- **{option.key}**: {as_text(option.description)}{mark}")
    for item in request.confirmation_items:
        default = "yes" if item.default_value else "no"
        lines += [
            "",
            f"**Confirm {code_span(item.confirmation_id)}:** {as_text(item.statement)}",
            "",
            f"- default **{default}**; if no: {as_text(item.impact_if_no)}",
        ]
    return "\n".join(lines)


def as_text(text: str) -> str:
    """Model-written ``text`` as markdown that shows it as written: every character that would
    make emphasis, code, a link, an HTML tag or entity, a heading or a list is escaped."""
    return _LINE_MARKUP.sub(_escape_line_start, _MARKUP.sub(r"\\\1", text))


def code_span(text: str) -> str:
    """``text`` as one markdown code span, whatever backticks it holds (a model names ids)."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def _escape_line_start(found: re.Match[str]) -> str:
    indent, mark = found[1], found[2]
    return f"{indent}\\{mark}" if not mark[0].isdigit() else f"{indent}{mark}\\"


def typed_fields(request: InterruptRequestBase) -> list[str]:
    """The agent-specific fields of ``request`` (US24-US41), one markdown block each."""
    lines: list[str] = []
    for label, value in typed_values(request):
        if isinstance(value, list):
            lines += ["", f"**{label}:**", "", *(f"- {as_text(v)}" for v in value)]
        else:
            lines += ["", f"**{label}:** {as_text(value)}"]
    return lines


def typed_values(request: InterruptRequestBase) -> list[tuple[str, str | list[str]]]:
    """The agent-specific fields of ``request`` as (label, text), a list field one text per item."""
    values: list[tuple[str, str | list[str]]] = []
    for name, field in type(request).model_fields.items():
        if name in _NOT_TYPED:
            continue
        value = getattr(request, name)
        label = field.alias or name
        values.append(
            (label, [_item(v) for v in value] if isinstance(value, list) else _item(value))
        )
    for label, value in (request.model_extra or {}).items():  # a declared team's typed fields
        if label in _NOT_TYPED_WIRE:
            continue
        values.append(
            (label, [_item(v) for v in value] if isinstance(value, list) else _item(value))
        )
    return values


_NOT_TYPED = {*InterruptRequestBase.model_fields, "origin", "agent_questions"}
_NOT_TYPED_WIRE = {
    *(f.alias or n for n, f in InterruptRequestBase.model_fields.items()),
    "origin",
    "agentQuestions",
}


def _item(value: object, nested: bool = False) -> str:
    """A field's value as one line: a record as ``key: value; ...``, a record inside a record
    (a declared team's ``[types]``) in parentheses, so ``edges: (source: a; target: b), (...)``
    reads as two edges."""
    if isinstance(value, WireModel):
        value = value.to_wire()
    if isinstance(value, dict):
        text = "; ".join(f"{k}: {_item(v, True)}" for k, v in value.items())
        return f"({text})" if nested else text
    if isinstance(value, list):
        return ", ".join(_item(v, True) for v in value) or "none"
    return str(value)


def offered_options(request: InterruptRequestBase) -> str:
    """Each choice's options, as `` (`approach`: A, B or CUSTOM with a text in
    `customInputs`)``; empty for a question without choices."""
    offered = []
    for choice in request.choices:
        keys = [option.key.value for option in choice.options]
        listed = ", ".join(keys[:-1]) + f" or {keys[-1]}" if len(keys) > 1 else "".join(keys)
        offered.append(f"{code_span(choice.choice_id)}: {listed}")
    if not offered:
        return ""
    custom = any(option.key.value == "CUSTOM" for c in request.choices for option in c.options)
    return f" ({'; '.join(offered)}{' with a text in `customInputs`' if custom else ''})"


def answer_markdown(
    interrupt_id: str, origin: str, request: InterruptRequestBase, team: Team
) -> str:
    """How to answer from the UI (update or signal), with JSON to paste, how to stop the run or
    send it elsewhere, and from a shell."""
    answer = json.dumps(suggested_answer(request), indent=2)
    return "\n".join(
        [
            "### How to answer",
            "",
            "In the UI: **Send an Update** named `resolve_validated` (a wrong answer is refused "
            "with the reason), or **Send a Signal** named `resolve` (a wrong answer is recorded "
            "as a warning and the question keeps waiting). Paste this input and edit it"
            f"{offered_options(request)}:",
            "",
            "```json",
            answer,
            "```",
            "",
            'To stop the run instead: `{"stopRun": "your reason"}`.'
            + (
                ' To send it on to another agent once answered, add `"continueAt"`: '
                + ", ".join(f"`{t}`" for t in targets)
                + "."
                if (targets := redirect_targets(origin, team))
                else ""
            ),
            "",
            "From a shell:",
            "",
            "```",
            f"agents resolve {interrupt_id}",
            "```",
        ]
    )
