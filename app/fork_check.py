"""The activity a fork runs before its first step: its link checked against the parent's
history (``docs/forks.md``, ``models/fork_check.py``).

The worker rebuilds the fork's start input as ``agents fork`` builds it: the run the link
names is read and replayed, cut at the link's point (``app/forks.py``), the question moved to
the fork's id or the step's changes applied, the link set. Its digest must be the one the fork
took of the input it was started with, and the link's point and size the ones the history
gives; a QUESTION fork's answer must be one its question takes. Otherwise the check fails, not
retryably, in one line naming the parent and the point, and the run ends before any step.
"""

from __future__ import annotations

from temporalio import activity
from temporalio.client import Client

from agent_interrupts.app.forks import (
    answer_problems,
    asked_in_fork,
    linked,
    question_point,
    run_events,
    state_before_step,
    state_in_history,
    step_index,
    step_point,
    with_changes,
)
from agent_interrupts.models.errors import ForkRefused
from agent_interrupts.models.fork_check import (
    CHECK_FORK_LINK,
    ForkCheck,
    carried_bytes,
    link_problems,
    link_refusal,
    start_digest,
)
from agent_interrupts.models.forks import ForkLink, ForkPointKind, StepChanges
from agent_interrupts.models.limits import clip
from agent_interrupts.models.state import OrchestratorInput


@activity.defn(name=CHECK_FORK_LINK)
async def check_fork_link(check: ForkCheck) -> None:
    """Does the fork's link hold? Returns when it does; fails with ForkRefused (not retried)
    when it does not. A server that cannot be reached is retried (the workflow's policy)."""
    link = check.link
    try:
        fork_id = activity.info().workflow_id or ""
        start, rebuilt = await rebuilt_start(activity.client(), fork_id, link)
    except ForkRefused as err:
        raise ForkRefused(link_refusal(link, [str(err)])).to_application_error() from None
    problems = link_problems(link, rebuilt, start_digest(start) == check.digest)
    if problems:
        raise ForkRefused(link_refusal(link, problems)).to_application_error()


async def rebuilt_start(
    client: Client, fork_id: str, link: ForkLink
) -> tuple[OrchestratorInput, ForkLink]:
    """The start input fork ``fork_id`` would have been started with for ``link``, as it
    reaches the fork (through its wire form), and the link with its parent's point and size as
    the history gives them. ForkRefused (one line) when the link names no such point, or a
    QUESTION fork's answer its question does not take."""
    parent = link.parent
    run_id, events = await run_events(client, parent.workflow_id, parent.run_id)
    point = link.point
    if point.kind is ForkPointKind.QUESTION:
        question_id = point.question_id or ""
        found = await state_in_history(client, parent.workflow_id, run_id, events, question_id)
        if link.answer is not None and (problems := answer_problems(found.question, link.answer)):
            raise ForkRefused(f"its answer is refused: {'; '.join(problems)}")
        start = asked_in_fork(found, fork_id)
        rebuilt_point = question_point(found, question_id)
    else:
        step = point.step or ""
        index = await step_index(client, events, step)
        if index is None:
            raise ForkRefused(f"run {run_id} never ran a step {clip(step, 200)}")
        at_step = await state_before_step(client, parent.workflow_id, run_id, events, index, step)
        start = with_changes(at_step, link.changes or StepChanges())
        rebuilt_point = step_point(at_step, step)
    rebuilt = link.model_copy(
        update={"point": rebuilt_point, "carried_bytes": carried_bytes(start)}
    )
    wire = linked(start, link).model_dump_json(by_alias=True)
    return OrchestratorInput.model_validate_json(wire), rebuilt
