"""Runs do not belong to the terminal: Ctrl-C stops following, the
inbox lists the waiting question, ``follow`` re-attaches, an answer given elsewhere closes the
prompt, and ``run --id`` of an existing run offers to follow it. Through pseudo-terminals."""

from __future__ import annotations

import json
import time
import uuid

from tests.cli.support import WAIT_CEILING, Terminal, agents

SCENARIO = "interrupt=REVIEW_AGENT"


def _waiting_ids(env: dict[str, str]) -> list[str]:
    listed = agents(env, "list", "--waiting", "--json")
    assert listed.returncode == 0, listed.stderr
    return [row["interruptId"] for row in json.loads(listed.stdout)]


def _until_listed(env: dict[str, str], interrupt_id: str) -> list[dict[str, object]]:
    """Visibility is eventually consistent: ask again until the row is there."""
    deadline = time.monotonic() + WAIT_CEILING
    while True:
        listed = agents(env, "list", "--waiting", "--json")
        rows = [r for r in json.loads(listed.stdout) if r["interruptId"] == interrupt_id]
        if rows or time.monotonic() > deadline:
            return rows
        time.sleep(0.5)


def test_ctrl_c_list_waiting_resolve_elsewhere_and_follow(stack: dict[str, str]) -> None:
    run_id = f"cli-{uuid.uuid4().hex[:8]}"
    interrupt_id = f"{run_id}-interrupt-1"
    run = Terminal(stack, "run", "add caching", "--id", run_id, "--scenario", SCENARIO)
    try:
        run.expect("Choose A/B/CUSTOM:")
        assert f"agents resolve {interrupt_id}" in run.seen
        run.interrupt()
        run.expect(f"Follow it again: agents follow {run_id}")
        assert run.finish() == 130
    finally:
        run.close()
    assert "Traceback" not in run.seen and "never retrieved" not in run.seen

    rows = _until_listed(stack, interrupt_id)
    assert rows, f"{interrupt_id} is not in the inbox"
    assert rows[0]["origin"] == "REVIEW_AGENT"
    assert "Two reasonable approaches" in str(rows[0]["question"])
    assert rows[0]["deadline"], "the default timeout gives a deadline"

    follower = Terminal(stack, "follow", run_id)
    try:
        follower.expect("Choose A/B/CUSTOM:")
        answered = agents(
            stack,
            "resolve",
            interrupt_id,
            "--choice",
            "approach=B",
            "--confirm",
            "add-tests=yes",
            "--as",
            "ada",
        )
        assert answered.returncode == 0, answered.stderr
        follower.expect("The question was answered elsewhere, by ada via cli:")
        follower.expect(f"Final result of {run_id}")
        assert follower.finish() == 0
    finally:
        follower.close()
    assert "-> finalResult" not in follower.seen and "→ finalResult" in follower.seen
    assert interrupt_id not in _waiting_ids(stack)

    runs = agents(stack, "list", "--json")
    row = next(r for r in json.loads(runs.stdout) if r["workflowId"] == run_id)
    assert (row["state"], row["phase"], row["goal"]) == ("COMPLETED", "COMPLETION", "add caching")


def test_person_answers_in_the_terminal_then_run_id_again_offers_to_follow(
    stack: dict[str, str],
) -> None:
    run_id = f"cli-{uuid.uuid4().hex[:8]}"
    run = Terminal(stack, "run", "add caching", "--id", run_id, "--scenario", SCENARIO)
    try:
        run.expect("Choose A/B/CUSTOM:")
        assert "REVIEW_AGENT needs a decision" in run.seen
        assert "## " not in run.seen and "**" not in run.seen, "markdown is rendered, not raw"
        run.send("Z")  # not an option: asked again
        run.expect("please answer one of A/B/CUSTOM")
        run.send("")  # Enter: the recommended option
        run.expect("Add regression tests for the changed behaviour? [Y/n]")
        run.send("n")
        run.expect("Anything else the agent should know")
        run.send("keep it small")
        run.expect("Answer accepted: REVIEW_AGENT resumes")
        run.expect(f"Final result of {run_id}")
        assert run.finish() == 0
    finally:
        run.close()

    again = Terminal(stack, "run", "something else", "--id", run_id)
    try:
        again.expect(f"a run with id {run_id} already exists (COMPLETED)")
        again.expect("Follow it instead? [Y/n]")
        again.send("")
        again.expect(f"Final result of {run_id}")
        assert again.finish() == 0
    finally:
        again.close()
    assert "Traceback" not in again.seen and "WorkflowAlreadyStartedError" not in again.seen
