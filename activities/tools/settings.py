"""The named settings of the tools: budgets, size limits, where the caches and the memory live."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

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


@dataclass(frozen=True)
class ToolSettings:
    """Where workspaces are cached and memory is kept, and the budgets of one step."""

    state_dir: Path = Path(".state")
    memory_url: str | None = None
    """``sqlite:///<path>``; default: ``memory.sqlite3`` in the state directory."""
    max_calls: int = MAX_TOOL_CALLS
    result_bytes: int = TOOL_RESULT_BYTES
    max_file_bytes: int = MAX_FILE_BYTES

    def __post_init__(self) -> None:
        for name, value in (
            ("AGENT_TOOL_CALLS", self.max_calls),
            ("AGENT_TOOL_RESULT_BYTES", self.result_bytes),
            ("AGENT_TOOL_FILE_BYTES", self.max_file_bytes),
        ):
            if value < 1:
                raise ValueError(f"{name} must be a positive number, not {value}")

    @property
    def workspace_cache(self) -> Path:
        return self.state_dir / "workspaces"

    @property
    def memory(self) -> str:
        return self.memory_url or f"sqlite:///{(self.state_dir / 'memory.sqlite3').resolve()}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ToolSettings:
        """``AGENTS_STATE_DIR``, ``AGENT_MEMORY_URL`` and the ``AGENT_TOOL_*`` budgets."""
        return cls(
            state_dir=Path(env.get("AGENTS_STATE_DIR") or ".state"),
            memory_url=env.get("AGENT_MEMORY_URL") or None,
            max_calls=_int(env, "AGENT_TOOL_CALLS", MAX_TOOL_CALLS),
            result_bytes=_int(env, "AGENT_TOOL_RESULT_BYTES", TOOL_RESULT_BYTES),
            max_file_bytes=_int(env, "AGENT_TOOL_FILE_BYTES", MAX_FILE_BYTES),
        )


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name)
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {text!r}") from None
