"""The teams a worker serves: the run's team, read once at its start (``workflows/teams.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from temporalio import activity

from agent_interrupts.models.errors import UnknownTeam
from agent_interrupts.models.team_spec import SOFTWARE_TEAM_NAME, TeamPin, TeamSpec


class TeamActivities:
    """Serves the declared teams the worker was configured with (AGENTS_TEAMS and the teams
    shipped in the package)."""

    def __init__(self, teams: Mapping[str, TeamSpec]) -> None:
        self._teams = dict(teams)

    @activity.defn(name="load_team")
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
