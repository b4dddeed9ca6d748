"""The write tools' guidance: given to the team's code-writing agents (a declared team's
``tools = ["write"]`` as the software team's ticket agent), with its own worktree, and saying
what the system records of the step in that agent's own result."""

from __future__ import annotations

from pathlib import Path

from agent_interrupts.activities.contributors.base import PromptContext
from agent_interrupts.activities.contributors.code_changes import CodeChangesContributor
from agent_interrupts.activities.tools.catalog import tools_for
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.models.code import WorktreeRef
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.teams.software.agents import AgentType
from tests.support.prompts import WORKSPACE, make_call

CODE_TEAM = Path(__file__).resolve().parents[3] / "docs" / "examples" / "code-team"
WORKTREE = WorktreeRef(
    path="/w/T-001",
    branch="agents/r/T-001",
    base_commit="0123456789abcdef",
    ticket_id="T-001",
    node_id="n",
    repository="/r",
)
WRITES = {"write_file", "replace_snippet", "replace_lines", "delete_file", "run_verification"}


def test_a_declared_code_writing_agent_gets_the_write_tools_and_their_guidance() -> None:
    team = build_team(load_team_file(CODE_TEAM))
    contributor = CodeChangesContributor(ToolSettings())
    assert contributor.applies("CODER", team) and not contributor.applies("REVIEWER", team)
    assert {t.name for t in tools_for("CODER", writes=True, team=team)} >= WRITES
    assert not WRITES & {t.name for t in tools_for("CODER", team=team)}  # no worktree: none
    assert not WRITES & {t.name for t in tools_for("REVIEWER", writes=True, team=team)}
    call = make_call(AgentType.TICKET_AGENT, workspace=WORKSPACE, worktree=WORKTREE)
    ctx = PromptContext.from_call(
        call.model_copy(update={"agent_type": "CODER"}), team.node("CODER").output_model, team
    )
    text = contributor.contribute(ctx)
    assert text is not None and "branch `agents/r/T-001`" in text
    assert text.startswith("You do your request's work in your own worktree")
    assert "your result's `codeCommit`" in text and "filesModified" not in text


def test_the_software_ticket_agents_guidance_is_unchanged() -> None:
    contributor = CodeChangesContributor(ToolSettings())
    assert contributor.applies(AgentType.TICKET_AGENT, SOFTWARE_TEAM)
    call = make_call(AgentType.TICKET_AGENT, workspace=WORKSPACE, worktree=WORKTREE)
    routing = NODES[AgentType.TICKET_AGENT].output_model
    text = contributor.contribute(PromptContext.from_call(call, routing, team=SOFTWARE_TEAM))
    assert text is not None and text.startswith("You implement the ticket in your own worktree")
    assert text.endswith(
        "fills `filesModified`, `commit`, `testResults` and `verificationStatus` from git and "
        "the test run: what you write there is replaced."
    )
