"""A declared team's list field may declare its least items (``min_items = 3``): the schema a
model writes to carries it as ``minItems`` in every profile, the prompt says it, the offline
model meets it; it is refused on a field that is not a list or outside 1 to 16; a team that
declares none keeps its content hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.errors import TeamFileError
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team_build import build_team, team_problems
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.models.team_spec import TeamSpec

TEAM = """
name = "grant-review"

[agents.INTAKE]
role = "orchestrator"
template = "intake.jinja"

[agents.INTAKE.routes]
END = "Decided."

[agents.INTAKE.result]
reviewers = { type = "list[str]", description = "Who reviews it.", min_items = 3 }
notes = "list[str]"

[agents.INTAKE.question]
conflicts = { type = "list[str]", description = "Conflicts to clear.", min_items = 2 }
"""


def _spec(tmp_path: Path, text: str = TEAM) -> TeamSpec:
    (tmp_path / "team.toml").write_text(text)
    (tmp_path / "intake.jinja").write_text('{% extends "workflow/_agent_base.jinja" %}')
    return load_team_file(tmp_path / "team.toml")


def _result_schema(schema: dict[str, object]) -> dict[str, object]:
    defs = schema["$defs"]
    assert isinstance(defs, dict)
    return next(v for k, v in defs.items() if k.endswith("IntakeResult"))


@pytest.mark.parametrize("profile", list(OutputProfile), ids=lambda p: p.value)
def test_a_list_fields_minimum_is_its_schemas_min_items_in_every_profile(
    tmp_path: Path, profile: OutputProfile
) -> None:
    team = build_team(_spec(tmp_path))
    model = team.node("INTAKE").output_model
    schema = decoder_schema(model, profile)
    fields = _result_schema(schema)["properties"]
    assert isinstance(fields, dict)
    assert fields["reviewers"]["minItems"] == 3 and fields["reviewers"]["maxItems"] >= 3
    assert "minItems" not in fields["notes"]
    body = {
        "model": "offline",
        "response_format": {"json_schema": {"name": model.__name__, "schema": schema}},
        "messages": [{"role": "user", "content": "Goal: fund the mill\nNode: intake-1"}],
    }
    content = json.loads(OfflineModel().completion(body)["choices"][0]["message"]["content"])
    routing = model.model_validate(content.get("routing", content))
    assert isinstance(routing, Routing)
    assert len(routing.to_wire()["result"]["reviewers"]) >= 3
    # the validator holds the same minimum: a model not held to the schema is refused too
    fewer = dict(content.get("routing", content))
    fewer["result"] = {**fewer["result"], "reviewers": ["ada"]}
    with pytest.raises(ValidationError, match="at least 3 items"):
        model.model_validate(fewer)


def test_the_prompt_says_a_question_fields_minimum(tmp_path: Path) -> None:
    team = build_team(_spec(tmp_path))
    call = AgentCall(
        node_id="intake-001",
        agent_type="INTAKE",
        result_id="wf/intake/1/x",
        goal="fund the mill",
        request={"guidance": "Plan."},
    )
    system = PromptRenderer().agent_messages(team.node("INTAKE"), call, team).system
    assert "- `conflicts` (list of text, 2 to 16 items): Conflicts to clear." in system


@pytest.mark.parametrize(
    ("field", "problem"),
    [
        (
            '{ type = "str", min_items = 2 }',
            "result field notes: min_items is for a list; the field's type is str",
        ),
        (
            '{ type = "list[str]", min_items = 0 }',
            "result.notes.min_items: Input should be greater than or equal to 1",
        ),
        (
            '{ type = "list[int]", min_items = 17 }',
            "result.notes.min_items: Input should be less than or equal to 16",
        ),
    ],
)
def test_a_minimum_off_a_list_or_out_of_bounds_is_refused(
    tmp_path: Path, field: str, problem: str
) -> None:
    text = TEAM.replace('notes = "list[str]"', f"notes = {field}")
    with pytest.raises(TeamFileError) as refused:
        _spec(tmp_path, text)
    assert f"agent INTAKE: {problem}" in str(refused.value)


def test_a_team_that_declares_no_minimum_keeps_its_content_hash() -> None:
    spec = load_team_file(builtin_team_files()["incident-response"])
    assert "minItems" not in json.dumps(spec.to_wire())
    assert not team_problems(spec)
    again = TeamSpec.model_validate(spec.to_wire())
    assert again.sha256() == spec.sha256()
