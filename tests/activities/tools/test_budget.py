"""Bounded tool use: calls per step, bytes per result; then the model answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_interrupts.activities.llm import ToolCallsRequested
from agent_interrupts.activities.tools.loop import Toolbox
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.transcript import BUDGET_SPENT, tool_transcript
from agent_interrupts.activities.tools.workspace import pin
from agent_interrupts.models.errors import InvalidLlmReply
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.tools import ToolRequest, WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import make_call
from tests.support.workspace import make_repo


def _request(n: int, round_number: int = 0, tool: str = "search") -> ToolRequest:
    args = '{"pattern": "gateway", "literal": true, "glob": null}'
    return ToolRequest(call_id=f"c{n}", tool=tool, arguments=args, round=round_number)


@pytest.fixture
def toolbox(tmp_path: Path) -> Toolbox:
    return Toolbox(ToolSettings(state_dir=tmp_path / "state", max_calls=3, result_bytes=60))


async def test_calls_past_the_budget_are_not_run_and_the_model_is_told_to_answer(
    toolbox: Toolbox, tmp_path: Path
) -> None:
    pinned = pin(WorkspaceSpec(source=str(make_repo(tmp_path))), toolbox.settings.workspace_cache)
    call = make_call(AgentType.DISCOVERY_AGENT, workspace=pinned, tool_requests=[_request(0)])
    first = await toolbox.round(call, team=SOFTWARE_TEAM)
    assert first.offer is not None and first.offer["tool_choice"] == "auto"
    asked = ToolCallsRequested("m", [(f"c{i}", "search", "{}") for i in (1, 2, 3)])
    more = first.requested(asked)
    assert [r.over_budget for r in more] == [False, False, True] and more[0].round == 1

    spent = await toolbox.round(
        call.model_copy(update={"tool_requests": [_request(0), *more]}), team=SOFTWARE_TEAM
    )
    assert spent.offer is not None and spent.offer["tool_choice"] == "none"
    assert spent.messages[-1] == {"role": "user", "content": BUDGET_SPENT.format(limit=3)}
    results = [m["content"] for m in spent.messages if m["role"] == "tool"]
    assert results[-1].startswith("error: The tool budget of this step (3 calls) is spent")
    assert [t.call_id for t in spent.trace] == ["c1", "c2", "c3"]  # the newest round only
    assert "invalid arguments for search" in results[1]
    with pytest.raises(InvalidLlmReply, match="AGENT_TOOL_CALLS"):
        spent.requested(asked)


async def test_results_are_cut_at_the_byte_budget(toolbox: Toolbox, tmp_path: Path) -> None:
    pinned = pin(WorkspaceSpec(source=str(make_repo(tmp_path))), toolbox.settings.workspace_cache)
    read = ToolRequest(
        call_id="r",
        tool="read_file",
        arguments='{"path": "shop/gateway.py", "start_line": null, "end_line": null}',
    )
    step = await toolbox.round(
        make_call(AgentType.TICKET_AGENT, workspace=pinned, tool_requests=[read]),
        team=SOFTWARE_TEAM,
    )
    (trace,) = step.trace
    text = step.messages[-1]["content"]
    assert text.endswith("[... cut at 60 bytes (AGENT_TOOL_RESULT_BYTES): ask for less]")
    assert trace.result_bytes == len(text.encode()) and trace.error is None


def test_budgets_are_named_settings() -> None:
    env = {"AGENT_TOOL_CALLS": "5", "AGENT_TOOL_RESULT_BYTES": "100", "AGENTS_STATE_DIR": "/s"}
    settings = ToolSettings.from_env(env)
    assert (settings.max_calls, settings.result_bytes) == (5, 100)
    assert settings.memory == "sqlite:////s/memory.sqlite3"
    with pytest.raises(ValueError, match="AGENT_TOOL_CALLS must be a whole number"):
        ToolSettings.from_env({"AGENT_TOOL_CALLS": "many"})
    with pytest.raises(ValueError, match="AGENT_TOOL_RESULT_BYTES must be a positive number"):
        ToolSettings(result_bytes=0)
    assert ToolSettings.from_env({"AGENT_MEMORY_RECALL_WINDOW": "50"}).recall_window == 50
    with pytest.raises(ValueError, match="AGENT_MEMORY_RECALL_WINDOW must be a positive number"):
        ToolSettings.from_env({"AGENT_MEMORY_RECALL_WINDOW": "0"})


def test_the_transcript_is_the_rounds_in_order_then_the_budget_notice() -> None:
    requests = [
        ToolRequest(call_id="b", tool="read_file", arguments="{}", round=1),
        ToolRequest(call_id="a", tool="search", arguments="{}", round=0),
        ToolRequest(call_id="c", tool="read_file", arguments="{}", round=1, over_budget=True),
    ]
    messages = tool_transcript(requests, ["A", "B", "C"], budget=2)
    assert [(m["role"], m.get("tool_call_id")) for m in messages] == [
        ("assistant", None),
        ("tool", "a"),
        ("assistant", None),
        ("tool", "b"),
        ("tool", "c"),
        ("user", None),
    ]
    assert [c["id"] for c in messages[2]["tool_calls"]] == ["b", "c"]
    assert [m["content"] for m in messages[1::2][:2]] == ["A", "B"]
    assert tool_transcript(requests, ["A", "B", "C"], budget=None)[-1]["role"] == "tool"
