"""Git for the agents' code changes: worktrees, commits, diffs and the run's merge.

The agents' branches live in a **run repository** per workspace source,
``<state>/workspaces/agents/<key>.git``: a bare repository that borrows the cached clone's objects
(``objects/info/alternates``) and holds only ``agents/...`` branches, so refreshing the clone never
prunes them and the user's own repository is never written. Each ticket step gets a worktree under
``<state>/worktrees/<run>/`` on ``agents/<run>/<ticket>``; the merge has its own on
``agents/<run>``.

Every operation is idempotent: a commit carries ``Agent-Node: <node id>`` and is found again
instead of made twice; a ticket already merged into the run branch is skipped.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.workspace import NotOnThisWorker, key_of, mirror_of
from agent_interrupts.models.code import (
    CONFLICT_FILES_ASKED,
    DIFF_CHARS,
    DIFF_FILES,
    OTHER_FILES,
    STAT_CHARS,
    CommitRequest,
    ConflictChoice,
    ConflictSide,
    Diff,
    FileResolution,
    MergeOutcome,
    MergeRequest,
    TicketBranch,
    TicketCommit,
    WorktreeRef,
)
from agent_interrupts.models.errors import AgentWorkflowError
from agent_interrupts.models.ids import ref_component
from agent_interrupts.models.tools import PinnedWorkspace

GIT_TIMEOUT_SECONDS = 120
MAX_COMMITS_LISTED = 50
CONFLICT_SIDE_CHARS = 1_500
"""Each side of a conflict as the question shows it."""
_LOCK = threading.Lock()
"""Worktree bookkeeping of one worker process, one at a time (git locks its files too)."""
_CONFLICT = re.compile(r"^<<<<<<< [^\n]*\n(.*?)^=======\n(.*?)^>>>>>>> [^\n]*$", re.M | re.S)


class GitWorkFailed(AgentWorkflowError):
    """A git operation on the agents' branches failed."""

    retryable = True


class WorktreeLimit(AgentWorkflowError):
    """More ticket worktrees than ``AGENT_WORKTREES`` would be on disk."""


def run_branch(run_id: str) -> str:
    return f"agents/{ref_component(run_id)}"


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    """Run git in ``cwd`` (hooks off); its stdout, or GitWorkFailed naming the command."""
    command = ["git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", *args]
    done = subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=GIT_TIMEOUT_SECONDS,
        env={**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})},
        check=False,
    )
    if check and done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        reason = lines[-1][:300] if lines else f"exit {done.returncode}"
        raise GitWorkFailed(f"git {' '.join(args[:2])} in {cwd} failed: {reason}")
    return done.stdout


def run_repository(pinned: PinnedWorkspace, settings: ToolSettings) -> Path:
    """The bare repository of the ticket branches of ``pinned``'s source, made on first use."""
    repo = settings.workspace_cache / "agents" / f"{key_of(pinned.source)}.git"
    return _bare(repo, [mirror_of(pinned, settings.workspace_cache) / "objects"])


def runs_repository(tickets: Path) -> Path:
    """The bare repository of the run branches: ``agents/<run>`` cannot live beside
    ``agents/<run>/<ticket>`` in one repository (a ref cannot be a file and a folder)."""
    repo = tickets.with_name(tickets.name.removesuffix(".git") + ".runs.git")
    alternates = (tickets / "objects" / "info" / "alternates").read_text().split()
    return _bare(repo, [tickets / "objects", *map(Path, alternates)])


def _bare(repo: Path, objects: list[Path]) -> Path:
    if not (repo / "HEAD").exists():
        repo.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="agents-", dir=repo.parent))
        git(staging, "init", "--quiet", "--bare", str(staging / "r.git"))
        alternates = "".join(f"{o}\n" for o in objects)
        (staging / "r.git" / "objects" / "info" / "alternates").write_text(alternates)
        with contextlib.suppress(OSError):  # another worker made it first
            (staging / "r.git").rename(repo)
        shutil.rmtree(staging, ignore_errors=True)
    return repo


def prepare(
    pinned: PinnedWorkspace, run_id: str, ticket_id: str, node_id: str, settings: ToolSettings
) -> WorktreeRef:
    """The worktree of ``node_id`` on ``agents/<run>/<ticket>`` (made once; a retry finds it).

    The branch starts at the pinned commit; a ticket that runs again continues from its tip.
    """
    repo = run_repository(pinned, settings)
    branch = f"{run_branch(run_id)}/{ref_component(ticket_id)}"
    path = settings.worktrees / ref_component(run_id) / ref_component(node_id.replace("/", "--"))
    record = path.with_name(path.name + ".json")
    with _LOCK:
        if (path / ".git").exists() and (kept := _kept_ref(record)) is not None:
            return kept
        on_disk = [p for p in settings.worktrees.glob("*/*") if p.is_dir()]
        if len(on_disk) >= settings.max_worktrees:
            raise WorktreeLimit(
                f"{len(on_disk)} agent worktrees are on disk under {settings.worktrees}, the "
                "limit (AGENT_WORKTREES): let runs finish, delete worktrees of failed runs, or "
                "raise AGENT_WORKTREES"
            )
        _free_branch(repo, branch)
        exists = git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False)
        base = exists.strip() or pinned.commit
        shutil.rmtree(path, ignore_errors=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        git(repo, "worktree", "prune")
        new = [] if exists.strip() else ["-b", branch]
        git(repo, "worktree", "add", "--quiet", *new, str(path), branch if exists else base)
        ref = WorktreeRef(
            path=str(path),
            branch=branch,
            base_commit=base,
            ticket_id=ticket_id,
            node_id=node_id,
            repository=str(repo),
        )
        staged = record.with_name(record.name + ".tmp")
        staged.write_text(ref.model_dump_json())
        staged.replace(record)  # whole or absent: a worker killed while writing leaves no half
        return ref


def _kept_ref(record: Path) -> WorktreeRef | None:
    """The worktree a retried ``prepare`` finds; None when there is none to trust (no record, or
    one cut short by a worker killed while writing it: the worktree is made again)."""
    try:
        return WorktreeRef.model_validate_json(record.read_text())
    except (OSError, ValueError):
        return None


def _free_branch(repo: Path, branch: str) -> None:
    """Remove an earlier worktree that holds ``branch`` (the ticket's previous step)."""
    listing = git(repo, "worktree", "list", "--porcelain")
    for block in listing.split("\n\n"):
        lines = dict(line.split(" ", 1) for line in block.splitlines() if " " in line)
        if lines.get("branch") == f"refs/heads/{branch}":
            git(repo, "worktree", "remove", "--force", lines["worktree"], check=False)


def reset(worktree: WorktreeRef) -> None:
    """Back to the step's base commit: every edit is applied again from the transcript."""
    path = Path(worktree.path)
    if not (path / ".git").exists():
        raise NotOnThisWorker(
            f"ticket worktree {path} is not on this worker",
            "give every worker that serves runs with a workspace the same AGENT_WORKSPACES_DIR "
            "(a directory they share at the same path), and do not delete a run's worktrees "
            "while it runs",
        )
    git(path, "reset", "--hard", "--quiet", worktree.base_commit)
    git(path, "clean", "-fdxq")


def snapshot(path: Path) -> str:
    """The tree of the worktree's files as they are (ignored files left out), index untouched."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(path, "add", "-A", env=env)
        return git(path, "write-tree", env=env).strip()


def restore(path: Path, tree: str) -> None:
    """Make the worktree's files exactly ``tree`` again (undo what a test run wrote)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(path, "read-tree", tree, env=env)
        git(path, "clean", "-fdxq", env=env)
        git(path, "checkout-index", "-a", "-f", env=env)


def commit(request: CommitRequest, settings: ToolSettings) -> str | None:
    """Commit the worktree once for its node: the earlier commit if there is one, else a new
    one; None when nothing changed."""
    wt = request.worktree
    path = Path(wt.path)
    done = _commit_of(path, wt)
    if done is not None:
        return done
    git(path, "add", "-A")
    if not git(path, "diff", "--cached", "--name-only").strip():
        return None
    trailers = (
        f"Agent-Run: {request.run_id}\nAgent-Node: {wt.node_id}\nAgent-Ticket: {wt.ticket_id}"
    )
    message = f"{_one_line(request.subject) or wt.ticket_id}\n\n"
    message += f"{request.summary.strip()}\n\n" if request.summary.strip() else ""
    git(path, "commit", "--quiet", "--no-verify", "-m", message + trailers, env=_identity(settings))
    return git(path, "rev-parse", "HEAD").strip()


def _identity(settings: ToolSettings) -> dict[str, str]:
    """Author and committer from ``AGENT_COMMIT_AUTHOR`` (``name <email>``)."""
    name, _, email = settings.commit_author.partition(" <")
    email = email.rstrip(">")
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


def _commit_of(path: Path, wt: WorktreeRef) -> str | None:
    log = git(
        path,
        "log",
        "--format=%H%x00%(trailers:key=Agent-Node,valueonly,separator=%x00)",
        f"{wt.base_commit}..HEAD",
    )
    for line in log.splitlines():
        sha, _, nodes = line.partition("\0")
        if wt.node_id in nodes.split("\0"):
            return sha
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())[:72]


def diff(repo: Path, base: str, head: str, limit: int = DIFF_CHARS) -> Diff:
    """``base..head``'s stat, files and patch, the patch cut at ``limit`` characters."""
    stat = git(repo, "diff", "--stat=100", base, head).rstrip()
    if len(stat) > STAT_CHARS:
        lines = stat.splitlines()
        stat = "\n".join([*lines[:40], f" ... ({len(lines) - 41} more files)", lines[-1]])
    files = git(repo, "diff", "--name-only", base, head).split()
    if len(files) > DIFF_FILES:
        files = files[:DIFF_FILES]
    text = git(repo, "diff", "--no-color", base, head)
    if len(text) <= limit:
        return Diff(stat=stat, files=files, text=text)
    kept = text[:limit].rsplit("\n", 1)[0] + "\n"
    shown = set(re.findall(r"^diff --git a/(\S+)", kept, re.M))  # of the files listed
    left_out = [f for f in files if f not in shown]
    cut = f"cut at {limit:,} of {len(text):,} characters"
    if left_out:
        cut += f"; files not shown: {', '.join(left_out[:20])}" + (
            f" and {len(left_out) - 20} more" if len(left_out) > 20 else ""
        )
    return Diff(stat=stat, files=files, text=kept, cut=cut)


def ticket_commit(wt: WorktreeRef, sha: str | None) -> TicketCommit:
    """What the step changed, from git."""
    head = sha or wt.base_commit
    return TicketCommit(
        ticket_id=wt.ticket_id,
        node_id=wt.node_id,
        branch=wt.branch,
        base_commit=wt.base_commit,
        sha=sha,
        files=git(Path(wt.repository), "diff", "--name-only", wt.base_commit, head).split(),
        diff=diff(Path(wt.repository), wt.base_commit, head),
    )


def merge(request: MergeRequest, settings: ToolSettings) -> tuple[MergeOutcome, Path]:
    """Merge the ticket branches into ``agents/<run>`` in order; stop at the first conflict that
    has no resolution (the merge is undone, the outcome names it). Returns the merge worktree."""
    repo = runs_repository(Path(request.repository))
    branch = run_branch(request.run_id)
    path = settings.worktrees / ref_component(request.run_id) / "_merge"
    with _LOCK:
        if not (path / ".git").exists():
            shutil.rmtree(path, ignore_errors=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            git(repo, "worktree", "prune")
            exists = git(repo, "rev-parse", "--verify", "--quiet", branch, check=False).strip()
            new = [] if exists else ["-b", branch]
            start = branch if exists else request.base_commit
            git(repo, "worktree", "add", "--quiet", *new, str(path), start)
    if (Path(git(path, "rev-parse", "--git-dir").strip()) / "MERGE_HEAD").exists():
        git(path, "merge", "--abort", check=False)
    git(path, "reset", "--hard", "--quiet")
    git(path, "clean", "-fdxq")
    outcome = MergeOutcome(run_branch=branch, repository=str(repo), head="")
    for ticket in request.tickets:
        if _merged(path, ticket):
            outcome.merged.append(ticket.ticket_id)
            continue
        conflicts, count = _merge_one(path, request, ticket, settings)
        if count:
            outcome.conflict_ticket = ticket.ticket_id
            outcome.conflicts, outcome.conflict_count = conflicts, count
            break
        outcome.merged.append(ticket.ticket_id)
    head = git(path, "rev-parse", "HEAD").strip()
    commits = git(path, "log", "--format=%h %s", f"{request.base_commit}..HEAD").splitlines()
    outcome.head = head
    outcome.commits = commits[:MAX_COMMITS_LISTED]
    outcome.diff = diff(repo, request.base_commit, head)
    return outcome, path


def _merged(path: Path, ticket: TicketBranch) -> bool:
    done = subprocess.run(
        ["git", "merge-base", "--is-ancestor", ticket.head, "HEAD"], cwd=path, check=False
    )
    return done.returncode == 0


def _merge_one(
    path: Path, request: MergeRequest, ticket: TicketBranch, settings: ToolSettings
) -> tuple[list[ConflictSide], int]:
    """Merge one ticket; when no answer resolves all its conflicts, the merge is undone and the
    first files' conflicts and how many files conflict come back."""
    identity = _identity(settings)
    message = (
        f"Merge {ticket.ticket_id} into {run_branch(request.run_id)}\n\n"
        f"Agent-Run: {request.run_id}\nAgent-Ticket: {ticket.ticket_id}"
    )
    git(
        path, "merge", "--no-ff", "--no-edit", "-m", message, ticket.head, env=identity, check=False
    )
    unmerged = sorted(set(git(path, "diff", "--name-only", "--diff-filter=U").split()))
    if not unmerged:
        if (Path(git(path, "rev-parse", "--git-dir").strip()) / "MERGE_HEAD").exists():
            git(path, "commit", "--no-edit", "--quiet", env=identity)
        return [], 0
    answers = {r.path: r for r in request.resolutions.get(ticket.ticket_id, [])}
    chosen = {f: answers.get(f) or answers.get(OTHER_FILES) for f in unmerged}
    if all(chosen.values()):
        for file, answer in chosen.items():
            if answer is not None:
                _apply(path, answer.model_copy(update={"path": file}))
        git(path, "add", "-A")
        git(path, "commit", "--no-edit", "--quiet", env=identity)
        return [], 0
    sides = [_sides(path, file, ticket) for file in unmerged[:CONFLICT_FILES_ASKED]]
    git(path, "merge", "--abort")
    return sides, len(unmerged)


def _apply(path: Path, answer: FileResolution) -> None:
    if answer.choice is ConflictChoice.CONTENT:
        target = path / answer.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(answer.content or "")
        return
    side = "--ours" if answer.choice is ConflictChoice.OURS else "--theirs"
    try:
        git(path, "checkout", side, "--", answer.path)
    except GitWorkFailed:  # that side deleted the file
        git(path, "rm", "--quiet", "--", answer.path)


def _sides(path: Path, file: str, ticket: TicketBranch) -> ConflictSide:
    text = (path / file).read_text(errors="replace") if (path / file).is_file() else ""
    regions = _CONFLICT.findall(text)
    ours = "".join(r[0] for r in regions) or "(deleted or binary on the run branch)"
    theirs = "".join(r[1] for r in regions) or f"(deleted or binary on {ticket.branch})"
    lines = [i + 1 for i, line in enumerate(text.splitlines()) if line.startswith("<<<<<<< ")]
    where = f"line {lines[0]}" if len(lines) == 1 else f"{len(lines)} places" if lines else "it"
    return ConflictSide(
        path=file,
        diff_summary=f"{ticket.ticket_id} ({ticket.branch}) and the run branch both changed "
        f"{file} at {where}; the run branch has {_count(ours)}, the ticket {_count(theirs)}",
        ours=ours[:CONFLICT_SIDE_CHARS],
        theirs=theirs[:CONFLICT_SIDE_CHARS],
    )


def _count(text: str) -> str:
    n = len(text.splitlines())
    return f"{n} line{'s' if n != 1 else ''}"


def push(path: Path, branch: str, remote: str) -> None:
    git(path, "push", "--quiet", remote, f"{branch}:{branch}")


def remove_worktrees(run_id: str, pinned: PinnedWorkspace, settings: ToolSettings) -> list[str]:
    """Remove the run's worktrees (its branches stay); the paths removed."""
    repo = run_repository(pinned, settings)
    folder = settings.worktrees / ref_component(run_id)
    removed = [str(p) for p in sorted(folder.glob("*")) if p.is_dir()]
    with _LOCK:
        shutil.rmtree(folder, ignore_errors=True)
        for each in (repo, runs_repository(repo)):
            git(each, "worktree", "prune")
    return removed


def worktree_bytes(path: Path) -> int:
    """Bytes of the worktree's files (not ``.git``)."""
    total = 0
    for folder, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != ".git"]
        total += sum(
            (Path(folder) / f).lstat().st_size for f in files if not (Path(folder) / f).is_symlink()
        )
    return total
