"""Pin the run's team once, at its start: the team (its content hash and everything it declares)
is the activity's result in history, so a worker redeployed with an edited team never changes a
running run."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError

from agent_interrupts.models.errors import InvalidInput, failure_message
from agent_interrupts.models.policies import TEAM_LOAD_RETRY, TEAM_LOAD_TIMEOUT
from agent_interrupts.models.state import EventKind
from agent_interrupts.models.team_build import TeamDefinitionError, build_team
from agent_interrupts.models.team_spec import TeamPin
from agent_interrupts.workflows.run_book import RunBook

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.teams import TeamActivities


async def pin_team(book: RunBook, name: str) -> None:
    """Read the team ``name`` from the worker, record it in the run's state and set its first
    step; a worker that does not serve it, or a team no run can follow, fails the run at once."""
    try:
        pin: TeamPin = await workflow.execute_activity_method(
            TeamActivities.load_team,
            name,
            start_to_close_timeout=TEAM_LOAD_TIMEOUT,
            retry_policy=TEAM_LOAD_RETRY,
            summary=f"pin team {name}",
        )
        team = build_team(pin.spec) if pin.spec is not None else None
    except ActivityError as err:
        book.fail(InvalidInput(f"the team was not pinned: {failure_message(err)}"))
    except TeamDefinitionError as err:
        book.fail(InvalidInput(f"team {name!r} cannot be followed: {err}"))
    if team is None:
        book.fail(InvalidInput(f"team {name!r} came without its definition"))
    book.team_pinned(pin, team)
    book.event(EventKind.INFO, f"team {team.name} pinned (content {team.sha256[:12]})")
