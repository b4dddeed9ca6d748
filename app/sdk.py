"""The supervisor SDK: start runs, read their status, answer and steer them, list the inbox."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import (
    Client,
    WorkflowExecution,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
)
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.converter import PayloadCodec
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from agent_interrupts.app.config import DEFAULT_TASK_QUEUE, TemporalSettings
from agent_interrupts.app.connect import connect
from agent_interrupts.app.message_size import oversize_problem
from agent_interrupts.app.people import person_name
from agent_interrupts.app.process_exit import guard_interpreter_exit
from agent_interrupts.app.question_cards import listed_card
from agent_interrupts.app.run_picture import RunEnd
from agent_interrupts.app.stack import LocalStack, local_client
from agent_interrupts.app.stuck import explain, problem_of, stuck_ids
from agent_interrupts.app.waiting_pages import (
    INTERRUPT_TYPE,
    WAITING_QUERY,
    WaitingFilter,
    page_size,
)
from agent_interrupts.models.errors import (
    ForkRefused,
    PayloadKeyError,
    describe_validation_error,
    failure_message,
)
from agent_interrupts.models.fork_check import carried_bytes
from agent_interrupts.models.forks import (
    FORK_MEMO,
    ForkLink,
    ForkParent,
    ForkPoint,
    ListedFork,
    StepChanges,
    fork_memo,
)
from agent_interrupts.models.interrupt_events import EventAck, InterruptRequestEvent
from agent_interrupts.models.interrupt_flow import (
    HANDED_OVER,
    InterruptInput,
    InterruptOutcome,
    InterruptStatus,
    ResolveAck,
)
from agent_interrupts.models.interrupts import (
    Door,
    InterruptRequestBase,
    InterruptResolution,
    answerer,
    via,
)
from agent_interrupts.models.policies import FORK_ANSWER_WAIT, FORK_ENDED_LOOK
from agent_interrupts.models.resolution_rules import describe_resolution
from agent_interrupts.models.state import (
    DEFAULT_MAX_STEPS,
    EventKind,
    HistoryEntry,
    OrchestratorInput,
    OrchestratorStatus,
)
from agent_interrupts.models.team_build import RunResult, result_summary
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.workflows import visibility
from agent_interrupts.workflows.interrupt_text import summary_line

if TYPE_CHECKING:  # loaded by the calls that use them: a command that lists runs starts fast
    from agent_interrupts.app.export import ExportSummary, Format, Kind
    from agent_interrupts.app.stats import Tally
    from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

ORCHESTRATOR_TYPE = "OrchestratorWorkflow"
"""The workflow types by name (the classes load with the worker's activities, which a command
that only lists runs does not need; a test checks the names)."""
PHASE_AT_START = "DISCOVERY"
QUESTION_QUERY_TIMEOUT = timedelta(seconds=2)
"""How long a listing waits for a waiting question's worker to answer its ``status`` query; a
question whose worker is gone (or busy) is listed with what the server knows instead, so one
dead worker never stalls ``list --waiting`` or the inbox."""


@dataclass(frozen=True)
class StartedFork:
    """A fork that started, its question answered (``AgentWorkflowClient.fork``)."""

    workflow_id: str
    question_id: str | None
    """The question, asked again in the fork (``<fork id>-interrupt-<n>``); None for a fork at
    an agent step."""
    link: ForkLink
    ack: ResolveAck | None
    """The answer's acknowledgement (None for a fork at an agent step)."""


class ResolutionRejected(Exception):
    """The interrupt refused the answer; the message names each problem."""


class EventRejected(Exception):
    """The orchestrator refused a supervisor's event; the message says why."""


@dataclass(frozen=True)
class RunRow:
    """One line of ``agents list``."""

    workflow_id: str
    phase: str | None
    state: str
    started: datetime | None
    goal: str
    problem: str | None = None
    """Why a Running run makes no progress (``app/stuck.py``), e.g. after a deploy."""


@dataclass(frozen=True)
class WaitingRow:
    """One line of ``agents list --waiting``: a question waiting for a person."""

    interrupt_id: str
    origin: str
    question: str
    """The whole question (its reason), on one line."""
    started: datetime | None
    deadline: datetime | None
    warning: str | None = None
    """The newest WARNING event, e.g. a notification that was not delivered."""
    problem: str | None = None
    """Why the question or its run makes no progress (``app/stuck.py``), e.g. after a deploy."""
    pending: bool = False
    """Not read yet: the inbox shows it as loading and fills it in at its next refresh."""
    may_answer: str | None = None
    """Who may answer it (the worker's answer rules); None: anybody."""


@dataclass(frozen=True)
class WaitingQuestion:
    """A question waiting for a person, whole: what ``agents inbox`` shows and answers."""

    interrupt_id: str
    origin: str
    started: datetime | None
    status: InterruptStatus | None
    """None when no worker answered the ``status`` query; ``summary`` is what the server knows."""
    summary: str = ""
    problem: str | None = None
    """Why the question or its run makes no progress (``app/stuck.py``), e.g. after a deploy."""
    pending: bool = False
    """Not read yet: the inbox shows it as loading and fills it in at its next refresh."""
    early: bool = False
    """Not read yet, shown from its card (the listing's memo): ``status`` says what the question
    started with, no events; the inbox reads it at its next refresh."""
    shortened: bool = False
    """``early``, and the card's longest texts were cut to fit the memo's cap."""

    @property
    def run_id(self) -> str:
        return self.interrupt_id.rsplit("-interrupt-", 1)[0]

    def row(self) -> WaitingRow:
        """Its line of ``agents list --waiting``."""
        if self.status is None:
            return WaitingRow(
                self.interrupt_id, self.origin, self.summary, self.started, None, None, self.problem
            )
        warnings = [e.message for e in self.status.events if e.kind is EventKind.WARNING]
        return WaitingRow(
            self.interrupt_id,
            str(self.status.origin),
            " ".join(self.status.request.reason.split()),
            self.started,
            self.status.deadline,
            warnings[-1] if warnings else None,
            self.problem,
            may_answer=self.status.answerers.describe() if self.status.answerers else None,
        )


@dataclass(frozen=True)
class WaitingPage:
    """One page of waiting questions' executions, and the token of the next (None: the last)."""

    executions: list[WorkflowExecution]
    next_token: bytes | None


@dataclass(frozen=True)
class Answer:
    """Who answered a closed question, when, and with what (one line per decision)."""

    interrupt_id: str
    origin: str
    question: str
    who: str
    at: datetime | None
    decisions: list[str] = field(default_factory=list)
    via: str = ""
    """`` via inbox``: the door the answer came through, when known."""

    def sentence(self) -> str:
        when = f"{self.at:%Y-%m-%d %H:%M:%S} UTC" if self.at else "?"
        decided = "; ".join(self.decisions)
        return (
            f"{self.interrupt_id} is already answered, by {self.who}{self.via} at {when}: {decided}"
        )


def decisions(request: InterruptRequestBase, resolution: InterruptResolution) -> list[str]:
    """One line per decision of ``resolution`` ("question -> answer"), then who resolved it."""
    lines = describe_resolution(request, resolution).splitlines()[1:-1]
    return [*(line.lstrip("- ") for line in lines), f"Resolved by: {answerer(resolution)}"]


ANSWERED_QUERY = (
    f"WorkflowType = '{INTERRUPT_TYPE}' AND "
    f"{visibility.INTERRUPT_STATE.name} = '{visibility.RESOLVED}' AND "
    "ExecutionStatus = 'Completed'"
)
"""Questions that were answered and whose run went on (the inbox's answered list)."""


def continues_at(info: InterruptStatus) -> str:
    """The agent the run continues at once the question is answered: where the chosen
    supervisor's option leads, else the supervisor's re-route target, else the agent that asked."""
    return info.continues_at or info.reroute_to or info.origin


def accepted(message: str, info: InterruptStatus) -> str:
    """The answer's acknowledgement, naming the agent the run really continues at: an earlier
    version's interrupt says "<origin> resumes" even when a supervisor re-routed the run
    elsewhere (the current one names where the chosen option leads)."""
    target = continues_at(info)
    if target == info.origin or "the run continues at" in message:
        return message
    said = f"{info.origin} resumes"
    instead = f"the run continues at {target} (re-routed from {info.origin})"
    return message.replace(said, instead) if said in message else f"{message}; {instead}"


async def _handed_over_by(handle: WorkflowHandle[Any, Any]) -> str | None:
    """The run a closed question was handed back to (which asks it again), if it was."""
    try:
        await handle.result(follow_runs=False)
    except WorkflowFailureError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type == HANDED_OVER and cause.details:
            return str(InterruptInput.model_validate(cause.details[0]).orchestrator_id)
    return None


class AgentWorkflowClient:
    """What supervisors and tools call: start runs, read their status, steer them."""

    def __init__(
        self, client: Client, task_queue: str = DEFAULT_TASK_QUEUE, *, person: str | None = None
    ) -> None:
        guard_interpreter_exit()  # a script that ends right after a call must not crash
        self.client = client
        self.task_queue = task_queue
        self.person = person
        """The name this client's answers carry (``answeredBy``); None: ``AGENTS_USER``, else
        the login name (``app.people.person_name``)."""
        self._indexed: bool | None = None
        self._stack: LocalStack | None = None
        """The local stack this client was connected to, if any: its reads of a closed
        ``--scenario`` run start that scenario's worker again (the stack stops idle ones)."""

    @classmethod
    async def connect(cls, settings: TemporalSettings | None = None) -> AgentWorkflowClient:
        """A client for the settings' address (``TemporalSettings.from_env()`` by default);
        with no address, the local stack's server (started if needed, like ``agents up``)."""
        settings = settings or TemporalSettings.from_env()
        stack = LocalStack(settings)
        if stack.serves(settings.address):
            info, _ = await stack.up()
            agents = cls(await local_client(info), settings.task_queue)
            agents._stack = stack
            return agents
        return cls(await connect(settings), settings.task_queue)

    async def _served(self, workflow_id: str) -> None:
        """On the local stack: start the worker of ``workflow_id``'s offline scenario unless it
        runs, as every command does, so that its queries are answered."""
        if self._stack is not None:
            await self._stack.ensure_worker_of(self.client, workflow_id)

    async def search_attributes_missing(self) -> list[str]:
        """Our search attributes the namespace lacks (all of them if it cannot be asked)."""
        try:
            listed = await self.client.operator_service.list_search_attributes(
                ListSearchAttributesRequest(namespace=self.client.namespace)
            )
        except RPCError:
            return [key.name for key in visibility.KEYS]
        return visibility.missing(dict(listed.custom_attributes))

    async def start(
        self,
        goal: str,
        *,
        workflow_id: str | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        task_queue: str | None = None,
        workspace: WorkspaceSpec | None = None,
        shadow_answers: bool = False,
        controller_autonomy: bool = False,
        team: str | None = None,
    ) -> WorkflowHandle[OrchestratorWorkflow, RunResult]:
        """Start an OrchestratorWorkflow; raises ValueError for an empty goal.

        ``shadow_answers``: every question a person answers is also answered by the controller
        model, recorded and never acted on (``agents stats`` shows the agreement);
        ``controller_autonomy``: the controller answers the kinds of question it earned under the
        worker's ``AGENT_AUTONOMY_POLICY``.

        ``workspace`` (a local git directory, made absolute here, or a git URL, and a ref) gives
        the agents read-only code tools and episodic memory.

        ``team`` names the team that does the work (one the worker serves: AGENTS_TEAMS or
        shipped in the package); None: the software team.

        An id is used once: starting a run with the id of an earlier one (running or closed)
        raises WorkflowAlreadyStartedError.

        The run gets the ``AgentPhase`` search attribute (and its interrupts theirs) only when
        the namespace has them registered.
        """
        from agent_interrupts.activities.tools.workspace import normalized_source
        from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

        if workspace is not None:
            source = normalized_source(workspace.source)
            workspace = workspace.model_copy(update={"source": source})
        run_input = OrchestratorInput(
            goal=goal,
            max_steps=max_steps,
            workspace=workspace,
            shadow_answers=shadow_answers,
            controller_autonomy=controller_autonomy,
            team=team,
        )
        if self._indexed is None:
            self._indexed = not await self.search_attributes_missing()
        return await self.client.start_workflow(
            OrchestratorWorkflow.run,
            run_input,
            id=workflow_id or f"orchestrator-{uuid.uuid4().hex[:12]}",
            task_queue=task_queue or self.task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            static_summary=f"Goal: {run_input.goal}"[:200],
            memo={"goal": run_input.goal[:500]},
            search_attributes=(
                visibility.initial_orchestrator_attributes(PHASE_AT_START)
                if self._indexed
                else None
            ),
        )

    async def status(self, workflow_id: str) -> OrchestratorStatus:
        from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

        await self._served(workflow_id)
        handle = self.client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
        return await handle.query(OrchestratorWorkflow.status)

    async def run_end(self, workflow_id: str) -> RunEnd | None:
        """How the run ended: COMPLETED with its result's summary, FAILED (or TERMINATED,
        CANCELED, TIMED_OUT) with why; None while it runs (or continued as new)."""
        from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

        handle = self.client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
        described = await handle.describe()
        state = described.status
        if state is None or state in (
            WorkflowExecutionStatus.RUNNING,
            WorkflowExecutionStatus.CONTINUED_AS_NEW,
        ):
            return None
        try:
            result = await handle.result(follow_runs=False)
        except WorkflowFailureError as err:
            return RunEnd(state.name, failure_message(err))
        return RunEnd(state.name, result_summary(result))

    async def stuck(self, workflow_id: str) -> str | None:
        """Why the run (or question) makes no progress and how to roll back; None if it does."""
        return await explain(self.client, workflow_id)

    async def is_interrupt(self, workflow_id: str) -> bool:
        """Whether ``workflow_id`` is an InterruptWorkflow (its ``status`` differs)."""
        described = await self.client.get_workflow_handle(workflow_id).describe()
        return described.workflow_type == INTERRUPT_TYPE

    async def blackboard(self, workflow_id: str, *, payloads: bool = False) -> list[HistoryEntry]:
        """Every blackboard entry of the run chain (``status`` holds only the newest); with
        ``payloads``, each payload read back from the runs' histories."""
        from agent_interrupts.app.history import read_blackboard

        await self._served(workflow_id)
        return await read_blackboard(self.client, workflow_id, payloads=payloads)

    async def interrupt_status(
        self, interrupt_id: str, timeout: timedelta | None = None
    ) -> InterruptStatus:
        """The question an InterruptWorkflow waits on, its state and its events; ``timeout``
        bounds the wait for a worker to answer (RPCError when it passes)."""
        from agent_interrupts.workflows.interrupt import InterruptWorkflow

        await self._served(interrupt_id)
        handle = self.client.get_workflow_handle_for(InterruptWorkflow.run, interrupt_id)
        return await handle.query(InterruptWorkflow.status, rpc_timeout=timeout)

    async def resolve(
        self,
        interrupt_id: str,
        resolution: InterruptResolution,
        *,
        answered_by: str | None = None,
        door: Door = Door.SDK,
    ) -> ResolveAck:
        """Answer an interrupt; raises ResolutionRejected with every problem of a wrong answer.

        The answer carries a person's name (``answeredBy``): the resolution's own, else
        ``answered_by``, else this client's ``person``, else ``AGENTS_USER`` or the login name;
        and where it came from (``door``: the resolution's own, else ``door``, the SDK by
        default; the CLI, the inbox and the other doors name themselves)."""
        from agent_interrupts.workflows.interrupt import InterruptWorkflow

        if resolution.door is None:
            resolution = resolution.model_copy(update={"door": door})

        if resolution.answered_by is None:
            try:
                name = person_name(answered_by or self.person)
            except ValueError as err:
                raise ResolutionRejected(str(err)) from None
            resolution = resolution.model_copy(update={"answered_by": name})
        too_large = oversize_problem("the answer", resolution, self._codec)
        if too_large is not None:
            raise ResolutionRejected(too_large)
        handle = self.client.get_workflow_handle_for(InterruptWorkflow.run, interrupt_id)
        try:
            return await handle.execute_update(InterruptWorkflow.resolve_validated, resolution)
        except WorkflowUpdateFailedError as err:
            raise ResolutionRejected(failure_message(err)) from None
        except RPCError:
            closed = await self.answered_already(interrupt_id)
            if closed is None:
                raise
            raise ResolutionRejected(closed) from None

    async def fork(
        self,
        workflow_id: str,
        *,
        at: str,
        resolution: InterruptResolution | None = None,
        guidance: str | None = None,
        model: str | None = None,
        forked_by: str | None = None,
        fork_id: str | None = None,
        task_queue: str | None = None,
        door: Door = Door.SDK,
    ) -> StartedFork:
        """Fork run ``workflow_id`` at ``at`` (``docs/forks.md``): a new run that starts from
        the state the parent held there. The parent is untouched. The fork runs on the parent's
        task queue unless ``task_queue`` names another.

        ``at`` a question of the run (``<run id>-interrupt-<n>``): the fork asks it again under
        its own id and answers it at once with ``resolution``, through the same validated update
        as ``resolve``. ``at`` an agent step (its node id, ``planning-orchestrator-005``): the
        fork runs that step again, with ``guidance`` in its prompt and on ``model`` instead of
        the worker's, when given.

        Raises ForkRefused (one line) for a point the run does not have, a run whose history is
        gone, a history this version cannot replay, or an answer the question does not offer
        (the words ``resolve`` refuses it with); no fork starts then."""
        from agent_interrupts.app.forks import (
            QUESTION_MARK,
            answer_problems,
            asked_in_fork,
            fork_question_id,
            question_point,
            state_at_question,
            state_at_step,
            step_point,
            with_changes,
        )

        answer = resolution or InterruptResolution()
        try:
            name = person_name(forked_by or answer.answered_by or self.person)
        except ValueError as err:
            raise ForkRefused(str(err)) from None
        fork_id = fork_id or f"{workflow_id}-fork-{uuid.uuid4().hex[:8]}"
        if QUESTION_MARK not in at:  # an agent step
            if resolution is not None:
                raise ForkRefused(f"{at} is an agent step: it takes guidance, not an answer")
            try:
                changes = StepChanges(guidance=guidance, model=model)
            except ValidationError as err:
                raise ForkRefused(f"the step's changes: {describe_validation_error(err)}") from None
            step = await state_at_step(self.client, workflow_id, at)
            point = step_point(step, at)
            start = with_changes(step, changes)
            link = self._link(step.parent, point, start, name, changes=changes)
            await self._start_fork(
                workflow_id, fork_id, at, start, link, task_queue or step.task_queue
            )
            return StartedFork(workflow_id=fork_id, question_id=None, link=link, ack=None)
        if resolution is None or guidance is not None or model is not None:
            raise ForkRefused(f"{at} is a question: fork it with an answer (resolve's flags)")
        answer = answer.model_copy(
            update={"answered_by": answer.answered_by or name, "door": answer.door or door}
        )
        found = await state_at_question(self.client, workflow_id, at)
        problems = answer_problems(found.question, answer)
        if problems:
            raise ForkRefused("resolution rejected: " + "; ".join(problems))
        start = asked_in_fork(found, fork_id)
        point = question_point(found, at)
        link = self._link(found.parent, point, start, name, answer=answer)
        await self._start_fork(
            workflow_id, fork_id, at, start, link, task_queue or found.task_queue
        )
        question_id = fork_question_id(fork_id, at)
        ack = await self._answer_when_asked(fork_id, question_id, answer)
        return StartedFork(workflow_id=fork_id, question_id=question_id, link=link, ack=ack)

    @staticmethod
    def _link(
        parent: ForkParent,
        point: ForkPoint,
        start: OrchestratorInput,
        name: str | None,
        *,
        answer: InterruptResolution | None = None,
        changes: StepChanges | None = None,
    ) -> ForkLink:
        return ForkLink(
            parent=parent,
            point=point,
            answer=answer,
            changes=changes,
            forked_by=name,
            forked_at=datetime.now(UTC),
            carried_bytes=carried_bytes(start),
        )

    async def _start_fork(
        self,
        parent_id: str,
        fork_id: str,
        at: str,
        start: OrchestratorInput,
        link: ForkLink,
        task_queue: str,
    ) -> None:
        """Start the fork with its link in its input, its state, its memo and its attributes."""
        from agent_interrupts.app.forks import linked
        from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

        start = linked(start, link)
        too_large = oversize_problem("the fork's start input", start, self._codec)
        if too_large is not None:
            raise ForkRefused(too_large)
        await self.client.start_workflow(
            OrchestratorWorkflow.run,
            start,
            id=fork_id,
            task_queue=task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            static_summary=f"Fork of {parent_id} at {at}"[:200],
            memo={"goal": start.goal[:500], **fork_memo(link)},
            search_attributes=await self._fork_attributes(parent_id),
        )

    async def _fork_attributes(self, parent_id: str) -> TypedSearchAttributes | None:
        """A fork's start attributes: ``AgentPhase`` and ``AgentForkOf``, each where the
        namespace has it."""
        try:
            listed = await self.client.operator_service.list_search_attributes(
                ListSearchAttributesRequest(namespace=self.client.namespace)
            )
        except RPCError:
            return None
        have = {name: int(kind) for name, kind in listed.custom_attributes.items()}
        pairs: list[SearchAttributePair[str]] = []
        if not visibility.missing(have):
            pairs.append(SearchAttributePair(visibility.AGENT_PHASE, PHASE_AT_START))
        if visibility.AGENT_FORK_OF.name in have:
            pairs.append(SearchAttributePair(visibility.AGENT_FORK_OF, parent_id))
        return TypedSearchAttributes(pairs) if pairs else None

    async def _answer_when_asked(
        self, fork_id: str, question_id: str, resolution: InterruptResolution
    ) -> ResolveAck:
        """Answer the fork's question as soon as the fork has asked it again (once its link is
        checked); ForkRefused with the fork's own failure when it ended first (a link that
        does not hold)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FORK_ANSWER_WAIT.total_seconds()
        next_look = loop.time() + FORK_ENDED_LOOK.total_seconds()
        while True:
            try:
                return await self.resolve(question_id, resolution)
            except RPCError as err:
                if err.status is not RPCStatusCode.NOT_FOUND:
                    raise
                if loop.time() > next_look:
                    next_look = loop.time() + FORK_ENDED_LOOK.total_seconds()
                    await self._fork_still_running(fork_id)
                if loop.time() > deadline:
                    raise ForkRefused(
                        f"the fork did not ask {question_id} within "
                        f"{FORK_ANSWER_WAIT.total_seconds():.0f} s (is a worker running on its "
                        f"task queue?); answer it with `agents resolve {question_id}`"
                    ) from None
                await asyncio.sleep(0.05)

    @property
    def _codec(self) -> PayloadCodec | None:
        """The client's payload codec (an encrypting one counts in a message's size)."""
        return self.client.data_converter.payload_codec

    async def _fork_still_running(self, fork_id: str) -> None:
        """ForkRefused with the fork's failure when it has ended (its link did not hold)."""
        handle = self.client.get_workflow_handle(fork_id)
        described = await handle.describe()
        if described.status is None or described.status is WorkflowExecutionStatus.RUNNING:
            return
        try:
            await handle.result(follow_runs=False)
        except WorkflowFailureError as err:
            raise ForkRefused(failure_message(err)) from None
        raise ForkRefused(f"the fork {fork_id} ended ({described.status.name}) before it asked")

    async def forks(self, workflow_id: str, limit: int = 100) -> list[ListedFork]:
        """The forks of ``workflow_id`` (a visibility query on ``AgentForkOf``; each fork's link
        from its memo), newest first."""
        found: list[ListedFork] = []
        seen: set[str] = set()
        query = f"{visibility.AGENT_FORK_OF.name} = '{workflow_id.replace(chr(39), '')}'"
        async for execution in self.client.list_workflows(query, limit=limit):
            if execution.id in seen:  # a fork that continued as new: its latest run only
                continue
            seen.add(execution.id)
            link: ForkLink | None
            try:
                link = ForkLink.model_validate(await execution.memo_value(FORK_MEMO))
            except (KeyError, ValueError):  # also PayloadKeyError: sealed under a key not set here
                link = None
            status = execution.status.name if execution.status is not None else "?"
            found.append(ListedFork(workflow_id=execution.id, status=status, link=link))
        return found

    async def answered_already(self, interrupt_id: str) -> str | None:
        """For a question that is closed: who answered it, when and with what;
        None while it is open."""
        handle = self.client.get_workflow_handle(interrupt_id)
        described = await handle.describe()
        if described.status in (None, WorkflowExecutionStatus.RUNNING):
            return None
        failed = described.status is WorkflowExecutionStatus.FAILED
        run = await _handed_over_by(handle) if failed else None
        if run is not None and await self._running(run):
            return (
                f"{interrupt_id} is being asked again by its run (the run's history grew long "
                "while it waited): answer again in a few seconds"
            )
        if described.status is not WorkflowExecutionStatus.COMPLETED:
            when = f"{described.close_time:%Y-%m-%d %H:%M:%S} UTC" if described.close_time else "?"
            return (
                f"{interrupt_id} is closed ({described.status.name} at {when}); nothing to answer"
            )
        return (await self.answer(interrupt_id, described.close_time)).sentence()

    async def _running(self, workflow_id: str) -> bool:
        try:
            described = await self.client.get_workflow_handle(workflow_id).describe()
        except RPCError:  # not found
            return False
        return described.status is WorkflowExecutionStatus.RUNNING

    async def answer(self, interrupt_id: str, closed: datetime | None) -> Answer:
        """Who answered the completed question ``interrupt_id`` and with what (its history)."""
        outcome = InterruptOutcome.model_validate(
            await self.client.get_workflow_handle(interrupt_id).result()
        )
        job = await self._start_input(interrupt_id)
        who = (
            outcome.resolution.answered_by
            or await self.who_answered(interrupt_id)
            or outcome.resolution.resolved_by.value
        )
        return Answer(
            interrupt_id,
            str(job.origin),
            job.request.reason,
            who,
            closed,
            decisions(job.request, outcome.resolution),
            via(outcome.resolution),
        )

    async def answered(self, limit: int = 10) -> list[tuple[str, datetime | None]]:
        """The newest answered questions: (interrupt id, when it closed), for ``answer``."""
        executions = self.client.list_workflows(ANSWERED_QUERY, limit=limit)
        return [(e.id, e.close_time) async for e in executions]

    async def question_input(self, interrupt_id: str) -> InterruptInput:
        """The question ``interrupt_id`` as its run asked it (its start input, from its history:
        no worker needed, closed questions too)."""
        return await self._start_input(interrupt_id)

    async def _start_input(self, interrupt_id: str) -> InterruptInput:
        from agent_interrupts.workflows.legacy import upgrade_start

        async for event in self.client.get_workflow_handle(interrupt_id).fetch_history_events():
            started = event.workflow_execution_started_event_attributes
            [value] = await self.client.data_converter.decode(started.input.payloads)
            return InterruptInput.model_validate(upgrade_start((value,))[0])
        raise ValueError(f"{interrupt_id} has no history")

    async def send_interrupt_event(
        self, workflow_id: str, event: InterruptRequestEvent
    ) -> EventAck:
        """Ask the running agent to interrupt, then continue at ``rerouteToAgentType``.

        Raises EventRejected when the target is not running, an event is already pending for
        it, an interrupt is already waiting, or the event id was already processed.
        """
        from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

        too_large = oversize_problem("the event", event, self._codec)
        if too_large is not None:
            raise EventRejected(too_large)
        handle = self.client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
        try:
            return await handle.execute_update(OrchestratorWorkflow.send_interrupt_event, event)
        except WorkflowUpdateFailedError as err:
            raise EventRejected(failure_message(err)) from None

    async def signal_interrupt_event(self, workflow_id: str, event: InterruptRequestEvent) -> None:
        """Send the event as the ``interrupt_request_event`` signal (no answer: ``status`` shows
        what became of it); raises EventRejected when it is over ``MAX_PAYLOAD_BYTES``."""
        from agent_interrupts.models.interrupt_events import INTERRUPT_REQUEST_EVENT_SIGNAL

        too_large = oversize_problem("the event", event.to_wire(), self._codec)
        if too_large is not None:
            raise EventRejected(too_large)
        handle = self.client.get_workflow_handle(workflow_id)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, event.to_wire())

    async def export(
        self,
        out: Path,
        *,
        fmt: Format | None = None,
        kinds: Sequence[Kind] = (),
        ids: Sequence[str] = (),
        query: str | None = None,
        split: float | None = None,
        metadata: bool = False,
        tool_results: Path | None = None,
        without_names: bool = False,
    ) -> ExportSummary:
        """Write training data (JSONL) from finished runs: ``app.export.export``. Tool-using
        steps read their results from ``tool_results`` (default: the workers' default,
        ``AGENT_TOOL_RESULTS_DIR`` or ``<AGENTS_STATE_DIR>/tool-results``); ``without_names``
        leaves people's names out."""
        from agent_interrupts.activities.tools.results import ToolResultStore
        from agent_interrupts.activities.tools.settings import ToolSettings
        from agent_interrupts.app.export import Format, export

        return await export(
            self.client,
            out,
            fmt=fmt or Format.OPENAI,
            kinds=kinds,
            ids=ids,
            query=query,
            split=split,
            metadata=metadata,
            results=ToolResultStore(tool_results or ToolSettings.from_env().tool_results),
            without_names=without_names,
        )

    async def stats(self, ids: Sequence[str] = (), query: str | None = None) -> Tally:
        """The agents spec's success rates over the selected runs: ``app.stats``."""
        from agent_interrupts.app.stats import measure

        return await measure(self.client, ids, query)

    async def who_answered(self, interrupt_id: str) -> str:
        """The client identity that sent the accepted answer, from the interrupt's history: a
        process (``pid@host``), for an answer that carries no person's name."""
        handle = self.client.get_workflow_handle(interrupt_id)
        who = ""
        async for event in handle.fetch_history_events():
            if event.HasField("workflow_execution_update_accepted_event_attributes"):
                request = event.workflow_execution_update_accepted_event_attributes.accepted_request
                who = f"{request.meta.identity} (update {request.input.name})"
            elif event.HasField("workflow_execution_signaled_event_attributes"):
                signal = event.workflow_execution_signaled_event_attributes
                who = f"{signal.identity} (signal {signal.signal_name})"
        return who

    async def runs(self, limit: int = 20) -> list[RunRow]:
        """Recent runs, newest first."""
        rows = []
        query = f"WorkflowType = '{ORCHESTRATOR_TYPE}'"
        async for execution in self.client.list_workflows(query, limit=limit):
            try:
                goal = str((await execution.memo()).get("goal", ""))
            except PayloadKeyError as err:  # a run sealed under a key this client lacks
                goal = f"(its goal cannot be read: {err})"
            status = execution.status or WorkflowExecutionStatus.RUNNING
            problem = problem_of(execution)
            rows.append(
                RunRow(
                    workflow_id=execution.id,
                    phase=execution.typed_search_attributes.get(visibility.AGENT_PHASE),
                    state="STUCK" if problem else status.name,
                    started=execution.start_time,
                    goal=goal,
                    problem=problem,
                )
            )
        return rows

    async def waiting(
        self, limit: int = 100, query_timeout: timedelta = QUESTION_QUERY_TIMEOUT
    ) -> list[WaitingRow]:
        """Questions waiting for a person across all runs (``InterruptState='WAITING'``); one
        whose worker does not answer within ``query_timeout`` is listed with its summary."""
        return [q.row() for q in await self.waiting_questions(limit, query_timeout)]

    async def waiting_questions(
        self, limit: int = 100, query_timeout: timedelta | None = None
    ) -> list[WaitingQuestion]:
        """Questions waiting for a person across all runs, each with its ``status``; a question
        whose worker does not answer within ``query_timeout`` comes with its summary only."""
        return await self.read_waiting(await self.waiting_executions(limit), query_timeout)

    async def read_waiting(
        self, executions: Sequence[WorkflowExecution], query_timeout: timedelta | None = None
    ) -> list[WaitingQuestion]:
        """The question of each of ``executions`` (a page), each with its problem if stuck."""
        found = await asyncio.gather(*(self.waiting_question(e, query_timeout) for e in executions))
        return await self.with_problems(found)

    async def waiting_executions(self, limit: int = 100) -> list[WorkflowExecution]:
        """The newest ``limit`` executions of questions waiting for a person (one visibility
        call); ``waiting_question`` reads each."""
        return [e async for e in self.client.list_workflows(WAITING_QUERY, limit=limit)]

    async def waiting_page(
        self,
        limit: int = 20,
        token: bytes | None = None,
        narrowed: WaitingFilter = WaitingFilter(),  # noqa: B008 (frozen)
    ) -> WaitingPage:
        """One page of the executions of questions waiting for a person, newest first, narrowed
        on the server: one visibility call of at most ``limit`` rows, from ``token`` (None: the
        first page). Raises ``WaitingFilterError`` for a filter or size a query cannot take."""
        listed = self.client.list_workflows(
            narrowed.query(), page_size=page_size(limit), next_page_token=token
        )
        await listed.fetch_next_page()
        return WaitingPage(list(listed.current_page or []), listed.next_page_token)

    async def with_problems(self, questions: Sequence[WaitingQuestion]) -> list[WaitingQuestion]:
        """``questions``, each with the problem of its execution or its run, if stuck."""
        ids = sorted({*(q.interrupt_id for q in questions), *(q.run_id for q in questions)})
        stuck = await stuck_ids(self.client, ids) if questions else {}
        return [
            replace(q, problem=stuck.get(q.interrupt_id) or stuck.get(q.run_id)) for q in questions
        ]

    async def count_waiting(self, narrowed: WaitingFilter | None = None) -> int:
        """How many questions wait for a person across all runs, or those ``narrowed`` keeps
        (one visibility call)."""
        query = narrowed.query() if narrowed else WAITING_QUERY
        return (await self.client.count_workflows(query)).count

    async def is_listed_waiting(self, interrupt_id: str) -> bool:
        """Whether ``list --waiting`` lists ``interrupt_id`` (the server's visibility store)."""
        query = f"{WAITING_QUERY} AND WorkflowId = '{interrupt_id}'"
        return (await self.client.count_workflows(query)).count > 0

    async def waiting_question(
        self, execution: WorkflowExecution, timeout: timedelta | None
    ) -> WaitingQuestion:
        """The question of ``execution``, read by its ``status`` query; when no worker answers
        within ``timeout``, what the server knows: its card's reason (the listing's memo,
        ``app/question_cards.py``), else its summary."""
        origin = execution.typed_search_attributes.get(visibility.INTERRUPT_ORIGIN) or "?"
        started = execution.start_time
        try:
            status = await self.interrupt_status(execution.id, timeout)
        except PayloadKeyError as err:  # sealed under a key this client lacks
            return WaitingQuestion(execution.id, origin, started, None, f"(unreadable: {err})")
        except (RPCError, WorkflowQueryFailedError):  # no worker answers: what the server knows
            card = await listed_card(execution)
            if card is not None:  # in the listing already: no describe call
                said = summary_line(str(card.origin), card.request)
                return WaitingQuestion(execution.id, str(card.origin), started, None, said)
            described = await self.client.get_workflow_handle(execution.id).describe()
            try:
                summary = await described.static_summary() or ""
            except PayloadKeyError as err:
                summary = f"(unreadable: {err})"
            return WaitingQuestion(execution.id, origin, started, None, summary)
        return WaitingQuestion(execution.id, str(status.origin), started, status)
