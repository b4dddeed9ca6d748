"""The route filter (spec 000 FilterPropertiesDecorator; FR-003..005, SC-003).

From the strict InterruptRouting schema keep only the allowed route property, drop its null
branch, keep ``required`` in step, and prune every ``$defs`` entry the kept property no longer
reaches (transitively). The interrupt workflow decides the allowed route
(``workflows/resolution_rules.allowed_route``); the translation activity builds the filtered schema
for its LLM call, once per route per worker (no extra activity hop).
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from activities.llm import strict_schema
from models.agent_types import AgentType
from models.interrupts import InterruptRouting

ROUTE_OF: dict[AgentType, str] = {
    agent: route for agent in AgentType if (route := InterruptRouting.route_for(agent)) is not None
}
"""The InterruptRouting field that leads back to each agent (spec 000's mapping table)."""


def routing_schema(keep: str | None) -> dict[str, Any]:
    """The strict InterruptRouting schema filtered to route ``keep`` (None: unfiltered)."""
    return copy.deepcopy(_routing_schema(keep))


@functools.cache
def _routing_schema(keep: str | None) -> dict[str, Any]:
    schema = strict_schema(InterruptRouting)
    return schema if keep is None else filter_schema(schema, keep)


def filter_schema(schema: dict[str, Any], keep: str) -> dict[str, Any]:
    """A copy of ``schema`` with only property ``keep`` (non-null) and the $defs it reaches."""
    out = copy.deepcopy(schema)
    prop = out["properties"][keep]
    options = prop.get("anyOf")
    if options:
        non_null = [o for o in options if o.get("type") != "null"]
        prop = non_null[0] if len(non_null) == 1 else {**prop, "anyOf": non_null}
    out["properties"] = {keep: prop}
    out["required"] = [keep]
    defs = out.get("$defs", {})
    reached: set[str] = set()
    pending = _refs(prop)
    while pending:
        name = pending.pop()
        if name in reached or name not in defs:
            continue
        reached.add(name)
        pending |= _refs(defs[name])
    if defs:
        out["$defs"] = {k: v for k, v in defs.items() if k in reached}
        if not out["$defs"]:
            del out["$defs"]
    return out


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= _refs(value)
    return found
