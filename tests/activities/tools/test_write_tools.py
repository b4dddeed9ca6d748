"""A ticket agent's worktree: made from the pinned commit on its own
branch, write tools confined like the read tools, commits made once per node, merges real."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

from agent_interrupts.activities.code_changes import CodeChangeActivities
from agent_interrupts.activities.tools import gitwork, write_tools
from agent_interrupts.activities.tools.catalog import tools_for
from agent_interrupts.activities.tools.loop import Toolbox
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.workspace import NotOnThisWorker, ToolError, Workspace, pin
from agent_interrupts.models.code import (
    CommitRequest,
    ConflictChoice,
    FileResolution,
    MergeRequest,
    TicketBranch,
    WorktreeRef,
)
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.tools import PinnedWorkspace, ToolRequest, WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from tests.support.code_repo import make_code_repo
from tests.support.prompts import make_call
from tests.support.workspace import git


@pytest.fixture
def settings(tmp_path: Path) -> ToolSettings:
    return ToolSettings(state_dir=tmp_path / "state", max_file_bytes=10_000, max_worktrees=3)


@pytest.fixture
def pinned(tmp_path: Path, settings: ToolSettings) -> PinnedWorkspace:
    repo = make_code_repo(tmp_path)
    return pin(WorkspaceSpec(source=str(repo)), settings.workspace_cache)


def _worktree(
    pinned: PinnedWorkspace, settings: ToolSettings, ticket: str = "T-001"
) -> WorktreeRef:
    return gitwork.prepare(pinned, "run-1", ticket, f"ticket-dispatch-009/{ticket}", settings)


def _ws(ref: WorktreeRef, pinned: PinnedWorkspace, settings: ToolSettings) -> Workspace:
    return Workspace(Path(ref.path), pinned, settings)


def test_only_ticket_agents_with_a_worktree_get_the_write_tools() -> None:
    writes = {"write_file", "replace_snippet", "replace_lines", "delete_file", "run_verification"}
    assert writes <= {
        t.name for t in tools_for(AgentType.TICKET_AGENT, writes=True, team=SOFTWARE_TEAM)
    }
    assert not writes & {t.name for t in tools_for(AgentType.TICKET_AGENT, team=SOFTWARE_TEAM)}
    for agent in SOFTWARE_TEAM.read_tools - {AgentType.TICKET_AGENT}:
        assert not writes & {t.name for t in tools_for(agent, writes=True, team=SOFTWARE_TEAM)}


def test_a_worktree_is_made_once_on_its_branch_and_the_users_repo_is_not_touched(
    pinned: PinnedWorkspace, settings: ToolSettings, tmp_path: Path
) -> None:
    user = tmp_path / "calc-repo"
    branches = git(user, "branch", "--list")
    ref = _worktree(pinned, settings)
    assert ref == _worktree(pinned, settings)  # a retried prepare finds it
    assert ref.branch == "agents/run-1/T-001" and ref.base_commit == pinned.commit
    assert git(Path(ref.path), "rev-parse", "--abbrev-ref", "HEAD") == ref.branch
    assert Path(ref.path).is_relative_to(settings.worktrees)
    assert git(user, "branch", "--list") == branches


def test_worktrees_are_bounded_by_the_setting(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    for ticket in ("T-1", "T-2", "T-3"):
        _worktree(pinned, settings, ticket)
    with pytest.raises(gitwork.WorktreeLimit, match="AGENT_WORKTREES"):
        _worktree(pinned, settings, "T-4")


def test_write_tools_stay_in_the_worktree(pinned: PinnedWorkspace, settings: ToolSettings) -> None:
    ref = _worktree(pinned, settings)
    ws = _ws(ref, pinned, settings)
    (Path(ref.path) / "out").symlink_to("/tmp")
    for bad in ("../x.py", "/etc/passwd", "out/x.py", ".git/config", "calc"):
        with pytest.raises(ToolError):
            write_tools.write_file(ws, bad, "x")
    with pytest.raises(ToolError, match="AGENT_TOOL_FILE_BYTES"):
        write_tools.write_file(ws, "big.txt", "x" * 20_000)
    with pytest.raises(ToolError, match="occurs 2 times"):
        write_tools.replace_snippet(ws, "calc/ops.py", "# bug", "# fixed")
    assert "created" in write_tools.write_file(ws, "calc/new.py", "x = 1\n")
    write_tools.replace_snippet(ws, "calc/ops.py", "return a - b  # bug", "return a + b")
    write_tools.replace_lines(ws, "calc/ops.py", 5, 6, "")
    write_tools.delete_file(ws, "calc/__init__.py")
    text = (Path(ref.path) / "calc" / "ops.py").read_text()
    assert "return a + b" in text and "def unchanged" not in text


def test_a_commit_is_made_once_per_node_and_reset_replays_from_the_base(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    ref = _worktree(pinned, settings)
    ws = _ws(ref, pinned, settings)
    write_tools.replace_snippet(ws, "calc/ops.py", "return a - b  # bug", "return a + b")
    request = CommitRequest(worktree=ref, run_id="run-1", subject="fix add", summary="why")
    sha = gitwork.commit(request, settings)
    assert sha is not None and gitwork.commit(request, settings) == sha  # a retry finds it
    repo = Path(ref.repository)
    assert git(repo, "rev-list", "--count", f"{pinned.commit}..{ref.branch}") == "1"
    assert "Agent-Node: ticket-dispatch-009/T-001" in git(repo, "log", "-1", "--format=%B", sha)
    done = gitwork.ticket_commit(ref, sha)
    assert done.files == ["calc/ops.py"] and "+    return a + b" in done.diff.text
    gitwork.reset(ref)  # the next round starts from the base again
    assert "a - b" in (Path(ref.path) / "calc" / "ops.py").read_text()


def test_a_worktree_another_worker_holds_is_this_workers_condition(
    pinned: PinnedWorkspace, settings: ToolSettings, tmp_path: Path
) -> None:
    """A host without the shared AGENT_WORKSPACES_DIR cannot replay the ticket's
    edits; the step is retried so a worker that has it serves it, and the fix is named."""
    ref = _worktree(pinned, settings)
    elsewhere = ref.model_copy(update={"path": str(tmp_path / "other-host" / "T-001")})
    with pytest.raises(NotOnThisWorker, match="is not on this worker") as raised:
        gitwork.reset(elsewhere)
    assert "AGENT_WORKSPACES_DIR" in raised.value.fix


def test_worktrees_live_in_the_shared_workspaces_dir(tmp_path: Path) -> None:
    """AGENT_WORKSPACES_DIR holds the clones, the agents' repositories and the worktrees."""
    settings = ToolSettings(state_dir=tmp_path / "state", workspaces_dir=tmp_path / "shared")
    pinned = pin(WorkspaceSpec(source=str(make_code_repo(tmp_path))), settings.workspace_cache)
    ref = _worktree(pinned, settings)
    for path in (ref.path, ref.repository):
        assert Path(path).is_relative_to(tmp_path / "shared"), path
    assert not (tmp_path / "state").exists(), "nothing of the code is in the worker's own state"


def test_a_diff_over_its_cap_says_what_was_cut(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    ref = _worktree(pinned, settings)
    ws = _ws(ref, pinned, settings)
    write_tools.write_file(ws, "a.txt", "a\n" * 2_000)
    write_tools.write_file(ws, "b.txt", "b\n" * 2_000)
    sha = gitwork.commit(CommitRequest(worktree=ref, run_id="run-1", subject="s"), settings)
    assert sha is not None
    diff = gitwork.diff(Path(ref.repository), pinned.commit, sha, limit=1_000)
    assert len(diff.text) <= 1_000 and diff.cut is not None and "b.txt" in diff.cut
    assert "a.txt" in diff.stat and "b.txt" in diff.stat


def test_a_conflict_stops_the_merge_and_an_answer_resolves_it(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    heads = []
    for ticket, new in (("T-001", "return a + b"), ("T-002", "return b + a")):
        ref = _worktree(pinned, settings, ticket)
        write_tools.replace_snippet(_ws(ref, pinned, settings), "calc/ops.py", "return a - b", new)
        sha = gitwork.commit(CommitRequest(worktree=ref, run_id="run-1", subject=ticket), settings)
        assert sha is not None
        heads.append(
            TicketBranch(ticket_id=ticket, branch=ref.branch, base=pinned.commit, head=sha)
        )
    request = MergeRequest(
        run_id="run-1", repository=ref.repository, base_commit=pinned.commit, tickets=heads
    )
    outcome, path = gitwork.merge(request, settings)
    assert outcome.merged == ["T-001"] and outcome.conflict_ticket == "T-002"
    (side,) = outcome.conflicts
    assert "return a + b" in side.ours and "return b + a" in side.theirs
    assert not (path / "calc" / "ops.py").read_text().count("<<<<<<<")  # the merge was undone
    answer = [FileResolution(path="calc/ops.py", choice=ConflictChoice.THEIRS)]
    resolved = request.model_copy(update={"resolutions": {"T-002": answer}})
    outcome, path = gitwork.merge(resolved, settings)
    assert outcome.merged == ["T-001", "T-002"] and outcome.conflict_ticket is None
    assert "return b + a" in (path / "calc" / "ops.py").read_text()
    again, _ = gitwork.merge(resolved, settings)  # idempotent: nothing merged twice
    assert again.head == outcome.head


async def test_the_run_branch_is_pushed_only_to_a_named_remote(
    pinned: PinnedWorkspace, settings: ToolSettings, tmp_path: Path
) -> None:
    ref = _worktree(pinned, settings)
    write_tools.write_file(_ws(ref, pinned, settings), "notes.md", "done\n")
    sha = gitwork.commit(CommitRequest(worktree=ref, run_id="run-1", subject="notes"), settings)
    ticket = TicketBranch(ticket_id="T-001", branch=ref.branch, base=pinned.commit, head=sha or "")
    request = MergeRequest(
        run_id="run-1", repository=ref.repository, base_commit=pinned.commit, tickets=[ticket]
    )
    kept = await ActivityEnvironment().run(CodeChangeActivities(settings).merge_tickets, request)
    assert kept.pushed_to is None and kept.tests is not None and kept.tests.problem is not None
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    pushing = replace(settings, push_remote=str(remote))
    pushed = await ActivityEnvironment().run(CodeChangeActivities(pushing).merge_tickets, request)
    assert pushed.pushed_to == str(remote) and pushed.head == kept.head
    assert git(remote, "rev-parse", "agents/run-1") == kept.head


def test_many_conflicting_files_show_five_and_one_answer_covers_the_rest(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    heads = []
    for ticket in ("T-001", "T-002"):
        ref = _worktree(pinned, settings, ticket)
        for n in range(7):
            write_tools.write_file(_ws(ref, pinned, settings), f"f{n}.txt", f"{ticket} {n}\n")
        sha = gitwork.commit(CommitRequest(worktree=ref, run_id="run-1", subject=ticket), settings)
        heads.append(
            TicketBranch(ticket_id=ticket, branch=ref.branch, base=pinned.commit, head=sha)
        )
    request = MergeRequest(
        run_id="run-1", repository=ref.repository, base_commit=pinned.commit, tickets=heads
    )
    outcome, _ = gitwork.merge(request, settings)
    assert len(outcome.conflicts) == 5 and outcome.conflict_count == 7
    shown = [FileResolution(path=c.path, choice=ConflictChoice.OURS) for c in outcome.conflicts]
    rest = FileResolution(path="*", choice=ConflictChoice.THEIRS)
    answered = request.model_copy(update={"resolutions": {"T-002": [*shown, rest]}})
    outcome, path = gitwork.merge(answered, settings)
    assert outcome.conflict_ticket is None
    assert (path / "f0.txt").read_text() == "T-001 0\n" and (
        path / "f6.txt"
    ).read_text() == "T-002 6\n"


def test_a_ticket_done_again_continues_its_branch_in_a_new_worktree(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    first = _worktree(pinned, settings)
    write_tools.write_file(_ws(first, pinned, settings), "one.txt", "1\n")
    sha = gitwork.commit(CommitRequest(worktree=first, run_id="run-1", subject="one"), settings)
    again = gitwork.prepare(pinned, "run-1", "T-001", "ticket-dispatch-020/T-001", settings)
    assert again.branch == first.branch and again.base_commit == sha
    assert (Path(again.path) / "one.txt").read_text() == "1\n"
    assert not Path(first.path).exists()  # the earlier step's worktree gave the branch up


async def test_a_file_system_refusal_is_told_to_the_model(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    """A file under a file: its directory cannot be made (an OSError), which failed the step."""
    write = ToolRequest(
        call_id="w",
        tool="write_file",
        arguments='{"path": "calc/ops.py/limits.py", "content": "x = 1\\n"}',
    )
    call = make_call(
        AgentType.TICKET_AGENT,
        workspace=pinned,
        worktree=_worktree(pinned, settings),
        tool_requests=[write],
    )
    step = await Toolbox(settings).round(call, team=SOFTWARE_TEAM)
    (trace,) = step.trace
    assert trace.error is not None and trace.error.startswith("the file system refused: ")
    assert step.messages[-1]["content"] == f"error: {trace.error}"


def test_a_relative_state_directory_makes_worktrees_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python worker.py`` without AGENTS_STATE_DIR keeps ``.state`` of its directory: git,
    run in other directories, made its repository in the wrong place and every ticket's
    worktree failed (the run waited on its retries for ever)."""
    monkeypatch.chdir(tmp_path)
    settings = ToolSettings(state_dir=Path(".state"))
    assert settings.state_dir == tmp_path / ".state"
    pinned = pin(WorkspaceSpec(source=str(make_code_repo(tmp_path))), settings.workspace_cache)
    ref = _worktree(pinned, settings)
    assert git(Path(ref.path), "rev-parse", "--abbrev-ref", "HEAD") == ref.branch


def test_a_record_cut_short_by_a_killed_worker_is_made_again(
    pinned: PinnedWorkspace, settings: ToolSettings
) -> None:
    """A worker killed while writing a worktree's record left it empty: every retry of
    prepare_worktree failed to read it and the run waited for ever (CI hung on it)."""
    ref = _worktree(pinned, settings)
    record = Path(ref.path).with_name(Path(ref.path).name + ".json")
    record.write_text("")
    again = _worktree(pinned, settings)
    assert again == ref
    assert git(Path(again.path), "rev-parse", "--abbrev-ref", "HEAD") == ref.branch
    assert not list(record.parent.glob("*.tmp")), "no staged record is left behind"
