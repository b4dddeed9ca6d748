"""One-line errors that name the setting."""

from __future__ import annotations

from pathlib import Path

from tests.cli.support import agents, free_port, stack_env


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_a_server_that_is_gone_is_one_line(tmp_path: Path) -> None:
    env = stack_env(tmp_path, free_port(), free_port())
    env["TEMPORAL_ADDRESS"] = f"127.0.0.1:{free_port()}"
    done = agents(env, "status", "some-run")
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert env["TEMPORAL_ADDRESS"] in line and "TEMPORAL_ADDRESS" in line.split(":", 2)[-1]


def test_an_api_key_against_a_plain_server_is_one_line_without_the_key(
    stack: dict[str, str], tmp_path: Path
) -> None:
    env = stack_env(tmp_path, free_port(), free_port())  # not the stack's own state directory
    env["TEMPORAL_ADDRESS"] = f"127.0.0.1:{stack['AGENTS_PORT']}"
    env["TEMPORAL_API_KEY"] = "sk-distinctive-secret-7731"
    done = agents(env, "list")
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert env["TEMPORAL_ADDRESS"] in line and "TEMPORAL_API_KEY" in line
    assert "sk-distinctive-secret-7731" not in done.stdout + done.stderr


def test_scenario_against_a_cluster_needs_an_in_process_worker(tmp_path: Path) -> None:
    env = stack_env(tmp_path, free_port(), free_port())
    env["TEMPORAL_ADDRESS"] = f"127.0.0.1:{free_port()}"
    done = agents(env, "run", "add caching", "--scenario", "interrupt=REVIEW_AGENT")
    assert done.returncode == 2
    assert "--worker" in _one_line(done.stderr)


def test_empty_goal_and_bad_scenario_explain_what_to_do(tmp_path: Path) -> None:
    env = stack_env(tmp_path, free_port(), free_port())
    empty = agents(env, "run", "")
    assert empty.returncode == 2 and "goal is empty" in _one_line(empty.stderr)
    bad = agents(env, "run", "x", "--scenario", "interrupt=NOPE")
    assert bad.returncode == 2 and "NOPE" in _one_line(bad.stderr)
    assert not (tmp_path / "stack.json").exists(), "nothing was started for a bad command"
