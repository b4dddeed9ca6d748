"""``agents status`` as a person reads it, on a real local stack: the picture of a run's graph,
its newest steps under their phases, how it ended; and the smaller things a person meets on the
way (the example answer, ``agents event``, export's and stats' words, scenario workers)."""

from __future__ import annotations

import re

from tests.cli.support import agents


def _node_line(out: str, agent: str) -> str:
    """The picture's row of ``agent`` (the first line naming it as a whole word)."""
    return next(line for line in out.splitlines() if re.search(rf"(^|\s){agent}\s", line))


def test_status_of_a_completed_run_draws_every_node_and_says_it_completed(
    stack: dict[str, str],
) -> None:
    run = agents(stack, "run", "add caching to the gateway", "--id", "status-done", "--no-input")
    assert run.returncode == 0, run.stderr

    status = agents(stack, "status", "status-done")

    assert status.returncode == 0, status.stderr
    out = status.stdout
    assert "✔ done" in _node_line(out, "REVIEW_AGENT")
    assert "2 outputs" in _node_line(out, "N x TICKET_AGENT")
    assert "· not reached" in _node_line(out, "CONTEXT_MANAGER")
    assert re.search(r"the newest 12 of \d+ steps", out)
    steps = out.split("steps (every entry")[1].splitlines()[1:]
    assert "─" in steps[0], "the steps start under their phase's rule"
    assert re.search(r"^COMPLETED: \S", out, re.M)

    stats = agents(stack, "stats", "status-done")
    assert stats.returncode == 0, stats.stderr
    assert "target: at least 80%" in stats.stdout
    assert "BELOW TARGET" not in stats.stdout and "SC-021" in stats.stdout


def test_status_of_a_waiting_run_then_re_routed_and_stopped(stack: dict[str, str]) -> None:
    run_id = "status-waits"
    started = agents(
        stack,
        "run",
        "add caching to the gateway",
        "--id",
        run_id,
        "--scenario",
        "interrupt=REVIEW_AGENT",
        "--no-input",
        "--stop-at-question",
    )
    assert started.returncode == 0, started.stderr

    status = agents(stack, "status", run_id)
    assert status.returncode == 0, status.stderr
    review = _node_line(status.stdout, "REVIEW_AGENT")
    assert "? waiting" in review and f"waits on {run_id}-interrupt-1" in review
    assert "· not reached" in _node_line(status.stdout, "MERGER_AGENT")
    assert "COMPLETED" not in status.stdout and "FAILED" not in status.stdout

    shown = agents(stack, "resolve", f"{run_id}-interrupt-1", "--no-input")
    assert shown.returncode == 0, shown.stderr
    assert "--choice approach=A --confirm add-tests=yes" in shown.stderr
    assert "ID=" not in shown.stderr

    exported = agents(stack, "export", "--out", "/dev/null", "--query", f"WorkflowId = '{run_id}'")
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.startswith("wrote 0 examples (none) from 0 runs to ")
    assert "left out 1 running run the query matched" in exported.stdout

    answered = agents(
        stack,
        "resolve",
        f"{run_id}-interrupt-1",
        "--choice",
        "approach=A",
        "--confirm",
        "add-tests=yes",
        "--continue-at",
        "TICKET_ORCHESTRATOR",
    )
    assert answered.returncode == 0, answered.stderr
    again = agents(stack, "follow", run_id, "--no-input", "--stop-at-question")
    assert again.returncode == 0, again.stderr
    status = agents(stack, "status", run_id)
    assert "re-routed to TICKET_ORCHESTRATOR" in _node_line(status.stdout, "REVIEW_AGENT")
    assert "2 outputs" in _node_line(status.stdout, "TICKET_ORCHESTRATOR")

    stopped = agents(stack, "resolve", f"{run_id}-interrupt-2", "--stop", "not now")
    assert stopped.returncode == 0, stopped.stderr
    status = agents(stack, "status", run_id)
    assert "✘ failed" in _node_line(status.stdout, "REVIEW_AGENT")
    assert re.search(r"^FAILED: .*not now", status.stdout, re.M)

    # a new scenario's worker stops this one's, whose runs are all closed
    other = agents(
        stack, "run", "add caching", "--id", "status-other", "--scenario", "delay=MERGER_AGENT:0"
    )
    assert other.returncode == 0, other.stderr
    workers = agents(stack, "up", "--status").stdout
    assert "scenario/delay=MERGER_AGENT:0" in workers
    assert "scenario/interrupt=REVIEW_AGENT'" not in workers


def test_event_is_the_interrupt_command() -> None:
    from agent_interrupts.app.cli.main import parser_for

    args = parser_for(["event"]).parse_args(
        ["event", "run-1", "--source", "REVIEW_AGENT", "--reason", "look again"]
    )
    assert args.command == "event" and args.source == "REVIEW_AGENT"
    assert args.handler.__name__ == "cmd_interrupt"


def test_up_against_a_configured_server_names_both_settings(
    fresh_env: dict[str, str],
) -> None:
    env = {**fresh_env, "TEMPORAL_ADDRESS": "127.0.0.1:1"}
    refused = agents(env, "up")
    assert refused.returncode == 2
    line = refused.stderr.strip()
    assert "\n" not in line
    assert "unset TEMPORAL_ADDRESS" in line and "AGENTS_PORT" in line
