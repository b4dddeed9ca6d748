"""A fork's link checked by the run it starts (``docs/forks.md``): what the check takes, the
digest of the start input it compares, and why a link does not hold (pure).

A fork starts from a state its starter hands it. Before its first step the run asks a worker
to rebuild that state from the parent's history at the link's point (``app/fork_check.py``, by
the same replay ``agents fork`` uses) and to compare it with what the run was started with: a
link that does not hold ends the run at once, failed in one line naming the parent and the
point.
"""

from __future__ import annotations

import hashlib

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.forks import ForkLink
from agent_interrupts.models.limits import clip
from agent_interrupts.models.state import OrchestratorInput

CHECK_FORK_LINK = "check_fork_link"
"""The activity that checks a fork's link, by name (the worker's app layer defines it)."""


class ForkCheck(WireModel):
    """What the check activity takes: the link as the fork was started with it, and the digest
    of its whole start input (``start_digest``), taken before the run changed anything."""

    link: ForkLink
    digest: str


def start_digest(start: OrchestratorInput) -> str:
    """SHA-256 of the start input's wire form: the same on both sides of the check when the
    input is the one the parent's history gives at the point, whatever carried it."""
    return hashlib.sha256(start.model_dump_json(by_alias=True).encode()).hexdigest()


def carried_bytes(start: OrchestratorInput) -> int:
    """The size of the state a fork starts from, in JSON bytes (``ForkLink.carriedBytes``)."""
    carried = start.carried_state
    return len(carried.model_dump_json(by_alias=True)) if carried is not None else 0


def link_problems(claimed: ForkLink, rebuilt: ForkLink, same_start: bool) -> list[str]:
    """Why the link a fork was started with (``claimed``) is not the one the parent's history
    gives (``rebuilt``: its parent, point and size as the replay found them), and whether the
    start input was the rebuilt one (``same_start``)."""
    problems: list[str] = []
    if claimed.point != rebuilt.point:
        problems.append(
            "the point's agent or time is not the parent's "
            f"({claimed.point.agent_type} at {claimed.point.at}, the history says "
            f"{rebuilt.point.agent_type} at {rebuilt.point.at})"
        )
    if claimed.carried_bytes != rebuilt.carried_bytes:
        problems.append(
            f"it says it carries {claimed.carried_bytes} bytes, the parent's state there is "
            f"{rebuilt.carried_bytes}"
        )
    if not same_start:
        problems.append("the state it was started with is not the one the parent held there")
    return problems


def link_refusal(link: ForkLink, problems: list[str]) -> str:
    """The one line a fork whose link does not hold fails with: the parent, the point, why."""
    return clip(
        f"this fork's link does not hold: {link.parent.workflow_id} (run "
        f"{link.parent.run_id}) at {link.point.label()}: {'; '.join(problems)}; start forks "
        "with `agents fork` or client.fork, which build the state from the parent's history",
        1000,
    )
