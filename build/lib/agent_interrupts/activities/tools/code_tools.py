"""Read-only code tools over a pinned workspace: list files, read a file, search.

Listing and search run ripgrep (the ``rg`` binary of the ``ripgrep`` wheel, a project
dependency): fast, glob-aware, and it skips binary files. ``--sort path`` keeps the answers
deterministic, so a step that is recomputed sees the same results.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from functools import cache
from pathlib import Path

from agent_interrupts.activities.tools.settings import LIST_ENTRIES, SEARCH_HITS
from agent_interrupts.activities.tools.workspace import ToolError, Workspace

RG_TIMEOUT_SECONDS = 30
HITS_PER_FILE = 4
MAX_LINE_CHARS = 300
"""A search hit or a read line longer than this is shortened."""


@cache
def rg_binary() -> str:
    """The ``rg`` of this environment (installed by the ripgrep wheel), else one on PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "rg"
    if beside.exists():
        return str(beside)
    found = shutil.which("rg")
    if found is None:
        raise RuntimeError("ripgrep (rg) is not installed; run pip install -e . to install it")
    return found


def list_files(ws: Workspace, glob: str | None) -> str:
    """Workspace paths matching ``glob`` (all files when empty), sorted, at most LIST_ENTRIES."""
    args = ["--files", "--sort", "path"]
    if glob:
        args += ["--glob", glob]
    lines, more = _rg(ws, args, LIST_ENTRIES)
    if not lines:
        return f"no files match {glob!r}" if glob else "the workspace has no files"
    tail = [f"[... more files: narrow the glob; at most {LIST_ENTRIES} are listed]"] if more else []
    return "\n".join([*lines, *tail])


def read_file(ws: Workspace, path: str, start_line: int | None, end_line: int | None) -> str:
    """Lines ``start_line``..``end_line`` (1-based, inclusive) of a text file, numbered."""
    lines = ws.read_text(path).splitlines()
    first = max(start_line or 1, 1)
    last = min(end_line or len(lines), len(lines))
    if first > max(len(lines), 1):
        raise ToolError(f"{path!r} has {len(lines)} lines; start_line {first} is past its end")
    body = [f"{n:>5}| {_short(lines[n - 1])}" for n in range(first, last + 1)]
    return "\n".join([f"{path} lines {first}-{last} of {len(lines)}", *body])


def search(ws: Workspace, pattern: str, literal: bool, glob: str | None) -> str:
    """``path:line: text`` for each matching line (regex, or ``literal``), at most SEARCH_HITS,
    and at most HITS_PER_FILE per file so one file cannot fill the answer."""
    if not pattern:
        raise ToolError("search needs a non-empty pattern")
    args = ["--line-number", "--with-filename", "--no-heading", "--sort", "path"]
    args += ["--max-filesize", str(ws.settings.max_file_bytes), "--ignore-case"]
    args += ["--max-columns", str(MAX_LINE_CHARS), "--max-columns-preview"]
    args += ["--max-count", str(HITS_PER_FILE)]
    if literal:
        args.append("--fixed-strings")
    if glob:
        args += ["--glob", glob]
    lines, more = _rg(ws, [*args, "--regexp", pattern], SEARCH_HITS)
    if not lines:
        return f"no matches for {pattern!r}" + (f" in {glob!r}" if glob else "")
    hits = []
    for line in lines:
        path, _, rest = line.partition(":")
        number, _, text = rest.partition(":")
        hits.append(f"{path}:{number}: {text.strip()}")
    if more:
        hits.append(f"[... more matches: narrow the pattern or glob; at most {SEARCH_HITS} shown]")
    return "\n".join(hits)


def _rg(ws: Workspace, args: list[str], limit: int) -> tuple[list[str], bool]:
    """The first ``limit`` output lines of rg in the workspace root, and whether there were more."""
    command = [rg_binary(), "--no-config", "--hidden", "--no-ignore", "--glob", "!.git", *args]
    process = subprocess.Popen(
        command,
        cwd=ws.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    lines: list[str] = []
    more = False
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if len(lines) == limit:
                more = True
                break
            lines.append(line.rstrip("\n").removeprefix("./"))
    finally:
        if more:
            process.kill()
        _, errors = process.communicate(timeout=RG_TIMEOUT_SECONDS)
    if process.returncode == 2 and not lines and not more:
        reason = (errors.strip().splitlines() or ["no message"])[-1][:300]
        raise ToolError(f"ripgrep refused the request: {reason}")
    return lines, more


def _short(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " [...]"
