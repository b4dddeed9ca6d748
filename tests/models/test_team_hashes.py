"""A pinned team's content hash never changes: runs recorded by landed versions name their team
by it, and a worker finds the team by it (growing the team language must keep old hashes)."""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_interrupts.models.team_spec import TeamSpec

HISTORIES = Path(__file__).parents[1] / "histories"


def _payload_values(node: Any) -> Iterator[Any]:
    if isinstance(node, dict):
        data = node.get("data")
        if isinstance(data, str) and "metadata" in node:
            with contextlib.suppress(ValueError):
                yield json.loads(base64.b64decode(data))
        for value in node.values():
            yield from _payload_values(value)
    elif isinstance(node, list):
        for value in node:
            yield from _payload_values(value)


def _pins(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if isinstance(node.get("spec"), dict) and node.get("sha256"):
            yield node
        for value in node.values():
            yield from _pins(value)
    elif isinstance(node, list):
        for value in node:
            yield from _pins(value)


def test_every_recorded_pin_hashes_to_its_recorded_hash() -> None:
    checked = 0
    for path in sorted(HISTORIES.glob("*/*.json")):
        text = path.read_text()
        if "sha256" not in text and "c2hhMjU2" not in text:
            continue
        for value in _payload_values(json.loads(text)):
            for pin in _pins(value):
                spec = TeamSpec.model_validate(pin["spec"])
                assert spec.sha256() == pin["sha256"], f"{path.name}: {spec.name}"
                checked += 1
    assert checked >= 3
