"""The state a run held at one of its past questions, recovered for a fork (``docs/forks.md``).

The run of the parent's chain that asked the question is read (its history only: its start
input holds what the run before carried) and replayed with the workflow's own code, cut after
the question's InterruptWorkflow started and ended there by a synthetic *handed over*: the run
then does what it does when its history grows long while a question waits, and continues as
new with ``blackboard.carried(state)`` and the question in ``handedOver``. A workflow
interceptor keeps that continue-as-new input; nothing reaches the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from temporalio.api.enums.v1 import EventType, RetryState
from temporalio.api.failure.v1 import ApplicationFailureInfo, Failure
from temporalio.api.history.v1 import (
    ChildWorkflowExecutionFailedEventAttributes,
    HistoryEvent,
    WorkflowTaskScheduledEventAttributes,
    WorkflowTaskStartedEventAttributes,
)
from temporalio.client import Client, WorkflowHistory
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import (
    ContinueAsNewInput,
    Interceptor,
    Replayer,
    UnsandboxedWorkflowRunner,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)

from agent_interrupts.activities.teams import PinnedTeamReader
from agent_interrupts.models.errors import ForkRefused
from agent_interrupts.models.forks import ForkParent
from agent_interrupts.models.interrupt_flow import HANDED_OVER, InterruptInput
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.limits import clip
from agent_interrupts.models.resolution_rules import redirect_problem, resolution_problems
from agent_interrupts.models.state import HandedOverQuestion, OrchestratorInput
from agent_interrupts.models.team_build import remember, team_of

QUESTION_MARK = "-interrupt-"
"""What a question's id holds between its run's id and its number."""


@dataclass(frozen=True)
class StateAtQuestion:
    """A parent's state at one of its questions: what its fork starts from."""

    parent: ForkParent
    start: OrchestratorInput
    """The parent's start input, ``carriedState`` set to its state at the question."""
    question: InterruptInput
    """The question as its InterruptWorkflow was started."""


def fork_question_id(fork_id: str, question_id: str) -> str:
    """The question's id in the fork: the fork's id, the same number."""
    number = question_id.rpartition(QUESTION_MARK)[2]
    return f"{fork_id}{QUESTION_MARK}{number}"


def asked_in_fork(state: StateAtQuestion, fork_id: str) -> OrchestratorInput:
    """The fork's start input: the parent's, its state's question asked again under the fork's
    id (a fresh wait, its own deadline); the link is set by the caller."""
    carried = state.start.carried_state
    if carried is None:  # cannot be: ``state_at_question`` refuses it
        raise ForkRefused("the parent's state at the question was not recovered")

    def moved(question: HandedOverQuestion) -> HandedOverQuestion:
        job = InterruptInput.model_validate(question.job)
        job = job.model_copy(update={"orchestrator_id": fork_id, "carried": None})
        return question.model_copy(
            update={
                "child_id": fork_question_id(fork_id, question.child_id),
                "job": job.to_wire(),
            }
        )

    moved_state = carried.model_copy(
        update={
            "handed_over": moved(carried.handed_over) if carried.handed_over else None,
            "open_questions": [moved(q) for q in carried.open_questions],
            "pending_interrupt": None,
        }
    )
    return state.start.model_copy(update={"carried_state": moved_state})


async def state_at_question(client: Client, workflow_id: str, question_id: str) -> StateAtQuestion:
    """The parent ``workflow_id``'s state when it asked ``question_id``; ForkRefused (one line)
    when the run or the question is not there, or the history cannot be replayed."""
    run_id, events = await _run_that_asked(client, workflow_id, question_id)
    cut, question = await _cut_at(client, events, question_id)
    history = WorkflowHistory(workflow_id, cut)
    start = await _replayed_handover(client, history, question_id)
    carried = start.carried_state
    asked = carried.handed_over if carried is not None else None
    open_ids = [q.child_id for q in carried.open_questions] if carried is not None else []
    if asked is None and question_id not in open_ids:
        raise ForkRefused(
            f"{question_id} could not be asked again from {workflow_id}'s history (its run did "
            "not hand it over when replayed); fork at another question"
        )
    return StateAtQuestion(ForkParent(workflow_id=workflow_id, run_id=run_id), start, question)


async def _run_that_asked(
    client: Client, workflow_id: str, question_id: str
) -> tuple[str, list[HistoryEvent]]:
    """The id and events of the latest run of ``workflow_id``'s chain that started
    ``question_id`` (a question handed over is asked again, same id, by the next run)."""
    if not question_id.startswith(f"{workflow_id}{QUESTION_MARK}"):
        raise ForkRefused(
            f"{clip(question_id, 200)} is not a question of {workflow_id} (its questions are "
            f"{workflow_id}{QUESTION_MARK}<n>; `agents status {workflow_id}` lists them)"
        )
    run_id: str | None = None
    while True:
        handle = client.get_workflow_handle(workflow_id, run_id=run_id)
        events: list[HistoryEvent] = []
        try:
            async for event in handle.fetch_history_events():
                events.append(event)
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise ForkRefused(
                    f"the history of {workflow_id} is gone (never started, or past the "
                    "namespace's retention): nothing to fork"
                ) from None
            raise
        if not events:
            raise ForkRefused(f"the history of {workflow_id} is empty: nothing to fork")
        started = events[0].workflow_execution_started_event_attributes
        this_run = handle.run_id or started.original_execution_run_id
        if run_id is None:
            described = await handle.describe()
            this_run = described.run_id or this_run
        for event in events:
            if (
                event.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED
                and event.start_child_workflow_execution_initiated_event_attributes.workflow_id
                == question_id
            ):
                return this_run, events
        previous = started.continued_execution_run_id
        if not previous:
            raise ForkRefused(
                f"{workflow_id} never asked {clip(question_id, 200)} (`agents status "
                f"{workflow_id}` lists its questions)"
            )
        run_id = previous


async def _cut_at(
    client: Client, events: list[HistoryEvent], question_id: str
) -> tuple[list[HistoryEvent], InterruptInput]:
    """The run's events up to its question's start, then the question handed over: a failed
    child and the workflow task that sees it. Remembers the pinned team the events hold (the
    replay's workflow reads it)."""
    pins = PinnedTeamReader()
    initiated: HistoryEvent | None = None
    question: InterruptInput | None = None
    for index, event in enumerate(events):
        if (pinned := pins.read(event)) is not None:
            remember(pinned)
        kind = event.event_type
        if kind == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
            attrs = event.start_child_workflow_execution_initiated_event_attributes
            if attrs.workflow_id == question_id:
                initiated = event
                try:
                    (question,) = await client.data_converter.decode(
                        attrs.input.payloads, [InterruptInput]
                    )
                except Exception as err:
                    raise ForkRefused(
                        f"{question_id} was asked by a version whose question this one cannot "
                        f"read ({clip(str(err), 200)}); fork a run of this version"
                    ) from None
        elif (
            kind == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED
            and initiated is not None
            and event.child_workflow_execution_started_event_attributes.initiated_event_id
            == initiated.event_id
        ):
            return _handed_over_after(events[: index + 1], initiated, event), question  # type: ignore[return-value]
    raise ForkRefused(f"{question_id} never started (its run ended first): nothing to fork")


def _handed_over_after(
    kept: list[HistoryEvent], initiated: HistoryEvent, started: HistoryEvent
) -> list[HistoryEvent]:
    """``kept`` and then: the child failed as handed over, and a workflow task to see it."""
    began = started.child_workflow_execution_started_event_attributes
    last = kept[-1]
    scheduled_task = next(
        e for e in kept if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED
    )
    tail: list[HistoryEvent] = []
    next_id = last.event_id + 1

    def add(event: HistoryEvent) -> int:
        nonlocal next_id
        event.event_id = next_id
        event.event_time.CopyFrom(last.event_time)
        tail.append(event)
        next_id += 1
        return event.event_id

    add(
        HistoryEvent(
            event_type=EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
            child_workflow_execution_failed_event_attributes=(
                ChildWorkflowExecutionFailedEventAttributes(
                    failure=Failure(
                        message="handed over for a fork",
                        application_failure_info=ApplicationFailureInfo(
                            type=HANDED_OVER, non_retryable=True
                        ),
                    ),
                    namespace=began.namespace,
                    workflow_execution=began.workflow_execution,
                    workflow_type=began.workflow_type,
                    initiated_event_id=initiated.event_id,
                    started_event_id=started.event_id,
                    retry_state=RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE,
                )
            ),
        )
    )
    scheduled = _open_task(kept)
    if scheduled is None:
        task = scheduled_task.workflow_task_scheduled_event_attributes
        scheduled = add(
            HistoryEvent(
                event_type=EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
                workflow_task_scheduled_event_attributes=WorkflowTaskScheduledEventAttributes(
                    task_queue=task.task_queue, start_to_close_timeout=task.start_to_close_timeout
                ),
            )
        )
    add(
        HistoryEvent(
            event_type=EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
            workflow_task_started_event_attributes=WorkflowTaskStartedEventAttributes(
                scheduled_event_id=scheduled
            ),
        )
    )
    return [*kept, *tail]


def _open_task(kept: list[HistoryEvent]) -> int | None:
    """The id of a workflow task scheduled after the last one that ended, if any (the child's
    start came between its scheduling and its start: the synthetic failure joins it)."""
    ended = {
        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
    }
    for event in reversed(kept):
        if event.event_type in ended:
            return None
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
            return event.event_id
    return None


class _KeepContinueAsNew(Interceptor):
    """Keeps the start input of the replayed run's continue-as-new."""

    def __init__(self) -> None:
        self.kept: list[Any] = []

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor] | None:
        kept = self.kept

        class Outbound(WorkflowOutboundInterceptor):
            def continue_as_new(self, input: ContinueAsNewInput) -> NoReturn:
                kept.append(list(input.args))
                super().continue_as_new(input)

        class Inbound(WorkflowInboundInterceptor):
            def init(self, outbound: WorkflowOutboundInterceptor) -> None:
                super().init(Outbound(outbound))

        return Inbound


async def _replayed_handover(
    client: Client, history: WorkflowHistory, question_id: str
) -> OrchestratorInput:
    """Replay ``history`` (ending in the question handed over); the input it continues with."""
    from agent_interrupts.app.worker_setup import WORKFLOWS

    keep = _KeepContinueAsNew()
    replayer = Replayer(
        workflows=WORKFLOWS,
        workflow_runner=UnsandboxedWorkflowRunner(),
        data_converter=client.data_converter,
        interceptors=[keep],
        debug_mode=True,  # no wall-clock deadlock guard: a busy machine is no fault
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    if result.replay_failure is not None or not keep.kept:
        why = (
            clip(str(result.replay_failure), 300)
            if result.replay_failure is not None
            else "it did not hand the question over"
        )
        raise ForkRefused(
            f"the history of {history.workflow_id} up to {question_id} cannot be replayed by "
            f"this version ({why}); fork it with the version that wrote it"
        )
    return _start_input(keep.kept[-1])


def _start_input(args: Sequence[Any]) -> OrchestratorInput:
    (value,) = args
    start = (
        value if isinstance(value, OrchestratorInput) else OrchestratorInput.model_validate(value)
    )
    if start.carried_state is None:
        raise ForkRefused("the replayed run continued without its state; nothing to fork")
    return start


def answer_problems(question: InterruptInput, resolution: InterruptResolution) -> list[str]:
    """Why ``resolution`` does not answer ``question``: the rules of InterruptWorkflow's update
    validator (who may answer, what the question offers, where the run may continue), checked
    before a fork starts; the fork's own question then checks them again as it is answered."""
    answerers = question.answerers
    if answerers is not None and (refusal := answerers.refusal(resolution.answered_by)):
        return [refusal]
    problems = resolution_problems(question.request, resolution, in_parts=question.answers_in_parts)
    redirect = redirect_problem(question.origin, resolution.continue_at, team_of(question.team))
    if redirect:
        problems.append(f"continueAt {redirect}")
    return problems
