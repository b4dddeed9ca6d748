"""Interrupt activities: translate a resolution into a routing (US23, FR-102) and
answer an interrupt by a reviewing LLM call (AGENT_REVIEW, or escalation after a deadline)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from temporalio import activity

from agent_interrupts.activities.heartbeat import heartbeating
from agent_interrupts.activities.kept_calls import KeptCalls, activity_key, fingerprint
from agent_interrupts.activities.llm import (
    CONTROLLER,
    StructuredLlm,
    StructuredReply,
    as_activity_error,
)
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.route_filter import routing_schema
from agent_interrupts.activities.shadow_start import ShadowStarter
from agent_interrupts.models.interrupt_flow import (
    AgentReviewDecision,
    InterruptOutcome,
    ReviewInput,
    TranslationInput,
)
from agent_interrupts.models.interrupts import InterruptResolution, ResolvedBy
from agent_interrupts.models.policies import AGENT_HEARTBEAT_INTERVAL
from agent_interrupts.models.resolution_rules import describe_resolution, recommended_resolution
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team_build import TEAMS, TeamRegistry

TRANSLATOR = "INTERRUPT_TRANSLATOR"


def translation_messages(
    prompts: PromptRenderer, job: TranslationInput, teams: TeamRegistry = TEAMS
) -> list[dict[str, str]]:
    """What the translator is asked: the question, the answer and the origin's last request;
    the reply's type is the run's team's handler routing."""
    system = prompts.render(
        "interrupt/translate.jinja",
        allowed_route=job.allowed_route,
        output_name=teams.of(job.team).interrupt_routing.__name__,
    )
    answer = describe_resolution(job.request, job.resolution)
    return _with_question(prompts, system, job, str(job.origin), answer)


def review_messages(prompts: PromptRenderer, job: ReviewInput) -> list[dict[str, str]]:
    """What the reviewer (the controller) is asked: the question and its context."""
    system = prompts.render("interrupt/review.jinja")
    return _with_question(prompts, system, job, str(job.request.origin), None)


def _with_question(
    prompts: PromptRenderer,
    system: str,
    job: ReviewInput | TranslationInput,
    origin: str,
    resolution_text: str | None,
) -> list[dict[str, str]]:
    user = prompts.render(
        "interrupt/_question.jinja",
        goal=job.goal,
        origin=origin,
        request=job.request.to_wire(),
        resolution_text=resolution_text,
        origin_request_json=json.dumps(job.origin_request, indent=2, ensure_ascii=False),
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


class ResolutionActivities:
    """LLM calls of the unified interrupt handler."""

    def __init__(
        self,
        llm: StructuredLlm,
        prompts: PromptRenderer,
        shadows: ShadowStarter | None = None,
        teams: TeamRegistry = TEAMS,
    ) -> None:
        self._llm = llm
        self._prompts = prompts
        self._teams = teams
        """The worker's declared teams (a question carries its team whole)."""
        self._shadows = shadows
        """Starts the controller's shadow answers; None: a worker without them."""
        self._calls: KeptCalls[StructuredReply] = KeptCalls()
        """This worker's translation and review calls by activity: an attempt the server lost in
        an outage leaves its call running for the next attempt (``activities/kept_calls.py``)."""

    @activity.defn
    async def translate_resolution(self, job: TranslationInput) -> InterruptOutcome:
        """Ask the LLM for the filtered InterruptRouting that carries the person's decisions
        (once: a later attempt of one the server lost joins its call)."""
        allowed = job.allowed_route
        routing_model = self._teams.of(job.team).interrupt_routing

        def only_allowed(routing: Routing) -> None:
            route = routing.chosen_route()[0]
            if allowed is not None and route != allowed:
                raise ValueError(f"set {allowed!r}, the only allowed route, not {route!r}")

        if job.shadow_id is not None:
            if self._shadows is None:
                activity.logger.warning("%s: this worker starts no shadow answers", job.shadow_id)
            else:
                self._shadows.start(job, activity.info().task_queue)
        messages = translation_messages(self._prompts, job, self._teams)
        reply = await self._asked_once(
            job,
            lambda: self._llm.complete(
                agent=TRANSLATOR,
                messages=messages,
                output_model=routing_model,
                template_version=self._prompts.template_version,
                schema=routing_schema(allowed, self._llm.settings.profile, routing_model),
                check=only_allowed,
            ),
        )
        routing: Routing = reply.value
        return InterruptOutcome(
            routing=routing.to_wire(),
            route=routing.chosen_route()[0],
            resolution=job.resolution,
            call=reply.call,
        )

    async def _asked_once(
        self,
        job: TranslationInput | ReviewInput,
        complete: Callable[[], Awaitable[StructuredReply]],
    ) -> StructuredReply:
        """``complete()`` for this activity, heartbeating, kept across attempts the server lost
        (``KeptCalls``); a failure leaves as the activity's error."""
        try:
            async with heartbeating(AGENT_HEARTBEAT_INTERVAL):
                return await self._calls.run(activity_key(), fingerprint(job), complete)
        except Exception as err:
            raise as_activity_error(err) from None

    @activity.defn
    async def review_interrupt(self, job: ReviewInput) -> InterruptResolution:
        """A reviewing LLM (CONTROLLER_MODEL when set) answers the question; unknown ids fall
        back to the recommendations. Asked once, like a translation."""
        messages = review_messages(self._prompts, job)
        reply = await self._asked_once(
            job,
            lambda: self._llm.complete(
                agent=CONTROLLER,
                messages=messages,
                output_model=AgentReviewDecision,
                template_version=self._prompts.template_version,
            ),
        )
        decision: AgentReviewDecision = reply.value
        fallback = recommended_resolution(job.request)
        offered = {c.choice_id: c.offered() for c in job.request.choices}
        selected = dict(fallback.selected_choices)
        custom: dict[str, str] = {}
        for d in decision.decisions:
            if d.choice_id in offered and d.option in offered[d.choice_id]:
                if d.option.value == "CUSTOM" and not (d.custom_input or "").strip():
                    continue
                selected[d.choice_id] = d.option
                if d.custom_input and d.option.value == "CUSTOM":
                    custom[d.choice_id] = d.custom_input
        confirmations = dict(fallback.confirmations)
        for c in decision.confirmations:
            if c.confirmation_id in confirmations:
                confirmations[c.confirmation_id] = c.answer
        return InterruptResolution(
            selected_choices=selected,
            custom_inputs=custom,
            confirmations=confirmations,
            free_text=decision.rationale,
            resolved_by=ResolvedBy.AGENT_REVIEW,
            call=reply.call,
        )
