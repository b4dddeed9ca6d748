"""Every patch id the workflow code passes to ``workflow.patched``, with its end (docs/deploys.md).

A change that alters the commands a workflow emits for a recorded history is guarded with
``workflow.patched(<id>)``: runs recorded before it take the old branch, new runs the new one.
Each id is registered here once, with the landed version that first carried it, the recorded
histories (``tests/histories/<version>/<name>.json``) whose replay reaches each branch, and the
last landed version whose runs may take its old branch. Once no run started by that version (or
an earlier one) can be in flight, ``workflow.patched(<id>)`` may become
``workflow.deprecate_patch(<id>)`` and the old branch may go; once no run started before that
deploy can be in flight, the call may go too (temporalio/samples-python ``hello/hello_patch.py``).

The workflow modules import their ids from here; ``tests/workflows/test_patches.py`` fails on a
``workflow.patched`` call whose id is not registered, on a history that does not take the branch
an entry claims, and on a version whose histories take a branch no entry names
(``python -m tests.histories.patch_uses`` prints the patterns to claim).
"""

from __future__ import annotations

from dataclasses import dataclass

NEXT = "next"
"""The next landed version, not yet recorded in ``tests/histories/landed.py``: an id added since
the newest landing. When that version lands, its entries name it instead."""


@dataclass(frozen=True)
class Patch:
    id: str
    """What ``workflow.patched`` is called with: the issue that added it, then the change."""
    what: str
    """What the new branch does, and what runs recorded before it did."""
    added_in: str
    """The landed version (``tests/histories/landed.py``) that first carried the id, or ``NEXT``."""
    deprecate_after: str
    """The newest landed version whose runs may take the old branch (the one before
    ``added_in``): ``deprecate_patch`` is safe once none of its runs, or earlier ones, can be in
    flight."""
    old_branch: tuple[str, ...] = ()
    """Recorded histories (``fnmatch`` patterns over ``<version>/<name>``) whose replay takes the
    old branch (``patched`` answers ``False``: no marker); each version that has such a history is
    named."""
    new_branch: tuple[str, ...] = ()
    """Recorded histories whose replay takes the new branch (their marker is in the history)."""


EVENT_ENDS_IN_QUESTION = "18-event-ends-in-question"
EVENTS_ON_DISPATCHED_AGENTS = "18-events-on-dispatched-agents"
FREE_TEXT = "18-free-text-answers"
EARLY_QUESTIONS = "18-questions-while-siblings-run"
STEP_BUDGET_ASKS = "19-step-budget-asks-a-person"
CODE_CHANGES = "20-code-changes"
QUESTION_HANDED_OVER = "23-question-handed-over"
ANSWER_TAKEN = "30-answer-taken-untranslated"
EVENT_CHOICES_JOIN = "30-event-choices-join-the-agents-own"
EVENTS_ON_DISPATCH_NODES = "30-events-on-dispatch-nodes-cancel-their-agents"
ANSWERED_ALONE = "30-fan-out-questions-answered-alone"
MODEL_FAILURES_ASK = "30-model-failures-ask"
OWN_ATTRIBUTES = "30-runs-set-their-own-search-attributes"
WORKTREE_LIMIT_ASKS = "30-worktree-limit-asks-a-person"
ARRIVE_TOGETHER = "40-fan-out-questions-arrive-together"
REROUTE_TAKEN = "40-rerouted-answer-taken-untranslated"
STUCK_WAYS_OUT = "40-stuck-questions-offer-ways-out"
TEAM_CONTEXTS = "42-declared-collectors-curated"
GIT_FILLED = "42-declared-filled-from-git"
REVIEW_FINDINGS = "42-declared-review-findings-checked"
ANSWER_RULES = "43-answer-rules-read"
CLAIMS_REFUSED = "43-signal-claiming-the-workflows-answer-ignored"
NOTICES_LAST = "46-notices-behind-agent-steps"
SPREAD_REMINDERS = "46-reminders-spread"
FORK_LINKS_CHECKED = "44-fork-links-checked"

_BEFORE_CONCURRENT = ("83c9b6c/orchestrator-dispatch-question-waiting",)
"""The oldest version's runs: no concurrent-questions shape was recorded yet."""


def _concurrent(*versions: str) -> tuple[str, ...]:
    """The concurrent-questions run recorded by each of ``versions``."""
    return tuple(f"{v}/orchestrator-concurrent-questions-1" for v in versions)


PATCHES: tuple[Patch, ...] = (
    Patch(
        EVENT_ENDS_IN_QUESTION,
        "an agent that ignores a supervisor's event gets its question asked by the workflow "
        "(runs recorded before dropped the event with a warning)",
        added_in="2dab00f",
        deprecate_after="8967e4f",
        new_branch=("*/orchestrator-ignored-event-1",),
    ),
    Patch(
        EVENTS_ON_DISPATCHED_AGENTS,
        "a supervisor's signal may target a running dispatched agent (runs recorded before "
        "refused it)",
        added_in="2dab00f",
        deprecate_after="8967e4f",
        new_branch=("*/orchestrator-event-on-an-agent-1",),
    ),
    Patch(
        FREE_TEXT,
        "a resolve signal's free text may answer the choices it leaves open",
        added_in="2dab00f",
        deprecate_after="8967e4f",
        new_branch=("*/interrupt-free-text-1",),
    ),
    Patch(
        EARLY_QUESTIONS,
        "a dispatched agent's question is asked while its siblings still run (runs recorded "
        "before waited for the whole fan-out)",
        added_in="2dab00f",
        deprecate_after="8967e4f",
        old_branch=(*_BEFORE_CONCURRENT, *_concurrent("8967e4f")),
        new_branch=_concurrent("0d58100", "2dab00f", "7aed27b", "8f0f9de", "95f6728", "f10337d"),
    ),
    Patch(
        STEP_BUDGET_ASKS,
        "a run that used up its step budget asks a person for more (runs recorded before failed)",
        added_in="2dab00f",
        deprecate_after="8967e4f",
        new_branch=("*/orchestrator-step-budget-1",),
    ),
    Patch(
        CODE_CHANGES,
        "a ticket agent with a pinned workspace works in its own worktree and commits there",
        added_in="2dab00f",
        deprecate_after="8967e4f",
    ),
    Patch(
        QUESTION_HANDED_OVER,
        "a question whose run's history grew long while it waited is cancelled and asked again "
        "by the next run (runs recorded before waited until the server ended them)",
        added_in="8f0f9de",
        deprecate_after="0d58100",
        old_branch=(*_BEFORE_CONCURRENT, *_concurrent("8967e4f", "2dab00f", "7aed27b", "0d58100")),
        new_branch=("*/orchestrator-handed-over-2",),
    ),
    Patch(
        ANSWER_TAKEN,
        "an accepted answer the translator cannot write resumes its agent with the answer as "
        "guidance instead of failing the run",
        added_in="95f6728",
        deprecate_after="8f0f9de",
        new_branch=("*/interrupt-untranslated-1",),
    ),
    Patch(
        EVENT_CHOICES_JOIN,
        "a supervisor's choices join the asking agent's own instead of replacing them",
        added_in="f10337d",
        deprecate_after="95f6728",
        old_branch=tuple(
            f"{v}/interrupt-1-1"
            for v in ("8967e4f", "2dab00f", "7aed27b", "0d58100", "8f0f9de", "95f6728")
        ),
        new_branch=("*/interrupt-event-on-a-dispatch-node-1",),
    ),
    Patch(
        EVENTS_ON_DISPATCH_NODES,
        "an event on a dispatch node cancels its running agents, which run again with the "
        "message (runs recorded before let them finish first)",
        added_in="f10337d",
        deprecate_after="95f6728",
        new_branch=("*/orchestrator-event-on-a-dispatch-node-1",),
    ),
    Patch(
        ANSWERED_ALONE,
        "each agent's question is asked at once and each answer re-runs its agents at once (runs "
        "recorded before asked one question at a time and resumed the node after the fan-out)",
        added_in="f9add2e",
        deprecate_after="f10337d",
        old_branch=(
            *_BEFORE_CONCURRENT,
            *_concurrent("8967e4f", "2dab00f", "7aed27b", "0d58100", "8f0f9de", "95f6728"),
            *_concurrent("f10337d"),
        ),
        new_branch=("*/orchestrator-handed-over-together-1",),
    ),
    Patch(
        MODEL_FAILURES_ASK,
        "an endpoint down or hanging past its attempts, or an oversized reply, asks a person at "
        "the node (runs recorded before failed there)",
        added_in="95f6728",
        deprecate_after="8f0f9de",
        new_branch=("*/orchestrator-model-failure-1",),
    ),
    Patch(
        OWN_ATTRIBUTES,
        "a run started without ``AgentPhase`` sets it when its namespace has the project's "
        "search attributes (runs recorded before left it unset)",
        added_in="f10337d",
        deprecate_after="95f6728",
        old_branch=(
            *_BEFORE_CONCURRENT,
            *_concurrent("8967e4f", "2dab00f", "7aed27b", "0d58100", "8f0f9de", "95f6728"),
        ),
        new_branch=("*/orchestrator-event-on-a-dispatch-node-1",),
    ),
    Patch(
        WORKTREE_LIMIT_ASKS,
        "a ticket's worktree step that fails with a rescuable failure (a full disk) asks a "
        "person at the node (runs recorded before failed the run)",
        added_in="f10337d",
        deprecate_after="95f6728",
    ),
    Patch(
        ARRIVE_TOGETHER,
        "an agent that asks while others of its fan-out run waits for the replies arriving with "
        "its own (``waits_again``); runs recorded before asked at once, so agents whose replies "
        "came a workflow task apart could be asked as two questions",
        added_in="e73f637",
        deprecate_after="4992237",
        old_branch=(
            *(
                f"{v}/orchestrator-handed-over-together-2"
                for v in ("f9add2e", "103e3d0", "4992237")
            ),
            "103e3d0/orchestrator-dispatch-question-waiting",
            "4992237/orchestrator-concurrent-questions-1",
            "f9add2e/orchestrator-concurrent-questions-1",
        ),
        new_branch=_concurrent(
            "30fc658", "3a6ae0f", "d826efa", "fb231a1", "91626d7", "a7c9e0d", "e73f637"
        ),
    ),
    Patch(
        REROUTE_TAKEN,
        "an accepted answer that continues at another agent, which the translator cannot write, "
        "still continues there (the agent's last request, the answer as guidance); runs recorded "
        "before failed the question",
        added_in="e73f637",
        deprecate_after="4992237",
        new_branch=("*/interrupt-stuck-ways-out-2-1",),
    ),
    Patch(
        STUCK_WAYS_OUT,
        "a stuck agent's question offers stopping, continuing at its next agent and answering in "
        "its place as options, and the answer is acted on (``workflows/ways_out.py``)",
        added_in="e73f637",
        deprecate_after="4992237",
        old_branch=tuple(
            f"{v}/orchestrator-model-failure-1"
            for v in ("95f6728", "f10337d", "f9add2e", "103e3d0", "4992237")
        ),
        new_branch=("*/orchestrator-stuck-ways-out-1",),
    ),
    Patch(
        TEAM_CONTEXTS,
        "a declared team's collector's result becomes a curated context (a CONTEXT entry) that "
        "every later request of the team carries in its ``contexts``; runs recorded before "
        "curated the software team's collectors only",
        added_in="91626d7",
        deprecate_after="a7c9e0d",
        old_branch=tuple(
            f"{v}/orchestrator-declared-team-1" for v in ("4992237", "e73f637", "a7c9e0d")
        ),
        new_branch=tuple(
            f"{v}/orchestrator-declared-team-1"
            for v in ("91626d7", "fb231a1", "d826efa", "3a6ae0f", "30fc658")
        ),
    ),
    Patch(
        GIT_FILLED,
        "a declared code-writing agent's ``filled`` result fields named in ``FILLED_FROM_GIT`` "
        "(files changed, commit, branch, diff stat, test outcome) are filled from git and its "
        "sandboxed test run; runs recorded before left them at their defaults",
        added_in="fb231a1",
        deprecate_after="91626d7",
    ),
    Patch(
        REVIEW_FINDINGS,
        "a declared reviewer's findings that name files (records with ``path``, lines and a "
        "filled ``valid``) are checked against the diffs it read, as the software review's are; "
        "runs recorded before left ``valid`` at its default",
        added_in="fb231a1",
        deprecate_after="91626d7",
    ),
    Patch(
        ANSWER_RULES,
        "a question's start reads who may answer it from the worker's answer rules (an "
        "activity) and hands them to its InterruptWorkflow; runs recorded before let anybody "
        "answer",
        added_in="fb231a1",
        deprecate_after="91626d7",
        old_branch=tuple(
            f"{v}/orchestrator-dispatch-question-waiting"
            for v in (
                *("83c9b6c", "8967e4f", "2dab00f", "7aed27b", "0d58100", "8f0f9de", "95f6728"),
                *("f10337d", "f9add2e", "103e3d0", "4992237", "e73f637", "a7c9e0d", "91626d7"),
            )
        ),
        new_branch=(
            *(
                f"{v}/orchestrator-concurrent-questions-1"
                for v in ("fb231a1", "d826efa", "3a6ae0f", "30fc658")
            ),
            *(
                f"{v}/orchestrator-dispatch-question-waiting"
                for v in ("fb231a1", "d826efa", "3a6ae0f", "30fc658")
            ),
        ),
    ),
    Patch(
        CLAIMS_REFUSED,
        "a resolve signal whose answer claims to be the workflow's own (resolvedBy other than "
        "HUMAN, a reviewing model's call) is ignored with a WARNING event; runs recorded before "
        "took it as a person's answer (no recorded history sends one)",
        added_in="d826efa",
        deprecate_after="fb231a1",
    ),
    Patch(
        NOTICES_LAST,
        "a notice's delivery runs at the lowest task-queue priority, behind the agent steps of "
        "working runs; runs recorded before scheduled it at the default priority",
        added_in="d826efa",
        deprecate_after="fb231a1",
    ),
    Patch(
        SPREAD_REMINDERS,
        "a question's reminders are due up to a tenth of their time later, by the question's "
        "id, so questions raised together are not reminded at once; runs recorded before were "
        "reminded at the plan's exact fractions",
        added_in="d826efa",
        deprecate_after="fb231a1",
    ),
    Patch(
        FORK_LINKS_CHECKED,
        "a fork's first run has a worker check its link (the state it was started with rebuilt "
        "from the parent's history at the point) before its first step, and fails at once when "
        "it does not hold; forks recorded before took the state they were given",
        added_in="3a6ae0f",
        deprecate_after="d826efa",
        old_branch=("d826efa/orchestrator-fork-1", "d826efa/orchestrator-fork-of-fork-1"),
        new_branch=(
            "3a6ae0f/orchestrator-fork-1",
            "3a6ae0f/orchestrator-fork-of-fork-1",
            "30fc658/orchestrator-fork-1",
            "30fc658/orchestrator-fork-of-fork-1",
        ),
    ),
)
"""Every patch id, oldest issue first."""

BY_ID: dict[str, Patch] = {p.id: p for p in PATCHES}
