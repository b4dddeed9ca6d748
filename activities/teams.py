"""The teams a worker serves, and the teams of the runs it works for.

A run pins its team at its start (``workflows/teams.py``: ``load_team``'s result, whole, is in
its history); its agent calls carry the team's name and content hash alone. A worker finds the
team by that hash: among the teams it serves, those it has seen, else in the run's own history
(a worker redeployed with an edited team file still serves the runs pinned to the old one).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from temporalio import activity
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from agent_interrupts.models.errors import UnknownTeam
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import TeamNotHere, TeamRegistry
from agent_interrupts.models.team_spec import SOFTWARE_TEAM_NAME, TeamPin, TeamSpec

LOAD_TEAM = "load_team"


class TeamActivities:
    """Serves the declared teams the worker was configured with (AGENTS_TEAMS and the teams
    shipped in the package)."""

    def __init__(self, teams: Mapping[str, TeamSpec]) -> None:
        self._teams = dict(teams)

    @activity.defn(name=LOAD_TEAM)
    async def load_team(self, name: str) -> TeamPin:
        """The team ``name`` as this worker serves it, with its content hash."""
        spec = self._teams.get(name)
        if spec is None:
            served = ", ".join(sorted({SOFTWARE_TEAM_NAME, *self._teams}))
            raise UnknownTeam(
                f"this worker does not serve team {name!r} (it serves: {served}); add the "
                "team's file to AGENTS_TEAMS on the worker"
            ).to_application_error()
        return TeamPin(name=spec.name, sha256=spec.sha256(), spec=spec)


class TeamFinder:
    """Finds the team an activity's pin names: by its hash in the worker's registry (the teams
    it serves and has seen), else in the history of the run the activity works for."""

    def __init__(self, client: Client, teams: TeamRegistry) -> None:
        self._client = client
        self.teams = teams

    async def team(self, pin: TeamPin | None) -> Team:
        """The team of ``pin``; UnknownTeam (not retried) when neither the worker nor the
        run's history has it."""
        try:
            return self.teams.of(pin)
        except TeamNotHere:
            assert pin is not None  # the software team is always here
        found = await self._from_history(pin.sha256)
        if found is None:
            raise UnknownTeam(
                f"team {pin.name!r} (content {pin.sha256[:12]}) is neither served by this worker "
                "nor in its run's history"
            )
        return self.teams.remember(found)

    async def _from_history(self, sha256: str) -> TeamPin | None:
        """The pinned team in the history of the activity's run (``PinnedTeamReader``)."""
        info = activity.info()
        handle = self._client.get_workflow_handle(
            info.workflow_id or "", run_id=info.workflow_run_id
        )
        reader = PinnedTeamReader()
        async for event in handle.fetch_history_events():
            pin = reader.read(event)
            if pin is not None and pin.sha256 == sha256:
                return pin
        return None


class PinnedTeamReader:
    """The one reader of a run's pinned team in its history: fed the run's events in order, it
    returns the team, whole, from the event that holds it (``load_team``'s result, or the state
    a run continued as new with); ``pinned``: the last one read."""

    def __init__(self) -> None:
        self._loading: set[int] = set()
        self.pinned: TeamPin | None = None

    def read(self, event: HistoryEvent) -> TeamPin | None:
        """The team ``event`` holds, whole; None for every other event."""
        kind = event.event_type
        pin: TeamPin | None = None
        if kind == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            started = event.workflow_execution_started_event_attributes
            pin = carried_pin(started.input.payloads)
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled = event.activity_task_scheduled_event_attributes
            if scheduled.activity_type.name == LOAD_TEAM:
                self._loading.add(event.event_id)
        elif kind == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            done = event.activity_task_completed_event_attributes
            if done.scheduled_event_id in self._loading and done.result.payloads:
                pin = _pin(_json(done.result.payloads[0].data))
        if pin is None or pin.spec is None:
            return None
        self.pinned = pin
        return pin


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _pin(value: Any) -> TeamPin | None:
    try:
        return TeamPin.model_validate(value)
    except ValidationError:
        return None


def carried_pin(inputs: Sequence[Payload]) -> TeamPin | None:
    """The team a run's start input carries (the state of a run that continued as new); None
    for any other input, whatever its shape."""
    for value in (_json(p.data) for p in inputs):
        carried = value.get("carriedState") if isinstance(value, dict) else None
        team = carried.get("team") if isinstance(carried, dict) else None
        if isinstance(team, dict):
            return _pin(team)
    return None
