"""The request a node resumes with after an interrupt: carried inputs plus deliberate changes."""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.requests import AgentRequest


def resumed_request(
    model: type[AgentRequest], carried: dict[str, Any], translated: AgentRequest
) -> dict[str, Any]:
    """Merge the node's last request (``carried``, wire form) with the translated one.

    Every input of ``carried`` is kept unless the translation deliberately changed it: fields the
    model never writes (``SkipJsonSchema``: agent results, curated contexts) always come
    from ``carried``; a field the translation left empty (``""``, ``[]``, ``None``) keeps the
    carried value; any other translated value wins (handler SC-002: a node resumed after its
    question keeps what it was given).
    """
    merged = dict(carried)
    wire = translated.to_wire()
    for name, field in model.model_fields.items():
        key = field.alias or name
        if key not in wire or _system_only(field.metadata):
            continue
        value = wire[key]
        if _is_empty(value) and key in carried:
            continue
        merged[key] = value
    return merged


def _system_only(metadata: list[Any]) -> bool:
    return any(type(m) is SkipJsonSchema for m in metadata)


def _is_empty(value: object) -> bool:
    return value is None or value == "" or value == [] or value == {}
