"""Curated contexts in a declared team's prompts (agents US3): what its collectors established,
as its request's ``contexts`` carries it, shown once with each context's id."""

from __future__ import annotations

from typing import Any

from agent_interrupts.activities.contributors.base import PromptContext, PromptContributor
from agent_interrupts.models.contexts import TEAM_CONTEXTS_FIELD
from agent_interrupts.models.limits import compact_json
from agent_interrupts.models.team import Team

VALUE_CHARS = 1_500
"""The most of one curated field the section shows (the request holds it whole)."""
INTRO = (
    "Earlier collectors of your team established what follows. Build on it instead of doing "
    "that work again, and name a context's id when you rely on it. Your request's "
    f"`{TEAM_CONTEXTS_FIELD}` holds the same contexts whole."
)


class CuratedContextsContributor(PromptContributor):
    """The curated contexts of a declared team's collectors that the request carries."""

    name = "curated-contexts"
    title = "Curated contexts"
    order = 25
    applies_to = None

    def applies(self, agent: str, team: Team) -> bool:
        """Any agent of a team whose collectors are curated this way (the software team's
        collectors have typed contexts of their own, in their own request fields)."""
        return bool(team.curated)

    def contribute(self, ctx: PromptContext) -> str | None:
        carried = ctx.request.get(TEAM_CONTEXTS_FIELD)
        if not isinstance(carried, list):
            return None
        blocks = [_block(c) for c in carried if isinstance(c, dict)]
        return "\n\n".join([INTRO, *blocks]) if blocks else None


def _block(context: dict[str, Any]) -> str:
    curation = context.get("curation")
    fields = curation.items() if isinstance(curation, dict) else ()
    lines = [f"[{context.get('contextId')}] from {context.get('agentType')}:"]
    lines += [f"- {name}: {_shown(value)}" for name, value in fields]
    return "\n".join(lines)


def _shown(value: object) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        text = "; ".join(value)
    else:
        return compact_json(value, VALUE_CHARS)
    if len(text) <= VALUE_CHARS:
        return text
    return f"{text[:VALUE_CHARS]}... [cut: {len(text) - VALUE_CHARS} more characters]"
