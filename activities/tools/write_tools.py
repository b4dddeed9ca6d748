"""Write tools of a ticket agent's worktree: write, replace, delete.

Paths are confined exactly as the read tools' are (``Workspace.resolve``: no ``..``, no absolute
path, no symlink out), and ``.git`` is off limits. A file may not grow past
``AGENT_TOOL_FILE_BYTES``, nor the worktree past ``AGENT_WORKTREE_MB``. Each edit is applied again
from the transcript in every later round (the worktree is reset to the step's base first), so
they must be deterministic, and they are.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from agent_interrupts.activities.tools.gitwork import worktree_bytes
from agent_interrupts.activities.tools.workspace import ToolError, Workspace


def writable(ws: Workspace, path: str) -> Path:
    """The file ``path`` names in the worktree, if the agent may change it."""
    target = ws.resolve(path)
    if ".git" in PurePosixPath(path.strip().replace("\\", "/")).parts:
        raise ToolError(f"path {path!r} is inside .git; only the worktree's files may change")
    if target == ws.root.resolve() or target.is_dir():
        raise ToolError(f"{path!r} is a directory; name a file")
    return target


def write_file(ws: Workspace, path: str, content: str) -> str:
    target = writable(ws, path)
    _check_size(ws, path, content)
    existed = target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return f"{'rewrote' if existed else 'created'} {path} ({lines} lines)"


def replace_snippet(ws: Workspace, path: str, old: str, new: str) -> str:
    text = ws.read_text(path)
    count = text.count(old) if old else 0
    if count != 1:
        where = "does not occur" if count == 0 else f"occurs {count} times"
        raise ToolError(
            f"the snippet {where} in {path!r}; give text that occurs exactly once (read_file "
            "shows the file), or use replace_lines"
        )
    line = text[: text.index(old)].count("\n") + 1
    updated = text.replace(old, new, 1)
    _check_size(ws, path, updated)
    writable(ws, path).write_text(updated)
    return f"replaced {old.count(chr(10)) + 1} line(s) at line {line} of {path}"


def replace_lines(ws: Workspace, path: str, start_line: int, end_line: int, new: str) -> str:
    lines = ws.read_text(path).splitlines(keepends=True)
    if not 1 <= start_line <= end_line + 1 or end_line > len(lines):
        raise ToolError(
            f"lines {start_line}-{end_line} are not a range of {path!r} ({len(lines)} lines); "
            "start_line = end_line + 1 inserts before start_line"
        )
    insert = new if not new or new.endswith("\n") else new + "\n"
    updated = "".join([*lines[: start_line - 1], insert, *lines[end_line:]])
    _check_size(ws, path, updated)
    writable(ws, path).write_text(updated)
    return f"replaced lines {start_line}-{end_line} of {path}"


def delete_file(ws: Workspace, path: str) -> str:
    target = writable(ws, path)
    if not target.is_file() and not target.is_symlink():
        raise ToolError(f"{path!r} is not a file in the worktree")
    target.unlink()
    return f"deleted {path}"


def _check_size(ws: Workspace, path: str, content: str) -> None:
    size = len(content.encode())
    if size > ws.settings.max_file_bytes:
        raise ToolError(
            f"{path!r} would be {size:,} bytes, over the {ws.settings.max_file_bytes:,}-byte "
            "limit (AGENT_TOOL_FILE_BYTES)"
        )
    limit = ws.settings.worktree_mb * 1024 * 1024
    if worktree_bytes(ws.root) + size > limit:
        raise ToolError(
            f"the worktree would pass its {ws.settings.worktree_mb} MB limit (AGENT_WORKTREE_MB)"
        )
