"""The schema a model is asked to write (``activities/output_schema.py``): every string and array
bounded, exactly one route by the schema's shape, and whatever it admits the validator accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from agent_interrupts.activities.output_schema import (
    BOUNDS,
    REPLY_KEY,
    OutputProfile,
    decoder_schema,
    reply_json,
    strict_schema,
    variants,
)
from agent_interrupts.activities.route_filter import ROUTE_OF, routing_schema
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.interrupt_flow import AgentReviewDecision
from agent_interrupts.models.routing import Routing
from agent_interrupts.teams.software.routings import InterruptRouting
from tests.support.schema_strategy import instances

OUTPUTS: list[type[BaseModel]] = [
    *dict.fromkeys(n.output_model for n in NODES.values()),
    InterruptRouting,
    AgentReviewDecision,
]
SCHEMAS: list[tuple[str, type[BaseModel], dict[str, Any]]] = [
    *((f"{m.__name__}-{p.value}", m, decoder_schema(m, p)) for m in OUTPUTS for p in OutputProfile),
    *(
        (f"InterruptRouting.{r}-{p.value}", InterruptRouting, routing_schema(r, p))
        for r in sorted(set(ROUTE_OF.values()))
        for p in OutputProfile
    ),
]


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


@pytest.mark.parametrize(("name", "model", "schema"), SCHEMAS, ids=[s[0] for s in SCHEMAS])
def test_every_string_and_array_is_bounded(
    name: str, model: type[BaseModel], schema: dict[str, Any]
) -> None:
    for path, node in _walk(schema):
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "string" in kinds and "enum" not in node:
            assert isinstance(node.get("maxLength"), int), f"{name}{path}: unbounded string"
        if "array" in kinds:
            assert isinstance(node.get("maxItems"), int), f"{name}{path}: unbounded array"


@pytest.mark.parametrize("model", [m for m in OUTPUTS if issubclass(m, Routing)])
def test_a_routing_offers_one_closed_variant_per_route_each_with_its_route_required(
    model: type[Routing],
) -> None:
    schema = decoder_schema(model)
    assert schema["required"] == [REPLY_KEY] and schema["additionalProperties"] is False
    routes = model.route_aliases()
    offered = variants(schema)
    assert [[p for p in v["properties"] if p in routes] for v in offered] == [[r] for r in routes]
    for variant in offered:
        assert variant["additionalProperties"] is False
        assert variant["required"] == list(variant["properties"])
        route = next(p for p in variant["properties"] if p in routes)
        assert {"type": "null"} not in variant["properties"][route].get("anyOf", []), route
    strict = strict_schema(model)
    assert set(schema.get("$defs", {})) <= set(strict["$defs"]), "only the strict schema's defs"


def test_the_small_profile_bounds_more_tightly() -> None:
    small, standard = BOUNDS[OutputProfile.SMALL], BOUNDS[OutputProfile.STANDARD]
    assert small.text < standard.text and small.items < standard.items
    for model in OUTPUTS:
        tight = len(json.dumps(decoder_schema(model, OutputProfile.SMALL)))
        assert tight <= len(json.dumps(decoder_schema(model))) + 200, model


@pytest.mark.parametrize(("name", "model", "schema"), SCHEMAS, ids=[s[0] for s in SCHEMAS])
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_what_the_schema_admits_the_validator_accepts(
    name: str, model: type[BaseModel], schema: dict[str, Any], data: st.DataObject
) -> None:
    reply = json.dumps(data.draw(instances(schema)))
    try:
        model.model_validate_json(reply_json(reply, schema))
    except ValidationError as err:
        pytest.fail(f"{name}: the schema admits a reply the validator refuses: {err}\n{reply}")
