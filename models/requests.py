"""The request every agent's request extends (``AgentRequest``). The software team's requests are
``teams/software/requests.py``'s; a declared team's are generated from its file
(``models/team_build.py``).

Fields wrapped in ``SkipJsonSchema`` are filled by the workflow, not by the model that routes.
"""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.base import WireModel

CONTEXT_FOUND = "Context found:"
"""Starts the line the workflow adds to a request when the context manager hands back to it."""


class AgentRequest(WireModel):
    """Base of every request. ``guidance`` carries instructions and any decisions a person made."""

    goal: SkipJsonSchema[str] = ""
    guidance: str = Field(
        description="What the next agent must do, including every decision a person made."
    )
