"""SC-011 in the schema a model is held to: a discovery report has at least 5 tags, 3 generated
queries and 10 file references, in every profile (``LLM_PROFILE=small`` bounded each list to one
item); the model still validates a report recorded with fewer, and the offline model's reports
meet them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema, longest_reply
from agent_interrupts.app.stats import SC011_QUERIES, SC011_REFERENCES, SC011_TAGS
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.routing import Routing
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.results import DiscoveryAgentResult

MINIMUMS = {
    "tags": SC011_TAGS,
    "generatedQueries": SC011_QUERIES,
    "fileReferences": SC011_REFERENCES,
}
MODEL = NODES[AgentType.DISCOVERY_AGENT].output_model
MESSAGES = [{"role": "user", "content": "Goal: add rate limiting to the gateway\nNode: d-1"}]


def _report_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["$defs"][DiscoveryAgentResult.__name__]


@pytest.mark.parametrize("profile", list(OutputProfile), ids=lambda p: p.value)
def test_every_profile_holds_a_discovery_report_to_sc011(profile: OutputProfile) -> None:
    schema = decoder_schema(MODEL, profile)
    properties = _report_schema(schema)["properties"]
    for name, least in MINIMUMS.items():
        assert properties[name]["minItems"] == least, name
        assert properties[name]["maxItems"] >= least, name
    assert (SC011_TAGS, SC011_QUERIES, SC011_REFERENCES) == (5, 3, 10)
    if profile is OutputProfile.SMALL:  # minutes of a small model on a CPU, not more
        assert longest_reply(schema) < 4_000


def test_a_report_recorded_with_fewer_still_validates() -> None:
    """Results recorded before the minimums (histories that must replay) keep their lists."""
    report = DiscoveryAgentResult.model_validate(
        {
            "resultId": "wf/discovery-agent/1/x",
            "subdomain": "gateway",
            "summary": "thin",
            "findings": [],
            "fileReferences": [],
            "crossLinks": [],
            "tags": ["gateway"],
            "generatedQueries": [],
            "diagrams": [],
        }
    )
    assert report.tags == ["gateway"] and report.file_references == []


@pytest.mark.parametrize("profile", list(OutputProfile), ids=lambda p: p.value)
def test_the_offline_models_reports_meet_sc011(profile: OutputProfile) -> None:
    schema = decoder_schema(MODEL, profile)
    body = {
        "model": "offline",
        "response_format": {"json_schema": {"name": MODEL.__name__, "schema": schema}},
        "messages": MESSAGES,
    }
    content = json.loads(OfflineModel().completion(body)["choices"][0]["message"]["content"])
    routing = MODEL.model_validate(content.get("routing", content))
    assert isinstance(routing, Routing)
    route, _, report = routing.chosen_route()
    assert route == "result" and isinstance(report, DiscoveryAgentResult)
    assert len(report.tags) >= SC011_TAGS
    assert len(report.generated_queries) >= SC011_QUERIES
    assert len(report.file_references) >= SC011_REFERENCES
