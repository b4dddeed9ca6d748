"""Curated, typed upstream contexts (agents US3, agents FR-012..015): what downstream agents get
instead of whole upstream results, each with its own context id and its source result id.

Every curated context is a ``CuratedContext``. A declared team's collectors (role ``collector``)
get a ``TeamContext``: the result fields the team names, capped, carried by every later request
of the team in its ``contexts`` field (``docs/teams.md``). The software team's collectors have
typed curations of their own, each in its own request field (``teams/software/contexts.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.limits import CURATED_CONTEXT_BYTES, fit_strings, json_bytes


class CuratedContext(WireModel):
    """The Curation mixin: every curated context names itself and the result it came from."""

    context_id: str
    source_result_id: str


class TeamContext(CuratedContext):
    """A declared team's collector's curated context: the result fields its team names."""

    agent_type: str
    """The collector whose result it was curated from."""
    curation: dict[str, Any]
    """Those fields (camelCase, as the result has them), capped at ``CURATED_CONTEXT_BYTES``."""


TEAM_CONTEXTS_FIELD = "contexts"
"""The request field of a declared team's agents that carries its collectors' curated contexts
(filled by the workflow; a team may not declare a request field by this name)."""
_CONTEXT_KEYS = ("discoveryContext", "planningContext", "ticketContext")
"""The request fields (camelCase) that carry the software team's typed curated contexts
(``teams/software/contexts.py``)."""


def curated_in(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The curated contexts a request (camelCase JSON) carries, in its fields' order."""
    found = [c for k in _CONTEXT_KEYS if isinstance(c := request.get(k), dict)]
    team = request.get(TEAM_CONTEXTS_FIELD)
    if isinstance(team, list):
        found += [c for c in team if isinstance(c, dict) and "sourceResultId" in c]
    return [c for c in found if "contextId" in c]


def curated_ids_in(request: dict[str, Any]) -> list[str]:
    """Context ids of the curated contexts a request (camelCase JSON) carries."""
    return [str(c["contextId"]) for c in curated_in(request)]


def curate_team(
    agent: str, result: dict[str, Any], fields: Sequence[str], context_id: str
) -> TeamContext:
    """A declared collector's curated context: ``fields`` (JSON names) of its ``result``,
    capped at ``CURATED_CONTEXT_BYTES``."""
    chosen = {name: result[name] for name in fields if name in result}
    return TeamContext(
        context_id=context_id,
        source_result_id=str(result.get("resultId") or ""),
        agent_type=agent,
        curation=capped(chosen, CURATED_CONTEXT_BYTES),
    )


def capped(values: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """``values`` in at most ``max_bytes`` of compact JSON: the longest texts cut first
    (``fit_strings``), then the longest list loses its last item, then (lists empty) the last
    field goes, until it fits."""
    fitted: dict[str, Any] = fit_strings(values, max_bytes)
    if json_bytes(fitted) <= max_bytes:
        return fitted
    fitted = {k: list(v) if isinstance(v, list) else v for k, v in fitted.items()}
    sizes = {k: json_bytes(v) for k, v in fitted.items() if isinstance(v, list)}
    total = json_bytes(fitted)
    while fitted and total > max_bytes:  # sizes kept as they change: each step is cheap
        lists = [k for k in sizes if fitted[k]]
        if lists:
            longest = max(lists, key=sizes.__getitem__)
            item = fitted[longest].pop()
            lost = json_bytes(item) + (1 if fitted[longest] else 0)  # and its comma
            sizes[longest] -= lost
            total -= lost
        else:
            sizes.pop(last := next(reversed(fitted)), None)
            fitted.pop(last)
            total = json_bytes(fitted)
    return fitted
