"""A fork's first run checks its link before its first step (``docs/forks.md``): a worker
rebuilds the state the fork was started with from the parent's history at the point
(``CHECK_FORK_LINK``); a link that does not hold fails the run at once, in one line naming the
parent and the point, before any agent step or model call."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

from agent_interrupts.models.errors import ForkRefused, failure_message
from agent_interrupts.models.fork_check import CHECK_FORK_LINK, ForkCheck, link_refusal
from agent_interrupts.models.forks import ForkLink
from agent_interrupts.models.policies import FORK_CHECK_RETRY, FORK_CHECK_TIMEOUT
from agent_interrupts.workflows.run_book import RunBook


async def check_fork_link(book: RunBook, link: ForkLink, digest: str) -> None:
    """Return once a worker found ``link`` to hold for the start input whose digest is
    ``digest``; fail the run (ForkRefused) otherwise."""
    try:
        await workflow.execute_activity(
            CHECK_FORK_LINK,
            ForkCheck(link=link, digest=digest),
            start_to_close_timeout=FORK_CHECK_TIMEOUT,
            retry_policy=FORK_CHECK_RETRY,
            summary=f"check the fork's link to {link.parent.workflow_id}"[:200],
        )
    except ActivityError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type == ForkRefused.__name__:
            book.fail(ForkRefused(failure_message(err)))
        book.fail(ForkRefused(link_refusal(link, [f"it was not checked: {failure_message(err)}"])))
