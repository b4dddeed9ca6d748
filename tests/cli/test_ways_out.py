"""The terminal's menu is a door like the others: besides an agent's own options it offers
stopping the run (S, with a reason) and going on at one of the agent's routes (G), and the
question says they are there. A person types the keys in a pseudo-terminal; what they type
reaches the agent byte for byte."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from temporalio.client import Client

from tests.cli.support import Terminal

SCENARIO = "interrupt=REVIEW_AGENT"
USER = "ada"
TYPED = 'keep "it" small — ü 🙂 <b>&amp;</b> {{ x }} %s  two  spaces'
"""A line a person types: quotes, markup, unicode, template and format syntax, inner spaces."""


async def _agent_calls(env: dict[str, str], run_id: str) -> list[dict[str, Any]]:
    """The inputs of the run's agent calls, as its history holds them."""
    client = await Client.connect(f"127.0.0.1:{env['AGENTS_PORT']}")
    calls = []
    async for event in client.get_workflow_handle(run_id).fetch_history_events():
        scheduled = event.activity_task_scheduled_event_attributes
        if event.HasField("activity_task_scheduled_event_attributes") and (
            scheduled.activity_type.name == "run_agent"
        ):
            calls.append(json.loads(scheduled.input.payloads[0].data))
    return calls


def test_g_goes_on_at_another_agent_with_the_typed_answer(stack: dict[str, str]) -> None:
    run_id = f"way-{uuid.uuid4().hex[:8]}"
    run = Terminal(stack, "run", "add caching", "--id", run_id, "--scenario", SCENARIO)
    try:
        run.expect("Choose A/B/CUSTOM:")
        assert "S) Stop the run here" in run.seen
        assert "G) Go on at another agent instead of REVIEW_AGENT: MERGER_AGENT" in run.seen
        assert "besides its options: S stops the run, G goes on at another agent" in run.seen
        run.send("g")
        run.expect("Go on at which agent?")
        run.send("1")
        run.expect("the run goes on at MERGER_AGENT after your answer")
        run.send("CUSTOM")
        run.expect("Your approach: ")
        run.send(TYPED)
        run.expect("Add regression tests for the changed behaviour? [Y/n]")
        run.send("n")
        run.expect("Anything else the agent should know")
        run.send("")
        run.expect(
            "Answer accepted: the run continues at MERGER_AGENT (re-routed from REVIEW_AGENT)"
        )
        run.expect(f"Final result of {run_id}")
        assert run.finish() == 0
    finally:
        run.close()
    calls = asyncio.run(_agent_calls(stack, run_id))
    after = [c for c in calls if c.get("interruptResolution")]
    assert after and after[0]["agentType"] == "MERGER_AGENT", "the run went on there"
    assert f'CUSTOM: "{TYPED}"' in after[0]["interruptResolution"], "byte for byte"
    assert [c["agentType"] for c in calls].count("REVIEW_AGENT") == 1, "it did not run again"


def test_s_stops_the_run_with_the_typed_reason(stack: dict[str, str]) -> None:
    run_id = f"way-{uuid.uuid4().hex[:8]}"
    env = {**stack, "AGENTS_USER": USER}
    run = Terminal(env, "run", "add caching", "--id", run_id, "--scenario", SCENARIO)
    try:
        run.expect("Choose A/B/CUSTOM:")
        run.send("S")
        run.expect("Why stop the run? ")
        run.send(TYPED)
        run.expect("Answer accepted: the run stops")
        assert run.finish() != 0
    finally:
        run.close()
    stopped = (
        f"failed: {USER} (HUMAN) via cli stopped the run at REVIEW_AGENT ({run_id}-interrupt-1): "
    )
    assert stopped + TYPED in run.seen, run.seen[-2000:]
