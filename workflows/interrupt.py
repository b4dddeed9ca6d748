"""InterruptWorkflow: the one handler of every interrupt (spec 002 US1/US2/US4, FR-001..012)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError
from temporalio import workflow
from temporalio.exceptions import ApplicationError

from models.agent_types import AgentType
from models.errors import describe_validation_error
from models.interrupt_events import EVENT_CHOICE_ID
from models.interrupt_flow import (
    InterruptInput,
    InterruptOutcome,
    InterruptState,
    InterruptStatus,
    ResolveAck,
    ReviewInput,
    RouteFilterInput,
    TimeoutOutcome,
    TranslationInput,
)
from models.interrupts import InterruptResolution, InterruptType, ResolvedBy
from models.state import EventKind, GraphEvent
from workflows.interrupt_hooks import REQUEST_HOOKS, RESOLUTION_HOOKS, TRANSLATION_HOOKS
from workflows.policies import (
    AGENT_HEARTBEAT_TIMEOUT,
    AGENT_RETRY,
    AGENT_START_TO_CLOSE,
    QUICK_RETRY,
    ROUTE_FILTER_START_TO_CLOSE,
)
from workflows.resolution_rules import recommended_resolution, resolution_problems

with workflow.unsafe.imports_passed_through():
    from activities.resolution import ResolutionActivities
    from activities.route_filter import filter_interrupt_routing


@workflow.defn(failure_exception_types=[ValidationError])
class InterruptWorkflow:
    """Waits for a resolution, then turns it into an InterruptRouting with one allowed route."""

    @workflow.init
    def __init__(self, job: InterruptInput) -> None:
        self._job = job
        self._state = InterruptState.REQUESTED
        self._resolution: InterruptResolution | None = None
        self._deadline: datetime | None = None
        self._hooks: list[str] = []
        self._events: list[GraphEvent] = []

    @workflow.run
    async def run(self, job: InterruptInput) -> InterruptOutcome:
        self._status(InterruptState.REQUESTED, f"{job.origin} asks: {job.request.reason}")
        for name, request_hook in REQUEST_HOOKS:
            self._job = request_hook(self._job)
            self._hooks.append(name)
        timed_out = False
        if self._job.request.type is InterruptType.AGENT_REVIEW:
            self._resolution = await self._review()
        else:
            timed_out = not await self._wait_for_person()
        assert self._resolution is not None
        resolution = self._resolution
        for name, resolution_hook in RESOLUTION_HOOKS:
            resolution = resolution_hook(resolution)
            self._hooks.append(name)
        self._resolution = resolution
        self._status(InterruptState.RESOLVED, f"resolved by {resolution.resolved_by}")
        return await self._translate(resolution, timed_out)

    @workflow.signal
    def resolve(self, payload: Any) -> None:
        """The resolution JSON (Temporal UI / CLI). Invalid ones are recorded and ignored."""
        try:
            resolution = InterruptResolution.model_validate(payload)
        except ValidationError as err:
            self._event(
                EventKind.WARNING,
                f"ignored a malformed resolution: {describe_validation_error(err)}",
            )
            return
        problems = self._problems(resolution)
        if problems:
            self._event(EventKind.WARNING, f"ignored an invalid resolution: {'; '.join(problems)}")
            return
        self._resolution = resolution

    @workflow.update
    def resolve_validated(self, resolution: InterruptResolution) -> ResolveAck:
        """The client SDK's way to resolve: a wrong answer is rejected with the reason."""
        self._resolution = resolution
        return ResolveAck(accepted=True, message=f"{self._job.origin} resumes")

    @resolve_validated.validator
    def _check_resolution(self, resolution: InterruptResolution) -> None:
        problems = self._problems(resolution)
        if problems:
            raise ValueError("resolution rejected: " + "; ".join(problems))

    @workflow.query
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
            events=self._events,
        )

    def _problems(self, resolution: InterruptResolution) -> list[str]:
        if self._resolution is not None:
            return ["this interrupt is already resolved"]
        return resolution_problems(self._job.request, resolution)

    async def _wait_for_person(self) -> bool:
        """Wait for a valid resolution; on the deadline apply the timeout outcome."""
        job = self._job
        self._status(InterruptState.WAITING, "waiting for a resolution (signal `resolve`)")
        timeout = timedelta(seconds=job.timeout_seconds) if job.timeout_seconds else None
        if timeout is not None:
            self._deadline = workflow.now() + timeout
        try:
            await workflow.wait_condition(lambda: self._resolution is not None, timeout=timeout)
            return True
        except TimeoutError:
            pass
        self._status(InterruptState.TIMED_OUT, f"no answer by the deadline; {job.on_timeout}")
        if job.on_timeout is TimeoutOutcome.FAIL:
            raise ApplicationError(
                f"nobody answered {job.origin}'s question within {job.timeout_seconds}s",
                type="InterruptTimedOut",
                non_retryable=True,
            )
        if job.on_timeout is TimeoutOutcome.USE_RECOMMENDED:
            self._resolution = recommended_resolution(job.request)
        else:
            reviewed = await self._review()
            self._resolution = reviewed.model_copy(
                update={"resolved_by": ResolvedBy.TIMEOUT_ESCALATION}
            )
        return False

    async def _review(self) -> InterruptResolution:
        job = self._job
        return await workflow.execute_activity_method(
            ResolutionActivities.review_interrupt,
            ReviewInput(goal=job.goal, request=job.request, origin_request=job.origin_request),
            start_to_close_timeout=AGENT_START_TO_CLOSE,
            heartbeat_timeout=AGENT_HEARTBEAT_TIMEOUT,
            retry_policy=AGENT_RETRY,
            summary=f"review {job.origin}'s question",
        )

    async def _translate(
        self, resolution: InterruptResolution, timed_out: bool
    ) -> InterruptOutcome:
        job = self._job
        reroute_to = _reroute_target(job, resolution)
        filtered = await workflow.execute_activity(
            filter_interrupt_routing,
            RouteFilterInput(origin=job.origin, reroute_to=reroute_to),
            start_to_close_timeout=ROUTE_FILTER_START_TO_CLOSE,
            retry_policy=QUICK_RETRY,
            summary=f"filter InterruptRouting for {reroute_to or job.origin}",
        )
        if filtered.warning:
            self._event(EventKind.WARNING, filtered.warning)
        outcome = await workflow.execute_activity_method(
            ResolutionActivities.translate_resolution,
            TranslationInput(
                goal=job.goal,
                request=job.request,
                resolution=resolution,
                origin=job.origin,
                origin_request=job.origin_request,
                schema_=filtered.schema_,
                allowed_route=filtered.kept_route,
            ),
            start_to_close_timeout=AGENT_START_TO_CLOSE,
            heartbeat_timeout=AGENT_HEARTBEAT_TIMEOUT,
            retry_policy=AGENT_RETRY,
            summary=f"translate the answer into {filtered.kept_route or 'a route'}",
        )
        routing = outcome.routing
        for name, translation_hook in TRANSLATION_HOOKS:
            routing = translation_hook(routing, job.goal)
            self._hooks.append(name)
        return outcome.model_copy(update={"routing": routing, "timed_out": timed_out})

    def _status(self, state: InterruptState, message: str) -> None:
        self._state = state
        self._event(EventKind.INTERRUPT_STATUS, f"{state}: {message}")

    def _event(self, kind: EventKind, message: str) -> None:
        job = self._job
        self._events.append(
            GraphEvent(
                kind=kind,
                message=message,
                node_id=job.origin_node_id,
                agent_type=job.origin,
                at=workflow.now(),
            )
        )
        log = workflow.logger.warning if kind is EventKind.WARNING else workflow.logger.info
        log("%s %s", kind, message)


def _reroute_target(job: InterruptInput, resolution: InterruptResolution) -> AgentType | None:
    """An event choice that names an agent decides the route; else the event's target, if any."""
    if job.event is not None:
        selected = resolution.selected_choices.get(EVENT_CHOICE_ID)
        chosen = job.event.route_of_option(selected) if selected else None
        if chosen is not None:
            return chosen
    return job.reroute_to
