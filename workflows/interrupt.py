"""InterruptWorkflow: the one handler of every interrupt (handler US1/US2/US4,
handler FR-001..012)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn

from pydantic import ValidationError
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

from agent_interrupts.models.errors import (
    InvalidInput,
    Rejected,
    UndecodablePayload,
    failure_message,
)
from agent_interrupts.models.interrupt_events import EVENT_CHOICE_ID
from agent_interrupts.models.interrupt_flow import (
    HAND_OVER_SIGNAL,
    HANDED_OVER,
    RESOLVE_SIGNAL,
    STOP_ROUTE,
    AutonomyQuestion,
    InterruptCarried,
    InterruptInput,
    InterruptOutcome,
    InterruptState,
    InterruptStatus,
    ResolveAck,
    ReviewInput,
    TimeoutOutcome,
    TranslationInput,
)
from agent_interrupts.models.interrupts import (
    InterruptResolution,
    InterruptType,
    ResolvedBy,
    answerer,
)
from agent_interrupts.models.limits import clip
from agent_interrupts.models.notifications import NoticeKind, Reminder
from agent_interrupts.models.policies import (
    AGENT_ACTIVITY,
    AGENT_RETRY,
    AUTONOMY_TIMEOUT,
)
from agent_interrupts.models.resolution_rules import (
    allowed_route,
    answer_problems,
    claims_the_workflows_own,
    drop_invalid_recommendations,
    left_to_text,
    recommended_resolution,
    redirect_targets,
    refused_in_words,
    unanswered_parts,
    untranslated_routing,
)
from agent_interrupts.models.state import EventKind, GraphEvent
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import TeamDefinitionError, team_of
from agent_interrupts.workflows.event_log import log_event, record_event
from agent_interrupts.workflows.handler_args import (
    Parsed,
    one_raw_payload,
    parse_raw,
    parse_values,
)
from agent_interrupts.workflows.handler_list import list_named_handlers_only
from agent_interrupts.workflows.handover import history_is_long
from agent_interrupts.workflows.interrupt_hooks import (
    REPLACING_REQUEST_HOOKS,
    REQUEST_HOOKS,
    RESOLUTION_HOOKS,
    TRANSLATION_HOOKS,
)
from agent_interrupts.workflows.legacy import started_before_notifications, upgrade_start
from agent_interrupts.workflows.notifications import Notifier
from agent_interrupts.workflows.patches import (
    ANSWER_TAKEN,
    CLAIMS_REFUSED,
    EVENT_CHOICES_JOIN,
    FREE_TEXT,
    REROUTE_TAKEN,
)
from agent_interrupts.workflows.shadow import SHADOW_SUFFIX
from agent_interrupts.workflows.visibility import show_interrupt
from agent_interrupts.workflows.ways_out import ContinueAt, Stop, chosen_way, request_for

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.autonomy import AutonomyActivities
    from agent_interrupts.activities.resolution import ResolutionActivities


@workflow.defn(failure_exception_types=[ValidationError, UndecodablePayload, TeamDefinitionError])
class InterruptWorkflow:
    """Waits for a resolution, then turns it into an InterruptRouting with one allowed route."""

    @workflow.init
    def __init__(self, *args: Any) -> None:
        """Takes any start input; a missing or invalid one fails the interrupt at once."""
        list_named_handlers_only()
        parsed = parse_values("start input", upgrade_start(args), InterruptInput, max_bytes=None)
        self._notifies = not started_before_notifications(args)
        self._input_problem = parsed.problem
        self._job = parsed.value or _placeholder_job()
        self._state = InterruptState.REQUESTED
        self._resolution: InterruptResolution | None = None
        self._overrulable = False
        """The controller's own answer is being translated: a person's valid answer replaces it."""
        self._handed_over = False
        """The orchestrator asks for the question back (``HAND_OVER_SIGNAL``)."""
        self._deadline: datetime | None = None
        self._hooks: list[str] = []
        self._events: list[GraphEvent] = []
        self._events_recorded = 0
        self._notify = Notifier(self._event)
        if self._job.carried is not None:  # before any handler runs: signals may come first
            self._resume_waiting(self._job.carried)

    @workflow.run
    async def run(self, *args: Any) -> InterruptOutcome:
        """Start input: one InterruptInput (built by the orchestrator)."""
        if self._input_problem is not None:
            self._event(EventKind.ERROR, self._input_problem)
            raise InvalidInput(
                f"{self._input_problem}. InterruptWorkflow is started by OrchestratorWorkflow."
            ).to_application_error()
        if self._job.carried is None:
            self._prepare_question()
        timed_out = False
        if self._job.request.type is InterruptType.AGENT_REVIEW:
            resolution = await self._review_unless_answered(ResolvedBy.AGENT_REVIEW)
        elif await self._delegated():
            resolution = await self._review_unless_answered(ResolvedBy.CONTROLLER_AUTONOMY)
        else:
            resolution, timed_out = await self._wait_for_person()
        self._resolution = resolution
        for name, resolution_hook in RESOLUTION_HOOKS:
            resolution = resolution_hook(resolution)
            self._hooks.append(name)
        self._resolution = resolution
        self._status(InterruptState.RESOLVED, f"resolved by {answerer(resolution)}")
        self._count("agents_questions_answered", resolved_by=resolution.resolved_by.value)
        self._notify.settle(NoticeKind.RESOLVED, self._job, self._deadline, resolution)
        if resolution.resolved_by is ResolvedBy.CONTROLLER_AUTONOMY:
            outcome = await self._translate_unless_overruled(resolution)
        else:
            outcome = await self._translate(resolution, timed_out)
        await self._notify.settled()
        return outcome

    @workflow.signal(
        name=RESOLVE_SIGNAL,
        description="Answer the question: one resolution JSON object (selectedChoices, "
        "customInputs, confirmations, freeText); the status query shows the question.",
    )
    @one_raw_payload
    def resolve(self, *args: object) -> None:
        """The resolution JSON (Temporal UI / CLI): any arity, size or encoding is taken; what is
        not a valid answer is recorded as a WARNING event and the wait goes on."""
        parsed = parse_raw(RESOLVE_SIGNAL, args, InterruptResolution)
        if parsed.value is None:
            self._event(EventKind.WARNING, f"ignored a malformed resolution: {self._why(parsed)}")
            return
        claimed = claims_the_workflows_own(parsed.value)
        if claimed is not None and workflow.patched(CLAIMS_REFUSED):
            self._event(EventKind.WARNING, f"ignored an invalid resolution: {claimed}")
            return
        problems = self._problems(
            parsed.value, free_text_decides=workflow.patched(FREE_TEXT), claims=False
        )
        if problems:
            self._event(EventKind.WARNING, f"ignored an invalid resolution: {'; '.join(problems)}")
            return
        self._accept(parsed.value)

    @workflow.signal(
        dynamic=True, description=f"Any other name is recorded as ignored; send {RESOLVE_SIGNAL!r}."
    )
    def unknown_signal(self, name: str, args: Sequence[RawValue]) -> None:
        """A signal of any other name: an ERROR event naming the one this workflow takes (the
        orchestrator's ``HAND_OVER_SIGNAL`` aside)."""
        if name == HAND_OVER_SIGNAL and self._job.hand_over:
            self._handed_over = True
            return
        self._event(
            EventKind.ERROR,
            f"ignored unknown signal {clip(name, 60)!r}; this workflow takes {RESOLVE_SIGNAL!r}",
        )

    @workflow.update(
        description="Answer the question, validated: the same resolution JSON as the resolve "
        "signal; a wrong answer is rejected with one line naming the problem."
    )
    @one_raw_payload
    def resolve_validated(self, *args: Any) -> ResolveAck:
        """The client SDK's way to resolve: a wrong answer is rejected with the reason."""
        resolution = parse_raw(RESOLVE_UPDATE, args, InterruptResolution).value
        if resolution is None:
            raise ApplicationError("the answer changed between validation and handling")
        if problems := self._problems(resolution, claims=False):  # cannot happen: each update's
            # validator and handler run together, so a second one is validated after the first
            # is taken (a claim of the workflow's own answer: the validator alone, so updates
            # recorded before stay taken)
            raise Rejected("resolution rejected: " + "; ".join(problems)).to_application_error()
        return ResolveAck(accepted=True, message=self._accept(resolution))

    @resolve_validated.validator
    @one_raw_payload
    def _check_resolution(self, *args: Any) -> None:
        parsed = parse_raw(RESOLVE_UPDATE, args, InterruptResolution)
        if parsed.value is None:
            raise Rejected(f"resolution rejected: {self._why(parsed)}")
        problems = self._problems(parsed.value)
        if problems:
            raise Rejected("resolution rejected: " + "; ".join(problems))

    @workflow.query(
        description="The question, its state (REQUESTED, WAITING, RESOLVED, ...), the answer "
        "and the newest events."
    )
    def status(self) -> InterruptStatus:
        return InterruptStatus(
            workflow_id=workflow.info().workflow_id,
            state=self._state,
            origin=self._job.origin,
            reroute_to=self._job.reroute_to,
            request=self._job.request,
            resolution=self._resolution,
            deadline=self._deadline,
            hooks_applied=self._hooks,
            team=self._job.team,
            events=self._events,
            events_recorded=self._events_recorded,
            continues_at=(
                _reroute_target(self._job, self._resolution, self._team)
                if self._resolution
                else None
            )
            or self._job.reroute_to
            or self._job.origin,
            answers_in_parts=self._job.answers_in_parts,
            answerers=self._job.answerers,
        )

    def _problems(
        self,
        resolution: InterruptResolution,
        *,
        free_text_decides: bool = True,
        claims: bool = True,
    ) -> list[str]:
        """Why ``resolution`` cannot be taken now; the rule is the same for signal and update
        (a signal recorded before free-text answers existed keeps the old rule on replay), and
        a fork's answer is checked by it before the fork starts (``answer_problems``).

        A person may answer while the question waits and while a reviewer works on it
        (ESCALATED): the first valid answer wins. Once resolved, later answers are refused.
        """
        if self._resolution is not None and not self._overrulable:
            by = answerer(self._resolution)
            return [f"this interrupt is already resolved (by {by}); the answer was not used"]
        return answer_problems(
            self._job, self._team, resolution, free_text_decides=free_text_decides, claims=claims
        )

    def _why(self, parsed: Parsed[InterruptResolution]) -> str | None:
        """Why an answer is not a resolution at all; an option the question does not offer is
        named against the options it does, in its own words."""
        if parsed.error is None:
            return parsed.problem
        return refused_in_words(self._job.request, parsed.raw, parsed.error)

    def _accept(self, resolution: InterruptResolution) -> str:
        """Take a person's answer; say what happens next."""
        left = left_to_text(self._job.request, resolution)
        person = resolution.model_copy(
            update={"resolved_by": ResolvedBy.HUMAN, "decided_by_text": left}
        )
        overruled = self._overrulable
        self._resolution = person
        self._overrulable = False
        origin = self._job.origin
        target = _reroute_target(self._job, person, self._team) or origin
        later = unanswered_parts(self._job.request, person) if self._job.answers_in_parts else {}
        way = chosen_way(origin, self._job.request, person, redirect_targets(origin, self._team))
        if isinstance(way, ContinueAt):  # a stuck agent's question: the orchestrator goes on
            target = way.target
        then = (
            "the run stops"
            if person.stop_run is not None or isinstance(way, Stop)
            else f"the agents you answered resume; {', '.join(later)} are asked again at once"
            if later and target == origin
            else f"{origin} resumes"
            if target == origin
            else f"the run continues at {target} (re-routed from {origin})"
        )
        if overruled:
            return f"your answer overrules the controller's; {then}"
        if self._state is InterruptState.ESCALATED:
            return f"your answer replaces the reviewer's; {then}"
        return then

    def _prepare_question(self) -> None:
        """Record the question; drop invalid recommendations; apply the request hooks."""
        job = self._job
        self._status(InterruptState.REQUESTED, f"{job.origin} asks: {clip(job.request.reason)}")
        self._count("agents_questions_asked")
        request, warnings = drop_invalid_recommendations(job.request)
        self._job = job.model_copy(update={"request": request})
        for warning in warnings:
            self._event(EventKind.WARNING, warning)
        hooks = REQUEST_HOOKS
        if job.event is not None and not workflow.patched(EVENT_CHOICES_JOIN):
            hooks = REPLACING_REQUEST_HOOKS
        for name, request_hook in hooks:
            self._job = request_hook(self._job)
            self._hooks.append(name)

    def _resume_waiting(self, carried: InterruptCarried) -> None:
        """Continue the wait of the run before this one: same question, deadline and events."""
        self._deadline = carried.deadline
        self._hooks = list(carried.hooks_applied)
        self._events = list(carried.events)
        self._events_recorded = carried.events_recorded
        self._state = InterruptState.WAITING

    async def _wait_for_person(self) -> tuple[InterruptResolution, bool]:
        """Wait for a valid answer; on the deadline apply the timeout outcome. A long wait
        continues as new when the server suggests it (e.g. under a flood of signals).

        Returns the resolution and whether the deadline passed.
        """
        job = self._job
        if job.carried is None:
            self._status(
                InterruptState.WAITING, f"waiting for a resolution (signal `{RESOLVE_SIGNAL}`)"
            )
            self._deadline = job.deadline_from(workflow.now())
        if self._notifies:
            await self._notify.start(job, self._deadline, ask=job.carried is None)
        reminders = self._due_reminders()
        while self._resolution is None:
            due = reminders[0][1] if reminders else self._deadline
            remaining = due - workflow.now() if due else None
            try:
                if remaining is not None and remaining <= timedelta(0):
                    raise TimeoutError
                await workflow.wait_condition(
                    lambda: self._resolution is not None or history_is_long() or self._handed_over,
                    timeout=remaining,
                )
            except TimeoutError:
                if not reminders:
                    break
                self._notify.send(NoticeKind.REMINDER, job, self._deadline, reminders.pop(0)[0])
                continue
            if self._resolution is None and self._handed_over:
                self._hand_back()
            if self._resolution is None:
                await workflow.wait_condition(workflow.all_handlers_finished)
                if self._resolution is None:
                    self._continue_waiting_as_new()
        if self._resolution is not None:
            return self._resolution, False
        self._status(InterruptState.TIMED_OUT, f"no answer by the deadline; {job.on_timeout}")
        if job.on_timeout is TimeoutOutcome.FAIL:
            self._notify.settle(NoticeKind.TIMED_OUT, job, self._deadline, None)
            await self._notify.settled()
            raise ApplicationError(
                f"nobody answered {job.origin}'s question within {job.timeout_seconds}s",
                type="InterruptTimedOut",
                non_retryable=True,
            )
        if job.on_timeout is TimeoutOutcome.USE_RECOMMENDED:
            return recommended_resolution(job.request), True
        return await self._review_unless_answered(ResolvedBy.TIMEOUT_ESCALATION), True

    def _hand_back(self) -> NoReturn:
        """End unanswered for the orchestrator to ask again; the failure's details are the job
        that continues this wait (deadline, reminders, events) under the same id."""
        self._status(InterruptState.HANDED_OVER, "handed back unanswered: the run asks it again")
        raise ApplicationError(
            "handed back unanswered to the orchestrator, whose history grew long while it "
            "waited; its next run asks the question again under this id",
            self._job.model_copy(update={"carried": self._carried()}).to_wire(),
            type=HANDED_OVER,
            non_retryable=True,
        )

    def _continue_waiting_as_new(self) -> NoReturn:
        self._event(EventKind.INFO, "the history grew long while waiting: continuing as new")
        workflow.continue_as_new(self._job.model_copy(update={"carried": self._carried()}))

    def _carried(self) -> InterruptCarried:
        """What the next run of this wait carries."""
        return InterruptCarried(
            deadline=self._deadline,
            hooks_applied=self._hooks,
            events=self._events,
            events_recorded=self._events_recorded,
        )

    def _due_reminders(self) -> list[tuple[Reminder, datetime]]:
        """The reminders still to send (those due before a continue-as-new were sent)."""
        timeout = self._job.timeout_seconds
        if self._deadline is None or not timeout:
            return []
        start = self._deadline - timedelta(seconds=timeout)
        planned = self._notify.reminders(start, timedelta(seconds=timeout))
        return [(reminder, due) for reminder, due in planned if due > workflow.now()]

    async def _review_unless_answered(self, by: ResolvedBy) -> InterruptResolution:
        """A reviewing LLM answers; a person's valid answer that arrives first wins."""
        job = self._job
        self._status(InterruptState.ESCALATED, f"a reviewer answers ({by}); a person still may")
        self._notify.send(NoticeKind.ESCALATED, job, self._deadline)
        review = workflow.start_activity_method(
            ResolutionActivities.review_interrupt,
            ReviewInput(goal=job.goal, request=job.request, origin_request=job.origin_request),
            **AGENT_ACTIVITY,
            summary=f"review {job.origin}'s question",
        )
        await workflow.wait_condition(lambda: self._resolution is not None or review.done())
        if self._resolution is not None:
            review.cancel()
            with contextlib.suppress(ActivityError, asyncio.CancelledError):
                await review
            self._event(EventKind.INFO, "a person answered before the reviewer; theirs is used")
            return self._resolution
        reviewed = await review
        return reviewed.model_copy(update={"resolved_by": by})

    async def _delegated(self) -> bool:
        """Whether the controller answers itself: only in a run that allows it,
        where the worker's policy and the controller's record say so; the decision is recorded
        with its figures (the activity's result and an event)."""
        job = self._job
        if not job.autonomy or job.carried is not None:
            return False
        try:
            decision = await workflow.execute_activity_method(
                AutonomyActivities.decide_autonomy,
                AutonomyQuestion(origin=job.origin, request=job.request),
                start_to_close_timeout=AUTONOMY_TIMEOUT,
                retry_policy=AGENT_RETRY,
                summary=f"may the controller answer {job.origin}'s question?",
            )
        except ActivityError as err:
            self._event(EventKind.WARNING, f"a person answers: {clip(failure_message(err), 500)}")
            return False
        self._event(EventKind.INFO, clip(decision.reason, 2_000))
        return decision.delegate and self._resolution is None

    async def _translate_unless_overruled(self, answer: InterruptResolution) -> InterruptOutcome:
        """Translate the controller's own answer; a person's valid answer that arrives before
        the translation is done overrules it and is translated instead."""
        self._overrulable = True
        translation = asyncio.create_task(self._translate(answer, False))
        await workflow.wait_condition(lambda: translation.done() or not self._overrulable)
        if self._overrulable:
            self._overrulable = False
            return translation.result()
        translation.cancel()
        with contextlib.suppress(ActivityError, asyncio.CancelledError):
            await translation
        person = self._resolution or answer  # set by the answer that overruled
        for _, resolution_hook in RESOLUTION_HOOKS:
            person = resolution_hook(person)
        self._resolution = person
        self._event(EventKind.INFO, "a person overruled the controller's answer; theirs is used")
        self._status(InterruptState.RESOLVED, "resolved by HUMAN (overruling the controller)")
        return await self._translate(person, False)

    async def _translate(
        self, resolution: InterruptResolution, timed_out: bool
    ) -> InterruptOutcome:
        job = self._job
        if resolution.stop_run is not None:  # nothing to translate: the orchestrator stops
            self._event(EventKind.INFO, f"the person stops the run: {clip(resolution.stop_run)}")
            return InterruptOutcome(routing={}, route=STOP_ROUTE, resolution=resolution)
        team = self._team
        reroute_to = _reroute_target(job, resolution, team)
        keep = allowed_route(job.origin, reroute_to, team)
        if keep is None:
            self._event(
                EventKind.WARNING,
                f"no route of the handler's routing leads to {reroute_to or job.origin}; the "
                "schema is not filtered and every route is offered",
            )
        translation = workflow.execute_activity_method(
            ResolutionActivities.translate_resolution,
            TranslationInput(
                goal=job.goal,
                request=job.request,
                resolution=resolution,
                origin=job.origin,
                origin_request=job.origin_request,
                allowed_route=keep,
                team=job.team,
                shadow_id=workflow.info().workflow_id + SHADOW_SUFFIX
                if job.shadow and resolution.resolved_by is ResolvedBy.HUMAN
                else None,
            ),
            **AGENT_ACTIVITY,
            summary=f"translate the answer into {keep or 'a route'}",
        )
        try:
            outcome = await translation
        except ActivityError as err:
            routing = None
            resumes_origin = keep == allowed_route(job.origin, None, team)
            if (
                keep is not None
                and not isinstance(err.cause, CancelledError)  # overruled: not a failure
                and (resumes_origin or workflow.patched(REROUTE_TAKEN))
                and workflow.patched(ANSWER_TAKEN)
            ):
                carried = (
                    job.origin_request
                    if resumes_origin
                    else request_for(team.node(reroute_to or job.origin).request_model, None, "")
                )
                asked_by = None if resumes_origin else str(job.origin)
                routing = untranslated_routing(
                    keep, carried or {}, job.request, resolution, team, asked_by
                )
            if routing is None:
                raise
            why = clip(failure_message(err), 1_000)
            goes_on = (
                f"{job.origin} resumes with its last request"
                if resumes_origin
                else f"the run continues at {reroute_to} with its last request"
            )
            self._event(
                EventKind.WARNING,
                f"the answer could not be translated ({why}); {goes_on} and your answer as "
                "guidance",
            )
            outcome = InterruptOutcome(
                routing=routing, route=keep, resolution=resolution, untranslated=why
            )
        routing = outcome.routing
        for name, translation_hook in TRANSLATION_HOOKS:
            routing = translation_hook(routing)
            self._hooks.append(name)
        return outcome.model_copy(update={"routing": routing, "timed_out": timed_out})

    @property
    def _team(self) -> Team:
        """The asking run's team: its routes, its questions, its handler routing."""
        return team_of(self._job.team)

    def _count(self, name: str, **labels: str) -> None:
        """One question asked or answered, on the worker's metrics (replay-safe meter)."""
        counter = workflow.metric_meter().create_counter(name, "Questions by the asking agent")
        counter.add(1, {"origin": str(self._job.origin), **labels})

    def _status(self, state: InterruptState, message: str) -> None:
        self._state = state
        self._event(EventKind.INTERRUPT_STATUS, f"{state}: {message}")
        show_interrupt(self._job, state, workflow.info().workflow_id, workflow.now())

    def _event(self, kind: EventKind, message: str) -> None:
        job = self._job
        event = GraphEvent(
            kind=kind,
            message=message,
            node_id=job.origin_node_id,
            agent_type=job.origin,
            at=workflow.now(),
        )
        self._events_recorded = record_event(self._events, self._events_recorded, event)
        log_event(event)


def _reroute_target(job: InterruptInput, resolution: InterruptResolution, team: Team) -> str | None:
    """The agent a person chose to continue at; else an event choice that names an agent; else
    the event's target, if any."""
    if resolution.continue_at is not None and resolution.continue_at != job.origin:
        return resolution.continue_at
    if job.event is not None:
        selected = resolution.selected_choices.get(EVENT_CHOICE_ID)
        chosen = job.event.route_of_option(selected, team.route_targets()) if selected else None
        if chosen is not None:
            return chosen
    return job.reroute_to


RESOLVE_UPDATE = "resolve_validated"


PLACEHOLDER_AGENT = "NO_VALID_INPUT"
"""The agent the placeholder of a missing or invalid start input names: no team's agent (a
team's question is read as any team's, ``TeamInterruptRequest``)."""


def _placeholder_job() -> InterruptInput:
    """Stands in for a start input that was missing or invalid (the run then fails at once):
    it names no team's agent and asks nothing."""
    return InterruptInput.model_validate(
        {
            "orchestratorId": "",
            "goal": "",
            "request": {
                "origin": PLACEHOLDER_AGENT,
                "type": InterruptType.PAUSE,
                "reason": "(no valid start input)",
                "choices": [],
                "confirmationItems": [],
                "contextForDecision": "",
            },
            "origin": PLACEHOLDER_AGENT,
            "originNodeId": "",
            "originRequest": {},
        }
    )
