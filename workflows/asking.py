"""A node's question: hand it to InterruptWorkflow, then set the step the answer leads to."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, NoReturn

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError
from temporalio.workflow import ChildWorkflowHandle

from agent_interrupts.models.answer_rules import MAX_ANSWERERS, Answerers, RulesQuestion
from agent_interrupts.models.answer_text import (
    carries_own_part,
    describe_answer,
    own_part_not_taken,
    supervisor_part,
)
from agent_interrupts.models.errors import (
    DegenerateLoop,
    InterruptFailed,
    StepLimitExceeded,
    StoppedByPerson,
    failure_message,
)
from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.interrupt_flow import (
    HAND_OVER_SIGNAL,
    HANDED_OVER,
    InterruptInput,
    InterruptOutcome,
)
from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    OptionKey,
    TimeoutOutcome,
    answerer,
)
from agent_interrupts.models.limits import (
    AGENT_OUTPUT_BYTES,
    AGENT_REQUEST_BYTES,
    clip,
    fit_strings,
)
from agent_interrupts.models.policies import ANSWER_RULES_RETRY, ANSWER_RULES_TIMEOUT
from agent_interrupts.models.question_card import QUESTION_MEMO, question_card
from agent_interrupts.models.state import (
    EntryKind,
    EventKind,
    HandedOverQuestion,
    HistoryEntry,
    OrchestratorState,
    PendingInterrupt,
    PendingStep,
)
from agent_interrupts.models.team import Team, on_the_wire
from agent_interrupts.workflows.budget_questions import budget_question, stops_the_run
from agent_interrupts.workflows.forks import asked_again_because
from agent_interrupts.workflows.handover import history_is_long
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.interrupt_hooks import asked_question
from agent_interrupts.workflows.interrupt_text import details_markdown, summary_line
from agent_interrupts.workflows.lifting import answer_each
from agent_interrupts.workflows.patches import ANSWER_RULES, QUESTION_HANDED_OVER
from agent_interrupts.workflows.planner import last_request_of, origin_of
from agent_interrupts.workflows.resume import resumed_request
from agent_interrupts.workflows.run_book import RunBook
from agent_interrupts.workflows.steps import decide
from agent_interrupts.workflows.visibility import child_attributes, show_orchestrator

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.answer_rules import AnswerRuleActivities


@dataclass
class StartedQuestion:
    """A node's question handed to its InterruptWorkflow, not answered yet."""

    node_id: str
    origin: str
    origin_request: dict[str, Any]
    request: InterruptRequestBase
    child_id: str
    child: ChildWorkflowHandle[InterruptWorkflow, InterruptOutcome]
    job: InterruptInput
    earlier_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Requests the answer may re-route to, kept by the run before (``HandedOverQuestion``)."""


class QuestionHandedOver(Exception):
    """The orchestrator's history grew long while its question waited: the question was asked
    back unanswered and is in ``state.handed_over``; the run continues as new."""


async def ask(
    book: RunBook,
    node_id: str,
    node_request: tuple[str, dict[str, Any]],
    request: InterruptRequestBase,
    fan_out: list[HeldAgent],
    *,
    person_only: bool = False,
    hand_over: bool = True,
) -> None:
    """Hand the question to InterruptWorkflow; continue where its routing leads (handler FR-001).

    ``node_request`` is the asking node's agent and request, handed over by the step that holds
    them: a bounded window of payloads may have dropped it (a fan-out of 12 did).
    A dispatch node that resumes keeps its ``fan_out``: finished agents are not run again,
    and each agent that asked runs with its own part of the answer (resume §5).

    A ``person_only`` question (a stuck model, a used-up step budget) is never
    escalated to the reviewing model, which may be the model at fault: where the run's timeout
    would escalate, it waits for a person without a deadline; the loop breaker does not count it.

    Raises QuestionHandedOver when the run's history grew long while the question waited
    (``hand_over``; ``settle_question``).
    """
    started = await start_question(
        book, node_id, node_request, request, person_only=person_only, hand_over=hand_over
    )
    await settle_question(book, started, fan_out, hand_over=hand_over)


def fitted_question(request: InterruptRequestBase) -> InterruptRequestBase:
    """The question with its longest texts cut to ``AGENT_OUTPUT_BYTES``: a dispatch node's
    question gathers its agents' questions, up to ``MAX_FAN_OUT`` of them."""
    wire = request.to_wire()
    fitted = fit_strings(wire, AGENT_OUTPUT_BYTES)
    return request if fitted is wire else type(request).model_validate(fitted)


async def start_question(
    book: RunBook,
    node_id: str,
    node_request: tuple[str, dict[str, Any]],
    request: InterruptRequestBase,
    *,
    person_only: bool = False,
    hand_over: bool = True,
    answers_in_parts: bool = False,
) -> StartedQuestion:
    """Start the question's InterruptWorkflow: from here on, a person sees it (``ask``); with
    ``hand_over`` the run may ask for it back (``settle_question``); with ``answers_in_parts``
    a combined question's agents may be answered one at a time."""
    state = book.state
    origin = origin_of(request, state.history, book.team)
    agent, own_request = node_request
    if origin == agent:
        origin_request: dict[str, Any] | None = own_request
    else:  # a question typed as another agent's: its newest request, if still held
        last = last_request_of(state.history, origin)
        origin_request = last.payload if last is not None else None
    if origin_request is None:
        book.fail(
            DegenerateLoop(
                f"{origin} raised an interrupt but the blackboard holds no earlier request "
                f"of {origin} to return to (degenerate loop)"
            ),
            node_id,
            origin,
        )
    answerers = await answerers_of(book, origin, request)
    event = book.supervisor.take(node_id)
    child_id = f"{workflow.info().workflow_id}-interrupt-{book.number_question()}"
    request = on_the_wire(fitted_question(request))
    origin_request = fit_strings(origin_request, AGENT_REQUEST_BYTES)
    job = InterruptInput(
        orchestrator_id=workflow.info().workflow_id,
        goal=state.goal,
        request=request,
        origin=origin,
        origin_node_id=node_id,
        origin_request=origin_request,
        reroute_to=event.reroute_to_agent_type if event else None,
        event=event,
        timeout_seconds=None
        if person_only and state.on_interrupt_timeout is TimeoutOutcome.ESCALATE_TO_AGENT_REVIEW
        else state.interrupt_timeout_seconds,
        on_timeout=state.on_interrupt_timeout,
        shadow=state.shadow_answers,
        autonomy=state.controller_autonomy,
        hand_over=hand_over and workflow.patched(QUESTION_HANDED_OVER),
        answers_in_parts=answers_in_parts,
        team=book.pinned_team,
        answerers=answerers,
    )
    lift = bool(getattr(request, "agent_questions", []))  # counted as its agents' (``lifted``)
    book.record(
        node_id,
        origin,
        EntryKind.INTERRUPT,
        {"workflowId": child_id, **request.to_wire()},
        supervised=event is not None or person_only or lift,  # not the agent's own: not counted
    )
    book.event(EventKind.INTERRUPT_STATUS, f"REQUESTED: {child_id}", node_id, origin)
    return await _start_child(book, job, child_id)


async def answerers_of(
    book: RunBook, origin: str, request: InterruptRequestBase
) -> Answerers | None:
    """Who may answer ``origin``'s question ``request``: the worker's answer rules, read by an
    activity (runs recorded before the rules existed read none). A worker without the activity,
    or one whose activity failed, lets anybody answer, and a WARNING event says so."""
    if not workflow.patched(ANSWER_RULES):
        return None
    agents = [origin]
    ids = [c.choice_id for c in request.choices] + [
        c.confirmation_id for c in request.confirmation_items
    ]
    for part in getattr(request, "agent_questions", []):
        agents.append(str(part.request.origin))
    question = RulesQuestion(team=book.team.name, agents=agents[:MAX_ANSWERERS], ids=ids)
    try:
        return await workflow.execute_activity_method(
            AnswerRuleActivities.answerers,
            question,
            start_to_close_timeout=ANSWER_RULES_TIMEOUT,
            retry_policy=ANSWER_RULES_RETRY,
            summary=f"who may answer {origin}'s question",
        )
    except ActivityError as err:
        book.event(
            EventKind.WARNING,
            f"the answer rules were not read ({clip(failure_message(err), 500)}); anybody may "
            "answer this question",
            None,
            origin,
        )
        return None


async def ask_again(book: RunBook, handed_over: HandedOverQuestion) -> StartedQuestion:
    """Ask the question the run before handed over (``settle_question``) again: the same
    workflow id, request and event; the InterruptWorkflow continues its wait (``carried``)."""
    job = InterruptInput.model_validate(handed_over.job)
    why = asked_again_because(book.state.fork, workflow.info().continued_run_id is not None)
    book.event(
        EventKind.INTERRUPT_STATUS,
        f"REQUESTED AGAIN: {handed_over.child_id} ({why})",
        job.origin_node_id,
        job.origin,
    )
    started = await _start_child(book, job, handed_over.child_id)
    started.earlier_requests = dict(handed_over.requests)
    return started


async def _start_child(book: RunBook, job: InterruptInput, child_id: str) -> StartedQuestion:
    state, origin, request = book.state, job.origin, job.request
    child = await workflow.start_child_workflow(
        InterruptWorkflow.run,
        job,
        id=child_id,
        static_summary=summary_line(origin, request),
        static_details=details_markdown(child_id, origin, request, book.team),
        search_attributes=child_attributes(job),
        memo=card_memo(job),
    )
    started = StartedQuestion(
        job.origin_node_id, origin, job.origin_request, request, child_id, child, job
    )
    book.waiting_on(waiting_on(started))
    show_orchestrator(state.phase, None, state.pending_interrupt)
    return started


def card_memo(job: InterruptInput) -> dict[str, Any]:
    """The question's memo: its card (``models/question_card.py``), which a listing returns with
    each row, so the inbox and ``agents list --waiting`` show it without a query; none when the
    card does not fit its cap. The deadline is the one the question sets at its first workflow
    task: the carried one, else ``timeoutSeconds`` from now (a moment earlier than its own)."""
    light = job.model_copy(update={"origin_request": {}})  # what the hooks never read, uncopied
    card = question_card(job, asked_question(light), job.deadline_from(workflow.now()))
    return {QUESTION_MEMO: card} if card is not None else {}


def waiting_on(started: StartedQuestion) -> PendingInterrupt:
    """What the run's status says it waits on while ``started`` is open."""
    return PendingInterrupt(
        workflow_id=started.child_id,
        origin_agent_type=started.origin,
        reroute_to_agent_type=started.job.reroute_to,
        request=started.request.to_wire(),
    )


async def settle_question(
    book: RunBook, started: StartedQuestion, fan_out: list[HeldAgent], *, hand_over: bool = True
) -> None:
    """Wait for the answer, then set the step it leads to; a dispatch node's ``fan_out`` (as it
    is now: agents that asked after the question started keep theirs for the next round) gets
    each agent's own part.

    With ``hand_over``, a history grown long while the question waits (a flood of signals: the
    run cannot continue as new while its child runs, and the server ends a run whose history
    passes 50 MB) asks the question back; unless an answer came first, it is kept in
    ``state.handed_over`` and QuestionHandedOver is raised: the run continues as new and asks it
    again (``ask_again``). The question is handed back only while it waits for a person; an
    answer being translated finishes first.
    """
    state = book.state
    child_id, child = started.child_id, started.child
    if hand_over:
        await workflow.wait_condition(lambda: child.done() or history_is_long())
        if not child.done() and workflow.patched(QUESTION_HANDED_OVER):
            with contextlib.suppress(ApplicationError):  # it ended in the meantime
                await child.signal(HAND_OVER_SIGNAL)  # answered already: it finishes the answer
    try:
        outcome = await child
    except ChildWorkflowError as err:
        handed = _handed_over(state, started, err, fan_out, book.team) if hand_over else None
        if handed is not None:
            book.hand_over(handed)
            raise QuestionHandedOver(
                f"continuing as new while {child_id} waited: the history grew long (the "
                "question is asked again, under the same id)"
            ) from None
        _failed(book, started, err)
    book.waiting_on(None)
    book.set_pending(take_answer(book, started, outcome, fan_out))


async def outcome_of(book: RunBook, started: StartedQuestion) -> InterruptOutcome:
    """The answer to ``started``, once its InterruptWorkflow ended; the run fails when it failed."""
    try:
        return await started.child
    except ChildWorkflowError as err:
        _failed(book, started, err)


async def hand_back(
    book: RunBook, started: StartedQuestion
) -> InterruptOutcome | HandedOverQuestion:
    """Ask the open question ``started`` back (the run's history grew long): what the next run
    asks again, or the answer when one came first."""
    with contextlib.suppress(ApplicationError):  # it ended in the meantime
        await started.child.signal(HAND_OVER_SIGNAL)
    try:
        return await started.child
    except ChildWorkflowError as err:
        handed = _handed_over(book.state, started, err, [], book.team)
        if handed is not None:
            return handed
        _failed(book, started, err)


def _failed(book: RunBook, started: StartedQuestion, err: ChildWorkflowError) -> NoReturn:
    """The run fails with the message of the InterruptWorkflow that failed."""
    message = failure_message(err)
    book.fail(
        InterruptFailed(f"interrupt {started.child_id} failed: {message}"),
        started.node_id,
        started.origin,
    )


def _handed_over(
    state: OrchestratorState,
    started: StartedQuestion,
    err: ChildWorkflowError,
    fan_out: list[HeldAgent],
    team: Team,
) -> HandedOverQuestion | None:
    """The question to ask again when ``err`` says its InterruptWorkflow handed it over."""
    if not isinstance(err.cause, ApplicationError) or err.cause.type != HANDED_OVER:
        return None
    details = err.cause.details
    return HandedOverQuestion(
        child_id=started.child_id,
        job=details[0] if details else started.job.to_wire(),  # continues the wait
        fan_out=fan_out,
        requests=reroute_requests(state.history, started, team),
    )


def take_answer(
    book: RunBook, started: StartedQuestion, outcome: InterruptOutcome, fan_out: list[HeldAgent]
) -> PendingStep:
    """Record the answer to ``started`` and return the step it leads to (the run fails here
    when the person stopped it); a dispatch node's ``fan_out`` gets each agent's own part."""
    state = book.state
    node_id, origin, child_id = started.node_id, started.origin, started.child_id
    request = started.request
    book.event(
        EventKind.INTERRUPT_STATUS,
        f"RESOLVED: {child_id} by {answerer(outcome.resolution)} -> {outcome.route}",
        node_id,
        origin,
    )
    if outcome.resolution.stop_run is not None:
        book.fail(
            StoppedByPerson(
                f"{answerer(outcome.resolution)} stopped the run at {origin} ({child_id}): "
                f"{clip(outcome.resolution.stop_run, 1_000)}"
            ),
            node_id,
            origin,
        )
    routing = book.team.interrupt_routing.model_validate(outcome.routing)
    entry = book.record(node_id, origin, EntryKind.RESOLUTION, outcome.routing, route=outcome.route)
    decision = decide(origin, routing, entry, state.history, team=book.team)
    if decision.step is None:
        book.fail(
            InterruptFailed(f"interrupt {child_id} resolved to {decision.route}: no request"),
            node_id,
            origin,
        )
    target = decision.step.agent_type
    resumes = target == origin
    asked, event = asked_question(started.job), started.job.event
    if (
        not resumes
        and not carries_own_part(outcome.resolution, target)
        and (not_taken := own_part_not_taken(asked, outcome.resolution, event))
    ):
        book.event(
            EventKind.WARNING,
            f"{origin}'s own part of the answer to {child_id} is not taken, the run continues "
            f"at {target}: {not_taken}",
            node_id,
            origin,
        )
    if resumes:
        carried: dict[str, Any] | None = started.origin_request
    else:  # a supervisor's reroute: the target's newest request, if still held
        found = last_request_of(state.history, target)
        carried = found.payload if found is not None else None
        carried = carried if carried is not None else started.earlier_requests.get(target)
    return decision.step.model_copy(
        update={
            "request": resumed_request(
                book.team.node(target).request_model,
                carried or {},
                book.team.node(target).request_model.model_validate(decision.step.request),
            ),
            "interrupt_resolution": describe_answer(
                asked, outcome.resolution, origin=origin, event=event, resumes_at=target
            ),
            "resolution": outcome.resolution,
            "held": answer_each(
                request,
                outcome.resolution,
                fan_out,
                supervisor_part(asked, outcome.resolution, event, "your fan-out's question"),
            )
            if resumes and fan_out
            else [],
        }
    )


def reroute_requests(
    history: list[HistoryEntry], started: StartedQuestion, team: Team
) -> dict[str, dict[str, Any]]:
    """The newest request of each agent the answer may re-route to (the event's target and the
    agents its options name), for the next run, whose blackboard keeps few payloads."""
    job = started.job
    allowed = team.route_targets()
    named = [job.event.route_of_option(key, allowed) for key in OptionKey] if job.event else []
    requests = dict(started.earlier_requests)
    targets = dict.fromkeys(a for a in (job.reroute_to, *named) if a is not None)  # in order
    for target in targets:
        found = last_request_of(history, target) if target != job.origin else None
        if found is not None and found.payload is not None:
            requests[target] = found.payload
    return requests


async def ask_for_steps(book: RunBook, step: PendingStep, budget: int) -> None:
    """The step budget is used up: a person grants ``budget`` more steps or stops the run.
    The waiting step keeps its request, its answer and its held fan-out; the
    person's words join its guidance."""
    state = book.state
    agent = step.agent_type
    node_id = book.next_node_id(agent)
    book.event(
        EventKind.WARNING,
        f"the run took {state.steps_taken} agent steps (maxSteps); a person is asked "
        f"whether it gets {budget} more",
        node_id,
        agent,
    )
    question = budget_question(agent, state.steps_taken, budget, book.team)
    await ask(book, node_id, (agent, step.request), question, [], person_only=True, hand_over=False)
    answered = state.pending
    if answered is None or stops_the_run(answered.resolution):
        book.fail(
            StepLimitExceeded(
                f"the run took {state.steps_taken} agent steps without finishing and a "
                "person chose to stop it at its step budget (maxSteps)"
            ),
            node_id,
            agent,
        )
    book.grant_steps(budget)
    guidance = [g for g in (step.interrupt_resolution, answered.interrupt_resolution) if g]
    book.set_pending(
        step.model_copy(update={"interrupt_resolution": "\n\n".join(guidance) or None})
    )
