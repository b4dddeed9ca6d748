"""A workspace per run: pinning, and paths that never leave it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_interrupts.activities.tools import code_tools
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.workspace import (
    NotOnThisWorker,
    ToolError,
    Workspace,
    WorkspaceUnavailable,
    checkout,
    pin,
)
from agent_interrupts.models.tools import WorkspaceSpec
from tests.support.workspace import git, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


@pytest.fixture
def ws(repo: Path, tmp_path: Path) -> Workspace:
    settings = ToolSettings(state_dir=tmp_path / "state", max_file_bytes=1_000_000)
    pinned = pin(WorkspaceSpec(source=str(repo)), settings.workspace_cache)
    return Workspace(checkout(pinned, settings.workspace_cache), pinned, settings)


def test_a_local_repository_and_a_git_url_pin_the_same_commit(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    head = git(repo, "rev-parse", "HEAD")
    assert pin(WorkspaceSpec(source=str(repo)), cache).commit == head
    by_url = pin(WorkspaceSpec(source=f"file://{repo}", ref="main"), cache)
    assert by_url.commit == head and by_url.source == f"file://{repo}"


def test_the_pinned_commit_is_what_tools_read_after_new_commits(ws: Workspace, repo: Path) -> None:
    """Retries, replays and later steps see the pinned code, not the branch's new head."""
    (repo / "shop" / "gateway.py").write_text("rewritten\n")
    git(repo, "commit", "--quiet", "-am", "rewrite")
    assert "class Gateway" in ws.read_text("shop/gateway.py")


def test_a_ref_that_names_no_commit_is_refused_with_the_setting(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(WorkspaceUnavailable, match=r"'nope' names no commit.*workspace.ref"):
        pin(WorkspaceSpec(source=str(repo), ref="nope"), tmp_path / "cache")
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(WorkspaceUnavailable, match="not a directory or a git URL"):
        pin(WorkspaceSpec(source=str(tmp_path / "a-file")), tmp_path / "cache")


def test_a_path_this_worker_cannot_see_is_its_own_condition(tmp_path: Path) -> None:
    """Another worker may see it, so the step is retried, not failed."""
    with pytest.raises(NotOnThisWorker, match="is not visible on this worker") as raised:
        pin(WorkspaceSpec(source=str(tmp_path / "missing")), tmp_path / "cache")
    assert "agents run --workspace URL" in raised.value.fix


@pytest.mark.parametrize(
    "path",
    ["../shop-repo/README.md", "/etc/passwd", "shop/../../x", "escape/passwd", "", "..\\x"],
)
def test_paths_never_escape_the_workspace(ws: Workspace, path: str) -> None:
    with pytest.raises(ToolError, match="workspace"):
        ws.read_text(path)


def test_a_symlink_leaving_the_tree_is_not_extracted_and_one_inside_works(ws: Workspace) -> None:
    assert not (ws.root / "escape").exists()
    assert "class Gateway" in ws.read_text("gateway-link.py")


def test_binary_and_huge_files_are_refused_with_a_clear_error(ws: Workspace) -> None:
    with pytest.raises(ToolError, match=r"'logo\.png' is a binary file"):
        ws.read_text("logo.png")
    with pytest.raises(ToolError, match=r"2,000,000 bytes, over the 1,000,000-byte .*FILE_BYTES"):
        ws.read_text("data.txt")
    assert "data.txt" not in code_tools.search(ws, "x", literal=True, glob=None)


def test_search_list_and_read(ws: Workspace) -> None:
    hits = code_tools.search(ws, r"\brate limit", literal=False, glob="*.py")
    assert hits.startswith("shop/gateway.py:11: # no rate limiting yet: every client")
    assert len(hits.splitlines()) == 1
    assert code_tools.list_files(ws, "shop/*.py") == "shop/config.py\nshop/gateway.py"
    text = code_tools.read_file(ws, "shop/config.py", 2, 99)
    assert text.splitlines()[0] == "shop/config.py lines 2-3 of 3"
    assert text.splitlines()[1] == "    2|     requests_per_minute = 600"
    with pytest.raises(ToolError, match="ripgrep refused"):
        code_tools.search(ws, "(unclosed", literal=False, glob=None)


@pytest.mark.parametrize("path", ["y" * 300 + "/middleware.py", "a/" * 600 + "b.py"])
def test_a_path_too_long_for_the_file_system_is_a_tool_error(ws: Workspace, path: str) -> None:
    """A model named a file after an 8,000-character goal: the step went on failing with
    ENAMETOOLONG and the run failed. Now the model is told, in a short line."""
    with pytest.raises(ToolError, match="too long for a file system") as raised:
        ws.read_text(path)
    assert len(str(raised.value)) < 300


def test_a_symlink_loop_is_a_tool_error(repo: Path, tmp_path: Path) -> None:
    (repo / "loop-a").symlink_to("loop-b")
    (repo / "loop-b").symlink_to("loop-a")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a symlink loop")
    settings = ToolSettings(state_dir=tmp_path / "state2")
    pinned = pin(WorkspaceSpec(source=str(repo)), settings.workspace_cache)
    ws = Workspace(checkout(pinned, settings.workspace_cache), pinned, settings)
    with pytest.raises(ToolError, match="'loop-a' cannot be followed: a symlink loop"):
        ws.read_text("loop-a")
