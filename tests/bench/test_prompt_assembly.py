"""Smoke test for the prompt-assembly bench: it runs with tiny counts and reports sanely."""

from __future__ import annotations

from agent_interrupts.activities.contributors.loop_breaker import INTERRUPT_LOOP_THRESHOLD
from agent_interrupts.models.graph import NODES
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS, AgentType
from bench.prompt_assembly import blackboard, measure, realistic_call, report


def test_the_blackboard_has_the_requested_size_and_the_agents_own_interrupts() -> None:
    for size in (0, 1, 50, 200):
        assert len(blackboard(size)) == size
    own = blackboard(200, AgentType.REVIEW_AGENT)
    interrupts = [
        e for e in own if e.kind == "INTERRUPT" and e.agent_type is AgentType.REVIEW_AGENT
    ]
    assert len(interrupts) > INTERRUPT_LOOP_THRESHOLD
    assert len({e.context_id for e in own}) == len(own)


def test_realistic_calls_validate_and_collectors_get_agent_results() -> None:
    call = realistic_call(AgentType.TICKET_COLLECTOR, 10)
    NODES[AgentType.TICKET_COLLECTOR].request_model.model_validate(call.request)
    assert len(call.request["agentResults"]) == 2
    assert call.previous is not None and call.interrupt_resolution


async def test_bench_measures_every_agent_and_reports() -> None:
    result = await measure(repeats=2, activity_runs=1, history=20, size_histories=(0, 20))

    assert {t.agent for t in result.timings} == set(NODES)
    for t in result.timings:
        assert len(t.assembly_us) == 2 and len(t.activity_us) == 1
        assert t.assembly_median > 0 and t.activity_median > 0
        assert t.warnings == 0
        assert t.sections == (2 if t.agent in DISPATCHED_AGENTS else 4), t.agent  # no workspace
    assert set(result.sizes) == set(NODES)
    assert all(set(s) == {0, 20} and s[0] > 100 for s in result.sizes.values())
    text = report(result)
    for expected in (
        "vs agents SC-002 (100 ms)",
        "vs our 5 ms aim",
        "assembly / agent activity",
        "prompt size, system + user message, in ",
        "part by part:",
    ):
        assert expected in text
