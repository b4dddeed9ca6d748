"""Curated contexts (agents US3): a declared collector's chosen result fields, capped; the
software team's contexts keep their wire shape; a request's curated ids include a declared team's
``contexts``."""

from __future__ import annotations

from agent_interrupts.models.contexts import (
    TeamContext,
    capped,
    curate_team,
    curated_ids_in,
    curated_in,
)
from agent_interrupts.models.limits import (
    CURATED_CONTEXT_BYTES,
    MAX_REQUEST_CONTEXTS,
    json_bytes,
)
from agent_interrupts.teams.software.contexts import (
    CuratedContexts,
    PlanningCollectorContext,
    PlanningCuration,
)


def _team_context(agent: str, n: int) -> TeamContext:
    return TeamContext(
        context_id=f"wf-r/{agent.lower()}/{n:03d}/2026-01-01T00:00:00Z",
        source_result_id=f"wf-r/{agent.lower()}/{n - 1:03d}/2026-01-01T00:00:00Z",
        agent_type=agent,
        curation={"overview": f"run {n}"},
    )


def test_a_declared_collectors_context_keeps_the_named_fields() -> None:
    result = {
        "resultId": "wf-r/sum/004/2026-01-01T00:00:00Z",
        "upstreamContextIds": ["wf-r/lead/001/2026-01-01T00:00:00Z"],
        "teamAgent": "SUM",
        "overview": "two sites are at risk",
        "risks": ["flood", "fire"],
        "confidence": "HIGH",
    }
    context = curate_team("SUM", result, ("overview", "risks"), "wf-r/sum/005/x")
    assert context.to_wire() == {
        "contextId": "wf-r/sum/005/x",
        "sourceResultId": "wf-r/sum/004/2026-01-01T00:00:00Z",
        "agentType": "SUM",
        "curation": {"overview": "two sites are at risk", "risks": ["flood", "fire"]},
    }


def test_a_curated_context_is_capped_however_its_fields_are_made() -> None:
    many_short = {f"f{i}": ["x" * 450] * 16 for i in range(16)}  # 16 x 16 strings at the floor
    long_text = {"a": "y" * 100_000, "b": "z" * 50_000}
    numbers = {f"n{i}": list(range(10**6, 10**6 + 16)) for i in range(16)} | {"t": "ok"}
    for values in (many_short, long_text, numbers):
        context = curate_team("SUM", {"resultId": "r", **values}, tuple(values), "c")
        assert json_bytes(context.curation) <= CURATED_CONTEXT_BYTES
        assert context.curation, "what fits is kept"
    assert capped({"a": "small"}, CURATED_CONTEXT_BYTES) == {"a": "small"}


def test_the_software_teams_contexts_keep_their_wire_shape() -> None:
    curated = CuratedContexts()
    assert curated.to_wire() == {
        "discoveryContext": None,
        "planningContext": None,
        "ticketContext": None,
    }
    planning = PlanningCollectorContext(
        context_id="c1",
        source_result_id="r1",
        curation=PlanningCuration(summary="s", tickets=[], execution_order=[]),
    )
    curated.keep(planning)
    assert curated.planning_context is planning and "teamContexts" not in curated.to_wire()


def test_each_collector_keeps_its_latest_and_a_request_carries_the_newest() -> None:
    curated = CuratedContexts()
    agents = [f"SUM_{i}" for i in range(MAX_REQUEST_CONTEXTS + 1)]
    for n, agent in enumerate(agents):
        curated.keep(_team_context(agent, n + 10))
    again = _team_context(agents[0], 99)
    curated.keep(again)
    assert [c.agent_type for c in curated.team_contexts] == [*agents[1:], agents[0]]
    assert curated.carried() == curated.team_contexts[-MAX_REQUEST_CONTEXTS:]
    assert curated.carried()[-1] is again
    restored = CuratedContexts.model_validate(curated.to_wire())
    assert restored == curated, "the workflow's state round-trips"


def test_a_requests_curated_ids_include_a_declared_teams_contexts() -> None:
    one, two = _team_context("SUM", 4), _team_context("TALLY", 8)
    request = {
        "guidance": "g",
        "contexts": [one.to_wire(), two.to_wire()],
        "discoveryContext": {"contextId": "d1", "sourceResultId": "r0"},
    }
    assert curated_ids_in(request) == ["d1", one.context_id, two.context_id]
    assert [c["contextId"] for c in curated_in(request)] == ["d1", one.context_id, two.context_id]
    assert curated_ids_in({"guidance": "g", "contexts": "not a list"}) == []
