"""Context curation's pure decisions (agents US3): which collector's result becomes which
curated context, and which requests carry it; the software team's requests are filled as they
always were."""

from __future__ import annotations

from agent_interrupts.models.contexts import TeamContext
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import configured_teams
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.contexts import CuratedContexts
from agent_interrupts.workflows.curation import curate, with_contexts

TEAM = build_team(configured_teams({})["incident-response"])
FINDINGS = {
    "result": {
        "resultId": "wf-r/findings-collector/009/2026-01-01T00:00:00Z",
        "upstreamContextIds": [],
        "teamAgent": "FINDINGS_COLLECTOR",
        "rootCause": "the cache expires every key at once",
        "confidence": "HIGH",
    },
    "remediationRequest": {"guidance": "fix it", "rootCause": "the cache"},
}


def test_a_declared_collectors_result_is_curated_and_no_other_agents() -> None:
    context = curate(TEAM, "FINDINGS_COLLECTOR", FINDINGS, "wf-r/findings-collector/010/x")
    assert isinstance(context, TeamContext)
    assert context.curation == {
        "rootCause": "the cache expires every key at once",
        "confidence": "HIGH",
    }
    assert curate(TEAM, "REMEDIATION", {"result": {"actions": []}}, "c") is None
    assert curate(TEAM, "FINDINGS_COLLECTOR", {"interruptRequest": {}}, "c") is None
    assert curate(SOFTWARE_TEAM, "FINDINGS_COLLECTOR", FINDINGS, "c") is None


def test_every_later_request_of_the_team_carries_its_contexts() -> None:
    curated = CuratedContexts()
    context = curate(TEAM, "FINDINGS_COLLECTOR", FINDINGS, "wf-r/findings-collector/010/x")
    assert context is not None
    curated.keep(context)
    for agent in ("REMEDIATION", "TRIAGE", "INVESTIGATOR", "INVESTIGATION_DISPATCH"):
        model = TEAM.nodes[agent].request_model
        request, ids = with_contexts(curated, model, {"guidance": "g"} | _required(agent))
        assert request["contexts"] == [context.to_wire()] and ids == [context.context_id]
    empty, ids = with_contexts(CuratedContexts(), TEAM.nodes["REMEDIATION"].request_model, {})
    assert (empty, ids) == ({}, []), "nothing curated yet: the request as it was"


def test_the_software_teams_requests_never_carry_a_declared_teams_contexts() -> None:
    curated = CuratedContexts()
    context = curate(TEAM, "FINDINGS_COLLECTOR", FINDINGS, "c")
    assert context is not None
    curated.keep(context)
    request = {"guidance": "g", "reviewFocus": "f"}
    model = NODES[AgentType.REVIEW_AGENT].request_model
    assert with_contexts(curated, model, request) == (request, [])


def _required(agent: str) -> dict[str, object]:
    return {
        "REMEDIATION": {"rootCause": "r"},
        "INVESTIGATOR": {"hypothesis": "h"},
        "INVESTIGATION_DISPATCH": {"requests": [{"guidance": "g", "hypothesis": "h"}]},
    }.get(agent, {})
