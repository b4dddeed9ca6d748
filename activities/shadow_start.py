"""Starting the controller's shadow answer from the translation activity.

The start is a background RPC with a start delay: the translation returns at once, and the
shadow's work begins after the run's next step has the worker and the model. A retried
translation finds the shadow already started; a failed start is logged as a warning, nothing
more (the shadow is never a problem for the run).
"""

from __future__ import annotations

import asyncio

from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import WorkflowAlreadyStartedError

from agent_interrupts.models.interrupt_flow import ReviewInput, ShadowInput, TranslationInput
from agent_interrupts.models.policies import SHADOW_DELAY

SHADOW_WORKFLOW = "ShadowAnswerWorkflow"
"""``workflows.shadow.ShadowAnswerWorkflow``, by name (that module imports the activities)."""


class ShadowStarter:
    """Starts shadow answers on the worker's client; keeps its background starts alive."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._starting: set[asyncio.Task[None]] = set()

    def start(self, job: TranslationInput, task_queue: str) -> None:
        """Start ``job``'s shadow (its ``shadow_id``) in the background."""
        if job.shadow_id is None:
            return
        review = ReviewInput(goal=job.goal, request=job.request, origin_request=job.origin_request)
        shadow = ShadowInput(origin=job.origin, review=review, person=job.resolution)
        task = asyncio.create_task(self._start(job.shadow_id, shadow, task_queue))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _start(self, workflow_id: str, job: ShadowInput, task_queue: str) -> None:
        try:
            await self._client.start_workflow(
                SHADOW_WORKFLOW,
                job,
                id=workflow_id,
                task_queue=task_queue,
                start_delay=SHADOW_DELAY,
                static_summary=f"the controller's shadow answer to {job.origin}",
            )
        except WorkflowAlreadyStartedError:
            pass  # a retried translation: it was started the first time
        except Exception as err:  # the shadow is never a problem for the run
            activity.logger.warning("the shadow answer %s did not start: %s", workflow_id, err)
