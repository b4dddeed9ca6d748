"""ShadowAnswerWorkflow: the controller model answers a question a person already answered.
The translation of the person's answer starts it, with a start delay, and
does not wait for it, so it never delays or changes the run; its result is the record."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError

from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupt_flow import ShadowAnswer, ShadowInput
from agent_interrupts.models.limits import clip
from agent_interrupts.models.policies import (
    AGENT_ACTIVITY,
)

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.resolution import ResolutionActivities

SHADOW_SUFFIX = "-shadow"
"""A shadow answer's workflow id: the interrupt's id and this."""


@workflow.defn
class ShadowAnswerWorkflow:
    """One controller call; a failure is recorded as a warning, never raised."""

    @workflow.run
    async def run(self, job: ShadowInput) -> ShadowAnswer:
        try:
            answer = await workflow.execute_activity_method(
                ResolutionActivities.review_interrupt,
                job.review,
                **AGENT_ACTIVITY,
                summary="the controller answers in a person's shadow",
            )
        except ActivityError as err:
            message = clip(failure_message(err), 2_000)
            workflow.logger.warning(
                "the shadow answer failed (the run is not affected): %s", message
            )
            return ShadowAnswer(error=message)
        return ShadowAnswer(answer=answer)
