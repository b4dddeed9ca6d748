"""Code changes as they cross the activity boundary: worktrees, verification runs,
ticket commits, the run's merge and its branch.

Everything here is small and bounded: diffs travel capped (``DIFF_CHARS`` with a stat of what was
cut), test output capped (``TEST_OUTPUT_CHARS``); file contents never travel except a person's
write-in resolution of a conflict.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from agent_interrupts.models.base import WireModel
from agent_interrupts.models.results import MergeConflict, TestOutcome, VerificationStatus
from agent_interrupts.models.tools import PinnedWorkspace

TEST_OUTPUT_CHARS = 4_000
"""The tail of a verification run's output kept with its result."""
DIFF_CHARS = 12_000
"""One ticket's diff as review, the merger and the export see it; the rest is cut, with a stat."""
MAX_TEST_OUTCOMES = 50
"""Parsed test outcomes kept per verification run (failures first); the counts cover all."""
MAX_RUN_TICKETS = 32
"""Ticket branches one run remembers (its merge order); older tickets beyond it are dropped."""
CONFLICT_FILES_ASKED = 5
"""Conflicting files a merger question shows one by one; its last choice also covers the rest."""
OTHER_FILES = "*"
"""The path of a resolution that applies to every conflicting file not named on its own."""
DIFF_FILES = 500
"""Changed files a diff lists by name; its stat still counts them all."""
STAT_CHARS = 4_000
"""A diff's stat; a longer one keeps its first lines and its summary line."""


class WorktreeRef(WireModel):
    """A ticket agent's worktree: where it is, its branch and the commit its edits start from."""

    path: str
    branch: str
    base_commit: str
    ticket_id: str
    node_id: str
    repository: str = Field(description="The run repository holding the agents' branches.")


class TestRun(WireModel):
    """One verification run in the sandbox: what ran, how it ended, what it printed."""

    __test__ = False  # not a pytest test class

    command: str
    exit_code: int | None = Field(description="null when the run was killed (time limit).")
    timed_out: bool = False
    duration_ms: int = 0
    outcomes: list[TestOutcome] = Field(default_factory=list)
    passed: int = 0
    failed: int = 0
    output_tail: str = Field(default="", description="The end of stdout+stderr, capped.")
    problem: str | None = Field(default=None, description="Why it could not run (no sandbox).")

    @property
    def status(self) -> VerificationStatus:
        """VERIFIED: exit 0 and no failure; FAILED otherwise (PARTIAL: no command to run)."""
        if self.problem is not None:
            return VerificationStatus.PARTIAL
        ok = self.exit_code == 0 and not self.timed_out and self.failed == 0
        return VerificationStatus.VERIFIED if ok else VerificationStatus.FAILED


class Diff(WireModel):
    """A capped diff with its full stat."""

    stat: str = Field(default="", description="``git diff --stat`` of the whole change.")
    files: list[str] = Field(default_factory=list)
    text: str = ""
    cut: str | None = Field(default=None, description="What the cap left out, or null.")


class CommitRequest(WireModel):
    """Commit a ticket agent's worktree once (keyed by its node id)."""

    worktree: WorktreeRef
    run_id: str
    subject: str = Field(max_length=200)
    summary: str = Field(default="", max_length=2_000)
    test_command: str | None = None


class TicketCommit(WireModel):
    """What a ticket's step really changed: the commit (or none), the files, the tests."""

    ticket_id: str
    node_id: str
    branch: str
    base_commit: str
    sha: str | None = Field(description="null: the agent changed nothing.")
    files: list[str] = Field(default_factory=list)
    diff: Diff = Field(default_factory=Diff)
    tests: TestRun | None = None


class CodeCommit(WireModel):
    """What a declared code-writing agent's step really changed, from git and its sandboxed test
    run: its result's ``codeCommit``, filled by the workflow (never written by the model)."""

    ticket_id: str = Field(description="Names its branch: the request's ticketId, or its key.")
    branch: str
    base_commit: str
    sha: str | None = Field(description="null: the agent changed nothing.")
    files: list[str] = Field(default_factory=list)
    diff_stat: str = ""
    verification_status: VerificationStatus
    verification: str = Field(description="Status and counts of its test run.")
    test_results: list[TestOutcome] = Field(default_factory=list)


class TicketBranch(WireModel):
    """A ticket branch the run merges: compact, kept in workflow state."""

    ticket_id: str
    branch: str
    base: str
    head: str
    dependencies: list[str] = Field(default_factory=list)
    verification: str = Field(default="", description="Status and counts of its test run.")


class ConflictChoice(StrEnum):
    OURS = "OURS"
    THEIRS = "THEIRS"
    CONTENT = "CONTENT"


class FileResolution(WireModel):
    """A person's answer for one conflicting file: the run branch's side, the ticket's, or text."""

    path: str
    choice: ConflictChoice
    content: str | None = None


class MergeRequest(WireModel):
    """Merge the ticket branches into ``agents/<run>`` in order, applying known resolutions."""

    run_id: str
    repository: str
    base_commit: str
    tickets: list[TicketBranch]
    resolutions: dict[str, list[FileResolution]] = Field(
        default_factory=dict, description="By ticket id: how its conflicting files resolve."
    )
    test_command: str | None = None


class ConflictSide(WireModel):
    path: str
    diff_summary: str
    ours: str = Field(description="The run branch's version of the conflicting lines, capped.")
    theirs: str = Field(description="The ticket branch's version, capped.")


class MergeOutcome(WireModel):
    """The run branch after the merge, or the ticket whose merge conflicts."""

    run_branch: str
    repository: str
    head: str
    merged: list[str] = Field(default_factory=list, description="Ticket ids merged, in order.")
    commits: list[str] = Field(default_factory=list, description="``sha subject`` lines.")
    diff: Diff = Field(default_factory=Diff)
    conflict_ticket: str | None = None
    conflicts: list[ConflictSide] = Field(
        default_factory=list, description=f"The first {CONFLICT_FILES_ASKED} conflicting files."
    )
    conflict_count: int = Field(default=0, description="Every conflicting file of the ticket.")
    tests: TestRun | None = None
    pushed_to: str | None = None

    def compact(self) -> MergeOutcome:
        """Without the diff text and test output: what workflow state keeps."""
        tests = self.tests
        small = tests.model_copy(update={"outcomes": [], "output_tail": ""}) if tests else None
        return self.model_copy(update={"diff": Diff(stat=self.diff.stat), "tests": small})

    @property
    def checkout(self) -> str:
        """How a person gets the run branch into their own clone."""
        return (
            f"git fetch {self.repository} {self.run_branch}:{self.run_branch} && "
            f"git checkout {self.run_branch}"
        )


class AskedConflict(WireModel):
    """The conflict a person was asked about: which choice id is which file."""

    ticket_id: str
    paths: list[str]
    more: int = Field(default=0, description="Conflicting files beyond ``paths``.")


class CodeState(WireModel):
    """What the orchestrator remembers of the run's code changes (bounded)."""

    tickets: list[TicketBranch] = Field(default_factory=list)
    worktrees: list[str] = Field(
        default_factory=list, description="Worktree paths still on disk (kept when a run fails)."
    )
    repository: str = Field(default="", description="The run repository of the branches.")
    merge: MergeOutcome | None = Field(default=None, description="The last merge (diff text cut).")
    asked: AskedConflict | None = None
    resolutions: dict[str, list[FileResolution]] = Field(default_factory=dict)
    """Answers to conflicts of tickets not yet merged, by ticket id."""
    resolved: list[MergeConflict] = Field(default_factory=list)
    """Conflicts people resolved in this run (the merger's result lists them)."""


class PrepareRequest(WireModel):
    """Make (or find) the worktree of a ticket agent's step."""

    workspace: PinnedWorkspace
    run_id: str
    ticket_id: str
    node_id: str


class FinishRequest(WireModel):
    """Remove a finished run's worktrees (its branches stay)."""

    workspace: PinnedWorkspace
    run_id: str


class ReviewMaterialRequest(WireModel):
    """The ticket diffs a review reads."""

    workspace: PinnedWorkspace
    tickets: list[TicketBranch]
    diff_chars: int = DIFF_CHARS


class TicketChange(WireModel):
    """One ticket's real change as review and the merger see it."""

    ticket_id: str
    branch: str
    head: str
    verification: str
    diff: Diff
