"""The export's ``door``: after ``answeredBy`` when a person's answer says where it came from, and
left out otherwise, so answers recorded before it existed export byte for byte as they did."""

from __future__ import annotations

import json
from dataclasses import replace

from agent_interrupts.app.export import Example, Kind, native_line, openai_line
from agent_interrupts.models.interrupts import ResolvedBy

BEFORE = Example(
    kind=Kind.RESOLUTION,
    agent_type="ORCHESTRATOR",
    schema_name="AgentReviewDecision",
    prompt=[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    answer="{}",
    input={},
    output={"selectedChoices": {"approach": "A"}, "resolvedBy": "HUMAN", "answeredBy": "ada"},
    workflow_id="wf",
    run_id="r",
    first_run_id="r",
    node_id="n",
    consumed=[],
    produced=[],
    call=None,
    resolved_by=ResolvedBy.HUMAN,
    answered_by="ada",
)


def test_an_answer_without_a_door_exports_as_before() -> None:
    native = native_line(BEFORE)
    keys = list(native)
    assert "door" not in native
    assert keys[keys.index("answeredBy") + 1] == "consumedContextIds"
    metadata = openai_line(BEFORE, metadata=True)["metadata"]
    assert "door" not in metadata and list(metadata)[-2:] == ["answeredBy", "diff"]


def test_a_door_follows_the_name() -> None:
    with_door = replace(BEFORE, door="slack")
    native = native_line(with_door)
    keys = list(native)
    assert keys[keys.index("answeredBy") + 1] == "door" and native["door"] == "slack"
    assert {k: v for k, v in native.items() if k != "door"} == native_line(BEFORE)
    metadata = openai_line(with_door, metadata=True)["metadata"]
    assert list(metadata)[-3:] == ["answeredBy", "door", "diff"]
    assert json.dumps(native_line(BEFORE)) == json.dumps(native_line(replace(BEFORE, door=None)))
