"""A team with record fields on the strict-schema path: in every profile every object is
closed with all its properties required, every string and array bounded (a list's declared
minimum kept), what the schema admits the validator accepts, and the offline model's replies
validate, questions with record fields included."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.output_schema import (
    OutputProfile,
    decoder_schema,
    longest_reply,
    reply_json,
)
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import build_team
from tests.support.record_team import record_team
from tests.support.schema_strategy import instances


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Team:
    return build_team(record_team(tmp_path_factory.mktemp("field-maps")))


def _outputs(team: Team) -> list[type[BaseModel]]:
    return [*(n.output_model for n in team.nodes.values()), team.interrupt_routing]


def _walk(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        found.append((path, node))
        for key, value in node.items():
            found += _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _walk(value, f"{path}[{i}]")
    return found


@pytest.mark.parametrize("profile", list(OutputProfile))
def test_every_record_is_closed_and_bounded_in_every_profile(
    team: Team, profile: OutputProfile
) -> None:
    for model in _outputs(team):
        schema = decoder_schema(model, profile)
        assert {"Place", "Diagram", "Edge"} & set(schema["$defs"]), model.__name__
        for path, node in _walk(schema):
            at = f"{model.__name__}-{profile.value}{path}"
            if node.get("type") == "object":
                assert node["additionalProperties"] is False, at
                assert node["required"] == list(node["properties"]), at
            if node.get("type") == "string" and "enum" not in node:
                assert isinstance(node.get("maxLength"), int), at
            if node.get("type") == "array":
                assert node.get("minItems", 0) <= node["maxItems"], at
        assert longest_reply(schema) > 0
    surveyor = decoder_schema(team.nodes["SURVEYOR"].output_model, profile)
    diagrams = surveyor["$defs"]["FieldMapsSurveyorResult"]["properties"]["diagrams"]
    assert diagrams["minItems"] == 3 and diagrams["maxItems"] >= 3
    assert "checked" not in json.dumps(surveyor)  # a filled field is never asked for


@pytest.mark.parametrize("profile", list(OutputProfile))
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=st.data())
def test_what_a_record_schema_admits_the_validator_accepts(
    team: Team, profile: OutputProfile, data: st.DataObject
) -> None:
    for model in _outputs(team):
        schema = decoder_schema(model, profile)
        reply = json.dumps(data.draw(instances(schema)))
        try:
            model.model_validate_json(reply_json(reply, schema))
        except ValidationError as err:
            pytest.fail(f"{model.__name__}: admitted, refused: {err}\n{reply}")


@pytest.mark.parametrize("profile", list(OutputProfile))
@pytest.mark.parametrize("scenario", ["", "interrupt=SURVEYOR,MAPPER"])
def test_the_offline_models_replies_validate(
    team: Team, profile: OutputProfile, scenario: str
) -> None:
    offline = OfflineModel(OfflineScenario.parse(scenario, list(team.nodes)))
    for node in team.nodes.values():
        schema = decoder_schema(node.output_model, profile)
        reply = offline.answer(node.output_model.__name__, schema, [])
        routing = node.output_model.model_validate_json(reply)
        if scenario:
            question = routing.to_wire()["interruptRequest"]
            assert isinstance(question, dict)
            if node.agent_type == "SURVEYOR":
                assert set(question["where"]) == {"path", "line", "checked"}
                assert question["where"]["checked"] is True  # its default: the model never wrote it
        elif node.agent_type == "SURVEYOR":
            assert len(routing.to_wire()["result"]["diagrams"]) == 3  # its min_items
