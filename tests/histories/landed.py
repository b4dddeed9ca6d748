"""Landed versions: their code, run as a real worker process, and their recorded histories.

Every version that landed on ``main`` could have left runs waiting when the next one was
deployed. ``LANDED`` names them; ``tests/histories/<version>/`` holds histories recorded by that
version's own code (``python -m tests.histories.record_landed <version>``), and the deploy test
runs a landed version's worker until a question waits, then hands the run to the current code.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError

HISTORIES = Path(__file__).parent
REPO = HISTORIES.parent.parent

LANDED: dict[str, str] = {
    "83c9b6c": "stop 6: the agent graph, the unified interrupt, supervisor events",
    "8967e4f": "stop 15: hardening, bounded state, typed questions, tools, notices",
    "2dab00f": "clean exits of client scripts; step budgets and context refusals ask a person; "
    "a question waits for no slow sibling",
    "7aed27b": "shadow answers and earned autonomy; tool-using steps exported; the web inbox; "
    "PostgreSQL memory",
    "0d58100": "named resolve and interrupt_request_event signals the Temporal UI lists; "
    "described updates and queries; one-line update rejections",
    "8f0f9de": "a question outlives its run's long history (handed back, asked again under "
    "its id); model text escaped in the UI's markdown; outputs, requests and the carried "
    "state cut to fit Temporal's payload limits; acks name where a chosen option leads",
    "95f6728": "bounded schemas of one variant per route; a model's routes round again and its "
    "questions bounded (LLM_MAX_PHASE_ROUNDS, LLM_MAX_QUESTIONS); model failures and "
    "untranslatable answers ask or resume instead of failing; unique ticket branches",
    "f10337d": "runs started by any client set their own search attributes; a person may stop "
    "a run or send it elsewhere from any question; events' choices join the agent's own; an "
    "event on a dispatch node cancels its running agents; a full worktree disk asks; a later "
    "stuck question offers another way out",
    "f9add2e": "a fan-out's questions are independent in time: a later agent is asked at once, "
    "each answer (or each agent's part of a combined one) re-runs its agents at once, an answer "
    "sent elsewhere closes the node's other questions, questions are handed over together; a "
    "stuck agent cut off at the token limit may get twice the tokens",
    "103e3d0": "a person's name on every answer (answeredBy); the Temporal UI lists named "
    "handlers only; a wrong option is refused in the question's words",
    "4992237": "teams declared as data: a run pins its team (name, content hash, the team "
    "itself) at its start and its agent calls name it by hash; declared teams' questions and "
    "results travel as TeamInterruptRequest and TeamAgentResult; a team may extend the "
    "software team",
    "e73f637": "every answer reaches its agent as given: stuck questions offer ways out (stop, "
    "continue at the next agent, answer in its place) and are acted on; an answer that continues "
    "elsewhere is taken untranslated; a fan-out's questions arriving together are one question; "
    "each part of a joined question says who asked what; model calls kept across server outages",
    "a7c9e0d": "the translation and review calls share one kept, heartbeating call; a stuck "
    "question's two builders share their turned routes and closing fields",
    "91626d7": "the software team is built from its own team file; declared teams get the "
    "phase-round guard, curated contexts for their collectors and code-writing agents",
    "fb231a1": "every team's shapes are declared in its file; declared code-writing agents' "
    "results filled from git and reviewers' findings checked; a question's answer rules read "
    "at its start; answers from Slack, email and signed links",
    "d826efa": "runs forked from any past decision; every payload sealed when encryption is on; "
    "a signal claiming the workflow's own answer ignored; notices behind agent steps and "
    "reminders spread",
    "3a6ae0f": "a fork's link checked by a worker before its first step; two workflow tasks at "
    "once per worker; one answer check for every door",
    "30fc658": "questions carry their inbox card in their memo; a ten-second sticky wait; "
    "prompts open with their team's shared text",
}
"""Every version that landed on main, oldest first, with what it brought."""

GOAL = "add rate limiting to the gateway"
QUESTIONS = {"planning-question": "PLANNING_ORCHESTRATOR", "dispatch-question": "TICKET_AGENT"}
"""The waiting questions recorded and handed over: name -> the agent the offline model makes ask
(a dispatched agent's question is raised by its dispatch node)."""


def version_dirs() -> list[Path]:
    """The folders of recorded histories, one per version."""
    return sorted(p for p in HISTORIES.iterdir() if p.is_dir() and not p.name.startswith("_"))


def has_commit(version: str) -> bool:
    """Whether this clone holds ``version`` (a shallow clone may not)."""
    found = subprocess.run(
        ["git", "-C", str(REPO), "cat-file", "-e", f"{version}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return found.returncode == 0


def same_workflow_code(version: str) -> bool:
    """Whether ``version``'s workflow code (``workflows/``, ``models/``) is this tree's: a
    deploy from it to here replays nothing new."""
    diff = subprocess.run(
        ["git", "-C", str(REPO), "diff", "--quiet", version, "--", "workflows", "models"],
        capture_output=True,
        check=False,
    )
    return diff.returncode == 0


@contextmanager
def checkout(version: str) -> Iterator[Path]:
    """The tree of ``version`` in a temporary folder (``git archive``: no worktree state)."""
    with tempfile.TemporaryDirectory(prefix=f"landed-{version}-") as tmp:
        archive = Path(tmp) / "tree.tar"
        with archive.open("wb") as out:
            subprocess.run(
                ["git", "-C", str(REPO), "archive", "--format=tar", version],
                stdout=out,
                check=True,
            )
        tree = Path(tmp) / version
        tree.mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter="data")
        yield tree


def tree_imports(tree: Path) -> dict[str, str]:
    """The environment under which ``tree``'s scripts import their own code from ``tree``.
    Versions up to the package-dir mapping link their folders under ``agent_interrupts/`` or
    import them by their folders' names (the script's folder comes first: nothing to add); a
    later tree maps them through its build
    configuration, so the tree gets the same view a strict editable install gives, a folder of
    links beside it, first on PYTHONPATH (before this checkout's editable install)."""
    if not (tree / "package").is_dir():  # links under agent_interrupts/, or no package yet
        return {}
    view = tree.parent / f"{tree.name}-imports"
    package = view / "agent_interrupts"
    package.mkdir(parents=True, exist_ok=True)
    for root in (tree / "package").iterdir():
        (package / root.name).unlink(missing_ok=True)
        (package / root.name).symlink_to(root)
    for folder in ("models", "workflows", "activities", "app", "prompts", "teams"):
        (package / folder).unlink(missing_ok=True)
        (package / folder).symlink_to(tree / folder, target_is_directory=True)
    return {"PYTHONPATH": str(view)}


@contextmanager
def worker_process(
    tree: Path, address: str, task_queue: str, scenario: str, log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """``python worker.py`` of a landed version's tree, with the offline model, until the block
    ends (then SIGKILL: the worker dies as in a crash or a hurried deploy). The tree's folder is
    the script's folder, so its own ``models``/``workflows``/... are imported, not the current
    ones (``tree_imports``)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TEMPORAL_", "OPENAI_", "AGENT", "OFFLINE_"))
    }
    env |= {
        "TEMPORAL_ADDRESS": address,
        "TEMPORAL_NAMESPACE": "default",
        "TEMPORAL_TASK_QUEUE": task_queue,
        "OFFLINE_SCENARIO": scenario,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env |= tree_imports(tree)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "worker.py"], cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            yield process
        finally:
            process.kill()
            process.wait(timeout=30)


async def wait_for_question(
    client: Client, interrupt_id: str, timeout: float = 90
) -> dict[str, Any]:
    """The ``status`` of an interrupt once it waits for a person, read by name (any version)."""
    async with asyncio.timeout(timeout):
        while True:
            try:
                status = await client.get_workflow_handle(interrupt_id).query("status")
            except RPCError:  # not started yet, or no worker has answered the query yet
                status = None
            if isinstance(status, dict) and status.get("state") == "WAITING":
                return status
            await asyncio.sleep(0.2)
