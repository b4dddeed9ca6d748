"""``agents up`` / ``down``: idempotent, one stack per state directory, clear port
conflicts."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.config import TemporalSettings
from agent_interrupts.app.stack import LocalStack, no_worker
from tests.cli.support import CLIENT, ROOT, agents, free_port, stack_env


def _stack_file(env: dict[str, str]) -> dict[str, object]:
    return dict(json.loads((Path(env["AGENTS_STATE_DIR"]) / "stack.json").read_text()))


def test_two_ups_at_once_start_one_stack_and_down_stops_it(fresh_env: dict[str, str]) -> None:
    fresh_env["INTERRUPT_WEBHOOK_URL"] = f"http://127.0.0.1:{free_port()}/hook"
    both = [
        subprocess.Popen(
            [sys.executable, CLIENT, "up"],
            env=fresh_env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=180) for p in both]
    assert [p.returncode for p in both] == [0, 0], outputs
    said = sorted(out.splitlines()[0] for out, _ in outputs)
    assert said == ["Started the local stack.", "The local stack runs."], "the lock serialised them"
    recorded = _stack_file(fresh_env)
    server_pid = recorded["server_pid"]
    assert isinstance(server_pid, int)
    os.kill(server_pid, 0)
    assert (Path(fresh_env["AGENTS_STATE_DIR"]) / "temporal-server.log").exists()

    again = agents(fresh_env, "up")
    assert again.returncode == 0 and "The local stack runs." in again.stdout
    assert _stack_file(fresh_env)["server_pid"] == server_pid, "up is idempotent"
    status = agents(fresh_env, "up", "--status")
    assert f"127.0.0.1:{fresh_env['AGENTS_PORT']} (pid {server_pid})" in status.stdout
    assert "worker for queue 'agents'" in status.stdout and "running" in status.stdout
    _one_address_everywhere(fresh_env)
    _scenario_workers_share_the_stacks_settings(fresh_env)
    _a_restarted_main_worker_keeps_them(fresh_env)
    _up_after_down_brings_back_the_scenario_workers(fresh_env)

    down = agents(fresh_env, "down")
    assert down.returncode == 0 and "Stopped the local stack" in down.stdout
    assert not (Path(fresh_env["AGENTS_STATE_DIR"]) / "stack.json").exists()
    again_down = agents(fresh_env, "down")
    assert again_down.returncode == 0 and "No local stack was running." in again_down.stdout
    assert "no local stack runs" in agents(fresh_env, "up", "--status").stdout


def test_a_port_held_by_another_program_is_named(fresh_env: dict[str, str]) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", int(fresh_env["AGENTS_PORT"])))
        other.listen()
        done = agents(fresh_env, "up")
    assert done.returncode == 1
    assert f"port {fresh_env['AGENTS_PORT']} is in use by another program" in done.stderr
    assert "AGENTS_PORT" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def _one_address_everywhere(env: dict[str, str]) -> None:
    """``up`` and ``env`` name the stack's address; ``python worker.py`` with
    no address joins it; a command aimed at localhost:7233 says where the stack is."""
    address = f"127.0.0.1:{env['AGENTS_PORT']}"
    exports = f"export TEMPORAL_ADDRESS={address} TEMPORAL_NAMESPACE=default"
    assert exports in agents(env, "up").stdout
    emitted = agents(env, "env")
    assert emitted.returncode == 0, emitted.stderr
    assert emitted.stdout.splitlines() == [
        f"export TEMPORAL_ADDRESS={address}",
        "export TEMPORAL_NAMESPACE=default",
    ]
    worker = subprocess.Popen(
        [sys.executable, str(ROOT / "worker.py")],
        env={**env, "TEMPORAL_TASK_QUEUE": "joined"},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        line = worker.stdout.readline()
    finally:
        worker.terminate()
        worker.communicate(timeout=30)
    assert line.startswith(f"worker: {address} namespace=default queue=joined"), line
    aimed = agents({**env, "TEMPORAL_ADDRESS": "localhost:7233"}, "list", timeout=60)
    assert f"while the local stack of {env['AGENTS_STATE_DIR']}" in aimed.stderr
    assert f"runs at {address}" in aimed.stderr and 'eval "$(agents env)"' in aimed.stderr


def _scenario_workers_share_the_stacks_settings(env: dict[str, str]) -> None:
    """A scenario worker started from a shell without the webhook variables
    gets the stack's; ``up --status`` shows each worker's model and notifications."""
    shell = {k: v for k, v in env.items() if k != "INTERRUPT_WEBHOOK_URL"}
    scenario = ("--scenario", "interrupt=REVIEW_AGENT")
    run = agents(shell, "run", "x", "--id", "kept", *scenario, "--stop-at-question")
    assert run.returncode == 0, run.stderr
    assert "notifications off" not in run.stderr
    status = agents(shell, "up", "--status").stdout
    assert "'agents': pid" in status and "'agents/scenario/interrupt=REVIEW_AGENT': pid" in status
    assert status.count("offline model, notifications: webhook") == 2, status
    kept = Path(env["AGENTS_STATE_DIR"]) / "worker-settings.json"
    assert kept.stat().st_mode & 0o077 == 0, "the kept settings hold secrets: the owner's only"


def _a_restarted_main_worker_keeps_them(env: dict[str, str]) -> None:
    """A command from a shell without the webhook variable restarts a dead main
    worker with the stack's kept settings, not the shell's."""
    workers = _stack_file(env)["workers"]
    assert isinstance(workers, dict)
    os.kill(workers["agents"], signal.SIGKILL)
    _wait_gone(workers["agents"])
    shell = {k: v for k, v in env.items() if k != "INTERRUPT_WEBHOOK_URL"}
    listed = agents(shell, "list")
    assert listed.returncode == 0, listed.stderr
    recorded = _stack_file(env)  # what up --status shows
    assert recorded["workers"] != workers, "the command restarted it"
    assert recorded["settings"] == dict.fromkeys(workers, "offline model, notifications: webhook")
    kept = json.loads((Path(env["AGENTS_STATE_DIR"]) / "worker-settings.json").read_text())
    assert kept == {"INTERRUPT_WEBHOOK_URL": env["INTERRUPT_WEBHOOK_URL"]}


def _up_after_down_brings_back_the_scenario_workers(env: dict[str, str]) -> None:
    """After ``down`` and ``up`` (docs/operators.md: runs go on at the next
    ``agents up``), the question of a ``--scenario`` run has its worker again and takes an
    answer. A scenario whose worker cannot start (a name this version does not know) is a
    warning naming it: the stack and the other runs go on."""
    bogus = "agents/scenario/no-such-scenario"
    address = f"127.0.0.1:{env['AGENTS_PORT']}"
    start = ["workflow", "start", "--address", address, "--type", "OrchestratorWorkflow"]
    run = ["--task-queue", bogus, "--workflow-id", "bogus", "--input", '{"goal": "x"}']
    started = subprocess.run(
        [str(temporal_cli()), *start, *run],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 0, started.stderr
    assert agents(env, "down").returncode == 0
    up = agents(env, "up")
    assert up.returncode == 0, up.stderr
    assert "'agents/scenario/interrupt=REVIEW_AGENT': pid" in up.stdout, up.stdout
    assert f"warning: the worker for {bogus!r} exited at start" in up.stderr, up.stderr
    assert "unknown OFFLINE_SCENARIO part 'no-such-scenario'" in up.stderr
    assert "once fixed: agents up (local stack" in up.stderr
    assert bogus not in str(_stack_file(env)["workers"]), "no dead worker is recorded"
    assert up.stdout.count("offline model, notifications: webhook") == 2, up.stdout
    answer = ("--choice", "approach=B", "--confirm", "add-tests=yes")
    done = agents(env, "resolve", "kept-interrupt-1", *answer)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("accepted:"), done.stdout


def _wait_gone(pid: int) -> None:
    """Until ``pid`` has exited (gone, or a zombie nobody reaped yet)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs")


def test_a_worker_without_the_stacks_notifications_is_a_warning(tmp_path: Path) -> None:
    env = stack_env(tmp_path, free_port(), free_port())
    queue = "agents/scenario/interrupt=REVIEW_AGENT"
    recorded = {"address": "127.0.0.1:1", "ui_url": "", "namespace": "default"}
    recorded |= {"server_pid": os.getpid(), "channels": {"agents": ["webhook"], queue: []}}
    (tmp_path / "stack.json").write_text(json.dumps(recorded))
    stack = LocalStack(TemporalSettings.from_env(env))
    warning = stack.notifications_gap(queue)
    assert warning and f"queue {queue!r} has notifications off" in warning and "webhook" in warning
    assert "agents down, then agents up from a shell that sets INTERRUPT_WEBHOOK_URL" in warning
    assert stack.notifications_gap("agents") is None
    assert stack.notifications_gap("agents", ["webhook"]) is None
    in_process = stack.notifications_gap("agents", [])
    assert in_process is not None, "an in-process worker without them"
    assert "set INTERRUPT_WEBHOOK_URL in this shell" in in_process


def test_a_queue_without_a_worker_is_named_with_the_command_that_serves_it() -> None:
    """The error names the task queue, and for a scenario's queue the
    worker that serves it (a real no-worker call waits out Temporal's 30 s query timeout, so
    the sentence is checked here; the down/up test shows the stack serves it)."""
    queue = "agents/scenario/interrupt=REVIEW_AGENT;delay=PLANNER:2"
    line = no_worker(queue, "run-1", "Timeout expired", "agents")
    assert f"no worker serves task queue {queue!r} of run-1 (Timeout expired)" in line
    assert "agents up" in line
    assert f"TEMPORAL_TASK_QUEUE='{queue}' OFFLINE_SCENARIO='{queue[16:]}' python worker.py" in line
    assert "agents up (local stack) or python worker.py" in no_worker("agents", "r", "x", "agents")
    assert "TEMPORAL_TASK_QUEUE=other python worker.py" in no_worker("other", "r", "x", "agents")


def test_against_a_configured_server_the_advice_is_a_worker_not_agents_up() -> None:
    """``agents up`` refuses while TEMPORAL_ADDRESS is set: the advice names worker.py."""
    line = no_worker("agents", "run-1", "Timeout expired", "agents", local=False)
    assert "agents up" not in line
    assert line.endswith(
        "start one: python worker.py (installed: python -m agent_interrupts.worker) with this "
        "shell's TEMPORAL_ADDRESS, on that server"
    )
    queue = "agents/scenario/interrupt=REVIEW_AGENT"
    scenario = no_worker(queue, "run-1", "x", "agents", local=False)
    assert f"TEMPORAL_TASK_QUEUE={queue} OFFLINE_SCENARIO=interrupt=REVIEW_AGENT" in scenario
    assert "agents up" not in scenario
