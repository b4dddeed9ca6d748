"""A run's workspace: a git repository pinned to one commit, checked out read-only in a cache.

``pin`` clones (or fetches) the source into ``<cache>/repos/`` and resolves the ref to a commit;
``checkout`` extracts that commit once into ``<cache>/trees/<commit>/``, so every step, retry and
replay of the run reads the same files. Symlinks that leave the tree are not extracted, and
``Workspace.resolve`` refuses any path that would leave it (``..``, absolute paths, symlinks).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import os
import shutil
import socket
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from temporalio import activity

from agent_interrupts.activities.attempts import retry_or_last
from agent_interrupts.activities.heartbeat import heartbeating
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.test_command import default_test_command
from agent_interrupts.models.errors import AgentWorkflowError, WorkerCannotServe
from agent_interrupts.models.limits import echo
from agent_interrupts.models.policies import AGENT_HEARTBEAT_INTERVAL, WORKER_CONDITION_ATTEMPTS
from agent_interrupts.models.tools import PinnedWorkspace, WorkspaceSpec

T = TypeVar("T")

GIT_TIMEOUT_SECONDS = 240
"""One git command (clone, fetch, archive); under the pin activity's start-to-close timeout."""
BINARY_SNIFF_BYTES = 8_192
"""A file with a NUL byte in its first bytes is binary."""


class WorkspaceUnavailable(AgentWorkflowError):
    """The workspace could not be cloned, or its ref does not name a commit."""


class NotOnThisWorker(Exception):
    """What this worker lacks to serve the step; another worker may have it."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(what)
        self.fix = fix


_MOUNT_IT = (
    "mount it at the same path on every worker, or start the run with a git URL that every "
    "worker can fetch (agents run --workspace URL)"
)


async def served_here(work: Callable[..., T], *args: Any) -> T:
    """``work`` in a thread; what this worker lacks becomes a retryable error, counted so the
    run fails, naming what to change, once no worker served it (WORKER_CONDITION_ATTEMPTS)."""
    try:
        return await asyncio.to_thread(work, *args)
    except NotOnThisWorker as err:
        raise retry_or_last(
            WorkerCannotServe,
            "local",
            WORKER_CONDITION_ATTEMPTS,
            f"{err} (worker {socket.gethostname()})",
            err.fix,
        ) from None


class ToolError(ValueError):
    """A tool call the model got wrong (a bad path, a binary file ...): its result says why."""


def key_of(source: str) -> str:
    """A stable short name for a source: its cache directory and its memory's name."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def is_git_url(source: str) -> bool:
    return "://" in source or source.startswith("git@")


def normalized_source(source: str) -> str:
    """Local paths become absolute (the worker may run elsewhere); URLs stay as they are."""
    return source if is_git_url(source) else str(Path(source).expanduser().resolve())


def pin(spec: WorkspaceSpec, cache: Path) -> PinnedWorkspace:
    """Clone or fetch ``spec.source`` and resolve ``spec.ref`` (default HEAD) to a commit."""
    source = normalized_source(spec.source)
    _visible_here(source)
    if not is_git_url(source) and not Path(source).is_dir():
        raise WorkspaceUnavailable(f"workspace {source!r} is not a directory or a git URL")
    mirror = _mirror(source, cache)
    ref = spec.ref or "HEAD"
    commit = _git(mirror, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if not commit:
        raise WorkspaceUnavailable(
            f"workspace {source!r}: {ref!r} names no commit; pass a branch, tag or commit that "
            "exists (start input workspace.ref, or agents run --ref)"
        )
    return PinnedWorkspace(source=source, commit=commit, memory_key=key_of(source))


_BRANCHES = "+refs/heads/*:refs/heads/*"


def _mirror(source: str, cache: Path) -> Path:
    mirror = cache / "repos" / key_of(source)
    if (mirror / "HEAD").exists():
        _git(
            mirror, "fetch", "--quiet", "--prune", "--tags", "origin", "+refs/heads/*:refs/heads/*"
        )
        return mirror
    mirror.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="clone-", dir=mirror.parent))
    try:
        _run(["git", "clone", "--quiet", "--bare", source, str(staging / "repo")], source)
        with contextlib.suppress(OSError):  # another worker may have finished the same clone
            (staging / "repo").rename(mirror)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return mirror


def checkout(pinned: PinnedWorkspace, cache: Path) -> Path:
    """The directory holding ``pinned.commit``'s files, extracted once per commit."""
    tree = cache / "trees" / pinned.commit
    if tree.is_dir():
        return tree
    mirror = mirror_of(pinned, cache)
    archive = subprocess.run(
        ["git", "--git-dir", str(mirror), "archive", "--format=tar", pinned.commit],
        capture_output=True,
        timeout=GIT_TIMEOUT_SECONDS,
        check=False,
    )
    if archive.returncode != 0:
        raise WorkspaceUnavailable(
            f"workspace {pinned.source!r}: commit {pinned.commit} is not in the repository any "
            f"more ({_first_line(archive.stderr)})"
        )
    tree.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="tree-", dir=tree.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(staging / "t", filter=_inside_only)
        with contextlib.suppress(OSError):  # another activity may have extracted it first
            (staging / "t").rename(tree)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return tree


def mirror_of(pinned: PinnedWorkspace, cache: Path) -> Path:
    """The cached bare clone of the source, fetched again if it lacks the pinned commit."""
    mirror = cache / "repos" / key_of(pinned.source)
    if not (mirror / "HEAD").exists() or not _has_commit(mirror, pinned.commit):
        _visible_here(pinned.source)
        mirror = _mirror(pinned.source, cache)
    return mirror


def _inside_only(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """The ``data`` filter, skipping (not failing on) links that point out of the tree."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def _visible_here(source: str) -> None:
    """A local source this worker cannot see, or no git here, is this worker's condition."""
    if shutil.which("git") is None:
        raise NotOnThisWorker("git is not installed on this worker", "install git on it")
    if not is_git_url(source) and not Path(source).exists():
        raise NotOnThisWorker(f"workspace {source!r} is not visible on this worker", _MOUNT_IT)


def _has_commit(mirror: Path, commit: str) -> bool:
    return bool(_git(mirror, "cat-file", "-t", commit, check=False))


def _git(repo: Path, *args: str, check: bool = True) -> str:
    result = _run(["git", "--git-dir", str(repo), *args], str(repo), check=check)
    return result.stdout.strip()


def _run(
    command: list[str], source: str, *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise WorkspaceUnavailable(
            f"workspace {source!r}: git {command[1]} took over {GIT_TIMEOUT_SECONDS} s"
        ) from None
    if check and result.returncode != 0:
        raise WorkspaceUnavailable(
            f"workspace {source!r}: git {' '.join(command[1:3])} failed: "
            f"{_first_line(result.stderr)}"
        )
    return result


def _first_line(text: str | bytes) -> str:
    value = text.decode(errors="replace") if isinstance(text, bytes) else text
    lines = [line for line in value.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no message"


MAX_NAME_BYTES = 255
"""The longest file name Linux file systems take (``NAME_MAX``)."""
MAX_PATH_BYTES = 1024
"""The longest path inside a workspace a tool takes (Linux's ``PATH_MAX`` is 4096, with the
worker's directories before it)."""
SHOWN_PATH_CHARS = 120
"""How much of a path an error quotes: a model may name anything."""


@dataclass(frozen=True)
class Workspace:
    """A checked-out commit that tools may read and nothing may leave."""

    root: Path
    pinned: PinnedWorkspace
    settings: ToolSettings

    def resolve(self, path: str) -> Path:
        """The file ``path`` names inside the workspace; ToolError if it would leave it."""
        text = path.strip().replace("\\", "/")
        shown = echo(path, SHOWN_PATH_CHARS)
        relative = PurePosixPath(text)
        if not text or relative.is_absolute() or ".." in relative.parts:
            raise ToolError(
                f"path {shown} is not a relative path inside the workspace (no '..', no "
                "leading '/')"
            )
        if len(text.encode()) > MAX_PATH_BYTES or any(
            len(part.encode()) > MAX_NAME_BYTES for part in relative.parts
        ):
            raise ToolError(
                f"path {shown} is too long for a file system: at most {MAX_NAME_BYTES} "
                f"bytes a name, {MAX_PATH_BYTES} in all"
            )
        root = self.root.resolve()
        try:
            target = (root / relative).resolve()
        except (OSError, RuntimeError) as err:  # RuntimeError: a symlink loop (Python 3.11)
            why = err.strerror if isinstance(err, OSError) else "a symlink loop"
            raise ToolError(f"path {shown} cannot be followed: {why}") from None
        if target != root and root not in target.parents:
            raise ToolError(f"path {shown} leaves the workspace (through a symlink)")
        return target

    def relative(self, target: Path) -> str:
        return target.relative_to(self.root.resolve()).as_posix()

    def read_text(self, path: str) -> str:
        """A text file's content; ToolError for a directory, a missing, huge or binary file."""
        target = self.resolve(path)
        if not target.is_file():
            raise ToolError(f"{path!r} is not a file in the workspace; list_files shows what is")
        size = target.stat().st_size
        limit = self.settings.max_file_bytes
        if size > limit:
            raise ToolError(
                f"{path!r} is {size:,} bytes, over the {limit:,}-byte limit for reading "
                "(AGENT_TOOL_FILE_BYTES); search it instead"
            )
        data = target.read_bytes()
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            raise ToolError(f"{path!r} is a binary file; only text files can be read")
        return data.decode("utf-8", errors="replace")


class WorkspaceActivities:
    """The pin activity: resolve a run's workspace to a commit, once, at the start of the run."""

    def __init__(self, settings: ToolSettings) -> None:
        self._settings = settings

    @activity.defn
    async def pin_workspace(self, spec: WorkspaceSpec) -> PinnedWorkspace:
        """Clone or fetch the source and pin the commit every step of the run will read."""
        cache = self._settings.workspace_cache
        try:
            async with heartbeating(AGENT_HEARTBEAT_INTERVAL):
                pinned = await served_here(pin, spec, cache)
                tree = await served_here(checkout, pinned, cache)
        except AgentWorkflowError as err:
            raise err.to_application_error() from None
        command = spec.test_command or default_test_command(tree)
        activity.logger.info("workspace %s pinned at %s", pinned.source, pinned.commit)
        return pinned.model_copy(update={"test_command": command})
