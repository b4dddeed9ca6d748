"""The named settings of the tools: budgets, size limits, where the caches and the memory live."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_interrupts.activities.tools.memory import RECALL_WINDOW

MAX_TOOL_CALLS = 12
"""Tool calls one agent step may make (``AGENT_TOOL_CALLS``); then the model must answer."""
TOOL_RESULT_BYTES = 16_000
"""Bytes of one tool result the model sees (``AGENT_TOOL_RESULT_BYTES``); the rest is cut."""
MAX_FILE_BYTES = 1_000_000
"""Larger files are refused by read_file, skipped by search (``AGENT_TOOL_FILE_BYTES``)."""
SEARCH_HITS = 40
"""Matching lines one search returns at most."""
LIST_ENTRIES = 400
"""Paths one list_files returns at most."""
TEST_TIMEOUT_SECONDS = 300
"""One verification run in the sandbox (``AGENT_TEST_TIMEOUT``)."""
TEST_MEMORY_MB = 2_048
"""Address space of a verification run (``AGENT_TEST_MEMORY_MB``)."""
TEST_PROCESSES = 256
"""Processes a verification run may have at once (``AGENT_TEST_PROCESSES``)."""
MAX_WORKTREES = 16
"""Ticket worktrees on disk at once per worker state directory (``AGENT_WORKTREES``)."""
WORKTREE_MB = 500
"""Size of one worktree after edits (``AGENT_WORKTREE_MB``)."""
COMMIT_AUTHOR = "agents <agents@localhost>"
"""Author and committer of the agents' commits (``AGENT_COMMIT_AUTHOR``)."""


@dataclass(frozen=True)
class ToolSettings:
    """Where workspaces are cached and memory is kept, and the budgets of one step."""

    state_dir: Path = Path(".state")
    memory_url: str | None = None
    """``sqlite:///<path>``; default: ``memory.sqlite3`` in the state directory."""
    recall_window: int = RECALL_WINDOW
    max_calls: int = MAX_TOOL_CALLS
    result_bytes: int = TOOL_RESULT_BYTES
    max_file_bytes: int = MAX_FILE_BYTES
    test_timeout: int = TEST_TIMEOUT_SECONDS
    test_memory_mb: int = TEST_MEMORY_MB
    test_processes: int = TEST_PROCESSES
    max_worktrees: int = MAX_WORKTREES
    worktree_mb: int = WORKTREE_MB
    commit_author: str = COMMIT_AUTHOR
    results_dir: Path | None = None
    """``AGENT_TOOL_RESULTS_DIR``: where the tool results models saw are kept for the export;
    default: ``tool-results`` in the state directory."""
    workspaces_dir: Path | None = None
    """``AGENT_WORKSPACES_DIR``: the clones, pinned commits, the agents' repositories and the
    ticket worktrees; on several hosts, a directory every worker shares at the same path;
    default: ``workspaces`` and ``worktrees`` in the state directory."""
    push_remote: str | None = None
    """``AGENT_PUSH_REMOTE``: a git remote (URL or path) the run branch is pushed to; none: kept
    in the run repository under the state directory."""

    def __post_init__(self) -> None:
        for name, value in (
            ("AGENT_TOOL_CALLS", self.max_calls),
            ("AGENT_MEMORY_RECALL_WINDOW", self.recall_window),
            ("AGENT_TOOL_RESULT_BYTES", self.result_bytes),
            ("AGENT_TOOL_FILE_BYTES", self.max_file_bytes),
            ("AGENT_TEST_TIMEOUT", self.test_timeout),
            ("AGENT_TEST_MEMORY_MB", self.test_memory_mb),
            ("AGENT_TEST_PROCESSES", self.test_processes),
            ("AGENT_WORKTREES", self.max_worktrees),
            ("AGENT_WORKTREE_MB", self.worktree_mb),
        ):
            if value < 1:
                raise ValueError(f"{name} must be a positive number, not {value}")
        for name in ("state_dir", "results_dir", "workspaces_dir"):  # git runs in other dirs
            path = getattr(self, name)
            if path is not None:
                object.__setattr__(self, name, path.absolute())

    @property
    def workspace_cache(self) -> Path:
        return self.workspaces_dir or self.state_dir / "workspaces"

    @property
    def worktrees(self) -> Path:
        return (self.workspaces_dir or self.state_dir) / "worktrees"

    @property
    def private_dirs(self) -> list[Path]:
        """What a verification run must not see: the state directory, and the workspaces
        directory when it lies elsewhere (both resolved)."""
        dirs = [self.state_dir.resolve()]
        if self.workspaces_dir is not None:
            shared = self.workspaces_dir.resolve()
            if not shared.is_relative_to(dirs[0]):
                dirs.append(shared)
        return dirs

    @property
    def tool_results(self) -> Path:
        return self.results_dir or self.state_dir / "tool-results"

    @property
    def memory(self) -> str:
        return self.memory_url or f"sqlite:///{(self.state_dir / 'memory.sqlite3').resolve()}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ToolSettings:
        """``AGENTS_STATE_DIR``, ``AGENT_MEMORY_URL``, the ``AGENT_TOOL_*`` budgets and the rest."""
        return cls(
            state_dir=Path(env.get("AGENTS_STATE_DIR") or ".state"),
            memory_url=env.get("AGENT_MEMORY_URL") or None,
            recall_window=_int(env, "AGENT_MEMORY_RECALL_WINDOW", RECALL_WINDOW),
            max_calls=_int(env, "AGENT_TOOL_CALLS", MAX_TOOL_CALLS),
            result_bytes=_int(env, "AGENT_TOOL_RESULT_BYTES", TOOL_RESULT_BYTES),
            max_file_bytes=_int(env, "AGENT_TOOL_FILE_BYTES", MAX_FILE_BYTES),
            test_timeout=_int(env, "AGENT_TEST_TIMEOUT", TEST_TIMEOUT_SECONDS),
            test_memory_mb=_int(env, "AGENT_TEST_MEMORY_MB", TEST_MEMORY_MB),
            test_processes=_int(env, "AGENT_TEST_PROCESSES", TEST_PROCESSES),
            max_worktrees=_int(env, "AGENT_WORKTREES", MAX_WORKTREES),
            worktree_mb=_int(env, "AGENT_WORKTREE_MB", WORKTREE_MB),
            commit_author=env.get("AGENT_COMMIT_AUTHOR") or COMMIT_AUTHOR,
            results_dir=Path(text) if (text := env.get("AGENT_TOOL_RESULTS_DIR")) else None,
            workspaces_dir=Path(text) if (text := env.get("AGENT_WORKSPACES_DIR")) else None,
            push_remote=env.get("AGENT_PUSH_REMOTE") or None,
        )


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name)
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {text!r}") from None
