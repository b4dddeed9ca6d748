"""The route filter (spec 000 FilterPropertiesDecorator; FR-003..005, SC-003).

The InterruptRouting schema of a translation keeps only the allowed route, non-null and required,
and the ``$defs`` it reaches (transitively): the decoder schema of that one route
(``activities/output_schema.py``). The interrupt workflow decides the allowed route
(``workflows/resolution_rules.allowed_route``); the translation activity builds the filtered schema
for its LLM call, once per route per worker (no extra activity hop).
"""

from __future__ import annotations

from typing import Any

from activities.output_schema import OutputProfile, decoder_schema
from models.agent_types import AgentType
from models.interrupts import InterruptRouting

ROUTE_OF: dict[AgentType, str] = {
    agent: route for agent in AgentType if (route := InterruptRouting.route_for(agent)) is not None
}
"""The InterruptRouting field that leads back to each agent (spec 000's mapping table)."""


def routing_schema(
    keep: str | None, profile: OutputProfile = OutputProfile.STANDARD
) -> dict[str, Any]:
    """The InterruptRouting schema filtered to route ``keep`` (None: every route, one variant
    each), bounded by ``profile``."""
    return decoder_schema(InterruptRouting, profile, None if keep is None else (keep,))
