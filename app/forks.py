"""The state a run held at one of its past questions, recovered for a fork (``docs/forks.md``).

The run of the parent's chain that asked the question is read (its history only: its start
input holds what the run before carried) and replayed with the workflow's own code, cut after
the question's InterruptWorkflow started and ended there by a synthetic *handed over*: the run
then does what it does when its history grows long while a question waits, and continues as
new with ``blackboard.carried(state)`` and the question in ``handedOver``. A workflow
interceptor keeps that continue-as-new input; nothing reaches the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

from temporalio import workflow
from temporalio.api.enums.v1 import EventType, RetryState
from temporalio.api.failure.v1 import ApplicationFailureInfo, Failure
from temporalio.api.history.v1 import (
    ChildWorkflowExecutionFailedEventAttributes,
    HistoryEvent,
    WorkflowExecutionSignaledEventAttributes,
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
from agent_interrupts.models import resolution_rules as rules
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.errors import ForkRefused
from agent_interrupts.models.forks import (
    ForkLink,
    ForkParent,
    ForkPoint,
    ForkPointKind,
    StepChanges,
)
from agent_interrupts.models.interrupt_flow import HANDED_OVER, InterruptInput, InterruptOutcome
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.limits import clip
from agent_interrupts.models.state import HandedOverQuestion, OrchestratorInput
from agent_interrupts.models.team_build import remember, team_of
from agent_interrupts.workflows import fan_out_answers
from agent_interrupts.workflows.asking import StartedQuestion, reroute_requests
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.run_book import RunBook

RUN_AGENT = "run_agent"
"""The agent activity, by name: one per agent call of a step."""
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
    task_queue: str
    """The parent run's task queue: the fork runs on it unless told otherwise."""
    at: datetime
    """When the parent was at the question: the time of the last event of its history the
    state is read from (``ForkPoint.at``)."""


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
    return await state_in_history(client, workflow_id, run_id, events, question_id)


async def state_in_history(
    client: Client, workflow_id: str, run_id: str, events: list[HistoryEvent], question_id: str
) -> StateAtQuestion:
    """The state run ``run_id`` of ``workflow_id``, whose history is ``events``, held when it
    asked ``question_id`` (``state_at_question`` once the run is found)."""
    cut, question, at = await _cut_at(client, events, question_id)
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
    queue = events[0].workflow_execution_started_event_attributes.task_queue.name
    parent = ForkParent(workflow_id=workflow_id, run_id=run_id)
    return StateAtQuestion(parent, start, question, queue, at)


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
        this_run, events = await run_events(client, workflow_id, run_id)
        for event in events:
            if (
                event.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED
                and event.start_child_workflow_execution_initiated_event_attributes.workflow_id
                == question_id
            ):
                return this_run, events
        previous = events[0].workflow_execution_started_event_attributes.continued_execution_run_id
        if not previous:
            raise ForkRefused(
                f"{workflow_id} never asked {clip(question_id, 200)} (`agents status "
                f"{workflow_id}` lists its questions)"
            )
        run_id = previous


async def _cut_at(
    client: Client, events: list[HistoryEvent], question_id: str
) -> tuple[list[HistoryEvent], InterruptInput, datetime]:
    """The run's events up to its question, then the question handed over (``_handed_over_at``
    or ``_long_while_waiting``), and the time of the last event kept. Remembers the pinned team
    the events hold (the replay's workflow reads it)."""
    pins = PinnedTeamReader()
    initiated: HistoryEvent | None = None
    started: tuple[int, HistoryEvent] | None = None
    question: InterruptInput | None = None
    for index, event in enumerate(events):
        if (pinned := pins.read(event)) is not None:
            remember(pinned)
        kind = event.event_type
        if kind == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
            attrs = event.start_child_workflow_execution_initiated_event_attributes
            if attrs.workflow_id == question_id:
                initiated = event
                question = await _question(client, attrs.input.payloads, question_id)
        elif (
            initiated is not None
            and started is None
            and kind == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED
        ):
            if (
                event.child_workflow_execution_started_event_attributes.initiated_event_id
                == initiated.event_id
            ):
                started = (index, event)
        elif started is not None and question is not None and _closes(event, initiated):
            if question.answers_in_parts:
                return _long_while_waiting(events[:index]), question, _time(events[index - 1])
            break
    if initiated is None or started is None or question is None:
        raise ForkRefused(f"{question_id} never started (its run ended first): nothing to fork")
    if question.answers_in_parts:  # still waiting: the whole history so far
        return _long_while_waiting(events), question, _time(events[-1])
    index, began = started
    return _handed_over_at(events[: index + 1], initiated, began), question, _time(began)


def _time(event: HistoryEvent) -> datetime:
    """When ``event`` was recorded (the server's clock)."""
    return event.event_time.ToDatetime(tzinfo=UTC)


def _closes(event: HistoryEvent, initiated: HistoryEvent | None) -> bool:
    """Whether ``event`` ends the child ``initiated`` started (answered, failed, ...)."""
    if initiated is None:
        return False
    for name in (
        "child_workflow_execution_completed_event_attributes",
        "child_workflow_execution_failed_event_attributes",
        "child_workflow_execution_canceled_event_attributes",
        "child_workflow_execution_timed_out_event_attributes",
        "child_workflow_execution_terminated_event_attributes",
    ):
        if event.HasField(name):
            return bool(getattr(event, name).initiated_event_id == initiated.event_id)
    return False


async def _question(client: Client, payloads: Any, question_id: str) -> InterruptInput:
    try:
        (question,) = await client.data_converter.decode(payloads, [InterruptInput])
    except Exception as err:
        raise ForkRefused(
            f"{question_id} was asked by a version whose question this one cannot read "
            f"({clip(str(err), 200)}); fork it with the version that wrote it"
        ) from None
    return question


class _Tail:
    """Synthetic events appended to a kept history, numbered on from its last one."""

    def __init__(self, kept: list[HistoryEvent]) -> None:
        self.kept = kept
        self.events: list[HistoryEvent] = []
        self._next = kept[-1].event_id + 1

    def add(self, event: HistoryEvent) -> int:
        event.event_id = self._next
        event.event_time.CopyFrom(self.kept[-1].event_time)
        self.events.append(event)
        self._next += 1
        return event.event_id

    def task(self, *, suggest_continue_as_new: bool = False) -> list[HistoryEvent]:
        """A workflow task that sees the tail (joining one scheduled and not yet started)."""
        scheduled = _open_task(self.kept)
        if scheduled is None:
            first = next(
                e for e in self.kept if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED
            ).workflow_task_scheduled_event_attributes
            scheduled = self.add(
                HistoryEvent(
                    event_type=EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
                    workflow_task_scheduled_event_attributes=WorkflowTaskScheduledEventAttributes(
                        task_queue=first.task_queue,
                        start_to_close_timeout=first.start_to_close_timeout,
                    ),
                )
            )
        self.add(
            HistoryEvent(
                event_type=EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
                workflow_task_started_event_attributes=WorkflowTaskStartedEventAttributes(
                    scheduled_event_id=scheduled, suggest_continue_as_new=suggest_continue_as_new
                ),
            )
        )
        return [*self.kept, *self.events]


def _handed_over_at(
    kept: list[HistoryEvent], initiated: HistoryEvent, started: HistoryEvent
) -> list[HistoryEvent]:
    """``kept`` (up to the child's start), then the child failed as handed over, and a workflow
    task to see it: the question's own step keeps it in ``handedOver`` and continues as new."""
    began = started.child_workflow_execution_started_event_attributes
    tail = _Tail(kept)
    tail.add(
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
    return tail.task()


def _long_while_waiting(kept: list[HistoryEvent]) -> list[HistoryEvent]:
    """``kept`` (up to the answer to a fan-out's question), then a workflow task that says the
    history grew long: the dispatch node hands its open questions back (``hand_back``, which
    the replay answers itself) and the run continues as new with them in ``openQuestions``."""
    while kept and kept[-1].event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        kept = kept[:-1]  # a task in flight: the synthetic one takes its place
    tail = _Tail(kept)
    tail.add(  # wakes the workflow up; the event it records is taken out (``_without_wake_up``)
        HistoryEvent(
            event_type=EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
            workflow_execution_signaled_event_attributes=(
                WorkflowExecutionSignaledEventAttributes(signal_name=WAKE_UP_SIGNAL)
            ),
        )
    )
    return tail.task(suggest_continue_as_new=True)


WAKE_UP_SIGNAL = "__fork_wake_up"
"""The synthetic signal that wakes a replayed run up to see its history 'grew long'."""


def _without_wake_up(start: OrchestratorInput) -> OrchestratorInput:
    """The start input without the event the wake-up signal recorded (an unknown signal)."""
    carried = start.carried_state
    if carried is None:
        return start
    kept = [e for e in carried.events if WAKE_UP_SIGNAL not in e.message]
    dropped = len(carried.events) - len(kept)
    if not dropped:
        return start
    state = carried.model_copy(
        update={"events": kept, "events_recorded": carried.events_recorded - dropped}
    )
    return start.model_copy(update={"carried_state": state})


def _open_task(kept: list[HistoryEvent]) -> int | None:
    """The id of a workflow task scheduled after the last one that ended, if any (the tail's
    events join it)."""
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


REPLAY_NAMESPACE = "agents-fork-replay"
"""The namespace a fork's replay runs in (no server has it): ``_handed_back_in_replay`` acts
only there."""


@contextmanager
def _handed_back_in_replay() -> Iterator[None]:
    """While a fork's replay runs, a dispatch node's open question asked back (``hand_back``) is
    handed over at once, as its InterruptWorkflow would answer the signal; a worker in this
    process (any other namespace) meets the real function."""
    original = fan_out_answers.hand_back

    async def hand_back(
        book: RunBook, started: StartedQuestion
    ) -> InterruptOutcome | HandedOverQuestion:
        if workflow.info().namespace != REPLAY_NAMESPACE:
            return await original(book, started)
        return HandedOverQuestion(
            child_id=started.child_id,
            job=started.job.to_wire(),
            requests=reroute_requests(book.state.history, started, book.team),
        )

    fan_out_answers.hand_back = hand_back
    try:
        yield
    finally:
        fan_out_answers.hand_back = original


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
        namespace=REPLAY_NAMESPACE,
        workflows=WORKFLOWS,
        workflow_runner=UnsandboxedWorkflowRunner(),
        data_converter=client.data_converter,
        interceptors=[keep],
        debug_mode=True,  # no wall-clock deadlock guard: a busy machine is no fault
    )
    async with _replaying:  # one replay at a time: the patch below is the process's
        with _handed_back_in_replay():
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
    return _without_wake_up(_start_input(keep.kept[-1]))


def _start_input(args: Sequence[Any]) -> OrchestratorInput:
    (value,) = args
    start = (
        value if isinstance(value, OrchestratorInput) else OrchestratorInput.model_validate(value)
    )
    if start.carried_state is None:
        raise ForkRefused("the replayed run continued without its state; nothing to fork")
    return start


def answer_problems(question: InterruptInput, resolution: InterruptResolution) -> list[str]:
    """Why ``resolution`` does not answer ``question``: InterruptWorkflow's update validator's
    rule (``models.resolution_rules.answer_problems``), checked before a fork starts; the fork's
    own question then checks it again as it is answered."""
    return rules.answer_problems(question, team_of(question.team), resolution)


def question_point(state: StateAtQuestion, question_id: str) -> ForkPoint:
    """A QUESTION fork's point, as the parent's history gives it."""
    return ForkPoint(
        kind=ForkPointKind.QUESTION,
        question_id=question_id,
        agent_type=state.question.origin,
        at=state.at,
    )


def linked(start: OrchestratorInput, link: ForkLink) -> OrchestratorInput:
    """The fork's start input with its link, in the input and in the state it carries."""
    carried = start.carried_state
    return start.model_copy(
        update={
            "fork": link,
            "carried_state": carried.model_copy(update={"fork": link}) if carried else None,
        }
    )


@dataclass(frozen=True)
class StateAtStep:
    """A parent's state just before one of its agent steps ran: what a STEP fork starts from."""

    parent: ForkParent
    start: OrchestratorInput
    """The parent's start input, ``carriedState`` set to its state before the step (its
    ``pending`` is the step)."""
    agent_type: str
    task_queue: str
    at: datetime
    """When the step's agent call was scheduled in the parent (``ForkPoint.at``)."""


_stop_before: list[str] = []
"""The node id ``_StopBeforeStep`` continues as new before (one replay at a time)."""
_replaying = asyncio.Lock()
"""One fork's replay at a time in this process: ``_stop_before`` and ``_handed_back_in_replay``
are the process's (concurrent forks wait their turn)."""


@workflow.defn(name="OrchestratorWorkflow", sandboxed=False)
class _StopBeforeStep(OrchestratorWorkflow):
    """The orchestrator as a STEP fork's replay runs it: at the top of its loop, when the next
    node is the step, it continues as new (carrying its state, the step pending)."""

    @workflow.init
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)

    @workflow.run
    async def run(self, *args: Any) -> Any:
        return await super().run(*args)

    def _should_continue_as_new(self) -> bool:
        step = self._state.pending
        if (
            _stop_before
            and step is not None
            and self._book.next_node_id(step.agent_type) == _stop_before[-1]
        ):
            return True
        return super()._should_continue_as_new()


async def state_at_step(client: Client, workflow_id: str, step: str) -> StateAtStep:
    """The parent ``workflow_id``'s state just before its agent step ``step`` (a node id, as
    ``agents status`` lists it) ran; ForkRefused (one line) when it cannot be had."""
    if "/" in step:
        raise ForkRefused(
            f"{clip(step, 200)} is a dispatched agent's step: fork at its dispatch node's step "
            f"({step.split('/', 1)[0]}), or at the question it asked"
        )
    run_id, events, index = await _run_that_ran(client, workflow_id, step)
    return await state_before_step(client, workflow_id, run_id, events, index, step)


async def state_before_step(
    client: Client,
    workflow_id: str,
    run_id: str,
    events: list[HistoryEvent],
    index: int,
    step: str,
) -> StateAtStep:
    """The state run ``run_id`` of ``workflow_id``, whose history is ``events``, held just
    before its agent step ``step`` (its first agent call is ``events[index]``) ran."""
    pins = PinnedTeamReader()
    for event in events[:index]:
        if (pinned := pins.read(event)) is not None:
            remember(pinned)
    cut = index
    while cut > 0 and events[cut - 1].event_type != EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        cut -= 1
    kept = events[: cut - 1]  # up to the task that scheduled the step, which runs again
    keep = _KeepContinueAsNew()
    replayer = Replayer(
        namespace=REPLAY_NAMESPACE,
        workflows=[_StopBeforeStep],
        workflow_runner=UnsandboxedWorkflowRunner(),
        data_converter=client.data_converter,
        interceptors=[keep],
        debug_mode=True,
    )
    async with _replaying:
        _stop_before.append(step)
        try:
            result = await replayer.replay_workflow(
                WorkflowHistory(workflow_id, kept), raise_on_replay_failure=False
            )
        finally:
            _stop_before.pop()
    if not keep.kept:  # stopping before the step may differ from the history after it: no fault
        why = clip(str(result.replay_failure), 300) if result.replay_failure else "no state"
        raise ForkRefused(
            f"the history of {workflow_id} up to {clip(step, 200)} cannot be replayed by this "
            f"version ({why}); fork it with the version that wrote it"
        )
    start = _without_handover_event(_start_input(keep.kept[-1]))
    carried = start.carried_state
    pending = carried.pending if carried is not None else None
    if pending is None:
        raise ForkRefused(f"{workflow_id} had no step pending before {clip(step, 200)}")
    queue = events[0].workflow_execution_started_event_attributes.task_queue.name
    parent = ForkParent(workflow_id=workflow_id, run_id=run_id)
    return StateAtStep(parent, start, str(pending.agent_type), queue, _time(events[index]))


def step_point(state: StateAtStep, step: str) -> ForkPoint:
    """A STEP fork's point, as the parent's history gives it."""
    return ForkPoint(kind=ForkPointKind.STEP, step=step, agent_type=state.agent_type, at=state.at)


def with_changes(state: StateAtStep, changes: StepChanges) -> OrchestratorInput:
    """The STEP fork's start input: the step runs again, with a person's guidance in its
    prompt (where an answer to its question would be) and on another model, when given."""
    carried = state.start.carried_state
    if carried is None or carried.pending is None:
        return state.start
    update: dict[str, Any] = {}
    if changes.guidance:
        told = f"A person's guidance for this step, run again in a fork: {changes.guidance}"
        update["interrupt_resolution"] = told
    if changes.model:
        update["model"] = changes.model
    pending = carried.pending.model_copy(update=update)
    return state.start.model_copy(
        update={"carried_state": carried.model_copy(update={"pending": pending})}
    )


def _without_handover_event(start: OrchestratorInput) -> OrchestratorInput:
    """The start input without the "continuing as new" event the replay's stop recorded."""
    carried = start.carried_state
    if carried is None or not carried.events:
        return start
    if not carried.events[-1].message.startswith("continuing as new"):
        return start
    state = carried.model_copy(
        update={"events": carried.events[:-1], "events_recorded": carried.events_recorded - 1}
    )
    return start.model_copy(update={"carried_state": state})


async def _run_that_ran(
    client: Client, workflow_id: str, step: str
) -> tuple[str, list[HistoryEvent], int]:
    """The run of ``workflow_id``'s chain that ran agent step ``step``, its events and the index
    of the step's first agent call (``run_agent`` scheduled)."""
    run_id: str | None = None
    while True:
        this_run, events = await run_events(client, workflow_id, run_id)
        index = await step_index(client, events, step)
        if index is not None:
            return this_run, events, index
        previous = events[0].workflow_execution_started_event_attributes.continued_execution_run_id
        if not previous:
            raise ForkRefused(
                f"{workflow_id} never ran a step {clip(step, 200)} (`agents status "
                f"{workflow_id}` lists its steps' node ids)"
            )
        run_id = previous


async def step_index(client: Client, events: list[HistoryEvent], step: str) -> int | None:
    """The index in ``events`` of agent step ``step``'s first agent call (``run_agent``
    scheduled), or None: the run did not run it."""
    for index, event in enumerate(events):
        if event.event_type != EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            continue
        attrs = event.activity_task_scheduled_event_attributes
        if attrs.activity_type.name != RUN_AGENT:
            continue
        try:
            (call,) = await client.data_converter.decode(attrs.input.payloads, [AgentCall])
        except Exception:
            continue
        if call.node_id == step:
            return index
    return None


async def run_events(
    client: Client, workflow_id: str, run_id: str | None
) -> tuple[str, list[HistoryEvent]]:
    """A run's id and events (the latest run's when ``run_id`` is None)."""
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    events: list[HistoryEvent] = []
    try:
        async for event in handle.fetch_history_events():
            events.append(event)
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            raise ForkRefused(
                f"the history of {workflow_id} is gone (never started, or past the namespace's "
                "retention): nothing to fork"
            ) from None
        raise
    if not events:
        raise ForkRefused(f"the history of {workflow_id} is empty: nothing to fork")
    if run_id is None:
        run_id = (await handle.describe()).run_id
    return run_id or events[
        0
    ].workflow_execution_started_event_attributes.original_execution_run_id, events
