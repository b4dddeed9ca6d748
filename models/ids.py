"""Context ids: ``wf-<run>/<agent-type>/<seq>/<timestamp>`` (FR-013)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from agent_interrupts.models.agent_types import from_slug, slug

_CONTEXT_ID = re.compile(
    r"^wf-(?P<run>[^/]+)/(?P<agent>[a-z][a-z0-9-]*)/(?P<seq>\d{3,})/(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$"
)


def make_context_id(run_id: str, agent_type: str, seq: int, at: datetime) -> str:
    """Build a context id from workflow time and a per-run counter (deterministic)."""
    return f"wf-{run_id}/{slug(agent_type)}/{seq:03d}/{utc_stamp(at)}"


def utc_stamp(at: datetime) -> str:
    """``at`` in UTC to the second, ``2026-01-19T10:30:00Z``: what ``strftime`` with
    ``%Y-%m-%dT%H:%M:%SZ`` gives (the year always 4 digits), formatted without it. ``strftime``
    imports the ``time`` module at every call, and inside a workflow's sandbox each import goes
    through the sandbox's importer: about 0.1 ms of a workflow task per context id."""
    u = at.astimezone(UTC)
    return f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}Z"


def parse_context_id(context_id: str) -> tuple[str, str, int, datetime]:
    """Split a context id into run id, agent type, sequence number and timestamp."""
    match = _CONTEXT_ID.match(context_id)
    if match is None:
        raise ValueError(
            f"{context_id!r} is not a context id; expected wf-<run>/<agent-type>/<seq>/<timestamp>"
        )
    agent = from_slug(match["agent"])
    at = datetime.strptime(match["ts"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return match["run"], agent, int(match["seq"]), at


def is_context_id(text: str) -> bool:
    """Whether ``text`` has the shape of a context id."""
    return _CONTEXT_ID.match(text) is not None


def ref_component(text: str) -> str:
    """``text`` as one git-ref and file-name component (at most 100 characters, never empty)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", text).replace("..", ".").strip(".-")
    return name[:100] or "x"


def agent_key(agent: str, index: int) -> str:
    """``ticket-agent-2``: the second agent of a fan-out, counted from 1."""
    return f"{slug(agent)}-{index}"


def dispatched_node_id(node_id: str, agent_key: str, runs: int) -> str:
    """Where a dispatched agent runs in its dispatch node: ``ticket-dispatch-033/ticket-agent-2``
    the first time, ``ticket-dispatch-033/ticket-agent-2.2`` when it runs again there with its
    answer (each run its own node id: its tool trace and commit stay its own)."""
    return f"{node_id}/{agent_key}" + (f".{runs}" if runs > 1 else "")


def dispatched_agent_key(node_id: str) -> str:
    """``.../ticket-agent-2.2`` -> ``ticket-agent-2``: the agent a dispatched node id names."""
    return re.sub(r"\.\d+$", "", node_id.rsplit("/", 1)[-1])
