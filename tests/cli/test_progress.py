"""Nobody waits in silence: in a real terminal (a pty), against a Temporal server with no worker,
``agents run`` and ``agents follow`` say so within 5 s, naming the task queue and the command that
starts a worker; once a worker runs, a long agent call shows the time, the running agent and the
endpoint's retries as they happen, and a supervisor's accepted event shows up as an event line.
Workers are real processes; the endpoint is the real OpenAI-compatible test server."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.workflows.visibility import dev_server_args
from tests.cli.support import ROOT, WAIT_CEILING, Terminal, agents, free_port, stack_env
from tests.support.openai_server import ScriptedOpenAIServer

NO_WORKER_WITHIN = 5.0
"""The longest a follower may wait before it says that no worker polls the run's queue."""
LIVE_TICK = 2.0
"""The longest a terminal may go without new output while a follower waits."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Temporal dev server of our own, with no worker: its address."""
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                temporal_cli(),
                "server",
                "start-dev",
                "--headless",
                "--ip",
                "127.0.0.1",
                "--port",
                str(port),
                *dev_server_args(),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + WAIT_CEILING
        env = {**stack_env(log.parent, free_port(), free_port()), "TEMPORAL_ADDRESS": address}
        while agents(env, "list", timeout=60).returncode != 0:
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.5)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=30)


def _env(tmp_path: Path, address: str, **extra: str) -> dict[str, str]:
    env = stack_env(tmp_path, free_port(), free_port())
    return {**env, "TEMPORAL_ADDRESS": address, "TEMPORAL_TASK_QUEUE": _queue(), **extra}


def _queue() -> str:
    return f"progress-{uuid.uuid4().hex[:8]}"


def _worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "worker.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )


def _stop(worker: subprocess.Popen[bytes]) -> None:
    worker.kill()
    worker.wait(timeout=30)


def _gaps(terminal: Terminal, seconds: float) -> float:
    """Read the terminal for ``seconds``; the longest time it printed nothing."""
    longest, last = 0.0, time.monotonic()
    deadline = last + seconds
    while (now := time.monotonic()) < deadline:
        before = len(terminal.seen)
        _read(terminal, 0.1)
        if len(terminal.seen) != before:
            longest, last = max(longest, now - last), now
    return max(longest, time.monotonic() - last)


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _plain(text: str) -> str:
    return ANSI.sub("", text)


def _expect(terminal: Terminal, needle: str, timeout: float = WAIT_CEILING) -> None:
    """``terminal.expect``, on the text without its colours and cursor moves."""
    deadline = time.monotonic() + timeout
    while needle not in _plain(terminal.seen):
        assert time.monotonic() < deadline, (
            f"no {needle!r} within {timeout}s; got:\n{_plain(terminal.seen)[-3000:]}"
        )
        if not _read(terminal, 0.1) and terminal.process.poll() is not None:
            assert needle in _plain(terminal.seen), f"ended without {needle!r}"


def _read(terminal: Terminal, timeout: float) -> bool:
    ready, _, _ = select.select([terminal.fd], [], [], timeout)
    if not ready:
        return False
    try:
        chunk = os.read(terminal.fd, 4096)
    except OSError:
        return False
    terminal.seen += chunk.decode(errors="replace")
    return bool(chunk)


def test_a_run_without_a_worker_says_so_then_goes_on_when_one_starts(
    server: str, tmp_path: Path
) -> None:
    env = _env(tmp_path, server)
    queue = env["TEMPORAL_TASK_QUEUE"]
    run_id = f"noworker-{uuid.uuid4().hex[:8]}"
    run = Terminal(env, "run", "add caching", "--id", run_id, "--no-input")
    worker = None
    try:
        _expect(run, f"Started {run_id}")
        started = time.monotonic()
        _expect(run, f"no worker serves task queue {queue!r}", timeout=NO_WORKER_WITHIN + 5)
        took = time.monotonic() - started
        assert took < NO_WORKER_WITHIN, f"said after {took:.1f}s"
        _expect(run, "python worker.py")
        assert "python -m agent_interrupts.worker" in _plain(run.seen)
        assert _gaps(run, 5.0) <= LIVE_TICK, "the live line keeps the terminal busy"

        follower = Terminal(env, "follow", run_id, "--no-input")
        try:
            _expect(follower, run_id)  # its own start-up (an interpreter) is done
            started = time.monotonic()
            _expect(
                follower, f"no worker serves task queue {queue!r}", timeout=NO_WORKER_WITHIN + 5
            )
            assert time.monotonic() - started < NO_WORKER_WITHIN
            follower.interrupt()
            _expect(follower, f"Follow it again: agents follow {run_id}")
        finally:
            follower.close()

        worker = _worker(env, tmp_path / "worker.log")
        _expect(run, f"Final result of {run_id}")
        assert run.finish() == 0
    finally:
        run.close()
        if worker is not None:
            _stop(worker)
    assert "Traceback" not in run.seen


def test_a_long_call_shows_its_agent_time_and_retries_and_an_accepted_event(
    server: str, tmp_path: Path
) -> None:
    with ScriptedOpenAIServer(["503"]) as endpoint:
        endpoint.hold(2)  # the second request (the call's attempt 2) waits for release
        model = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": endpoint.base_url}
        env = _env(tmp_path, server, **model, AGENT_MODEL="m")
        worker = _worker(env, tmp_path / "worker.log")
        run_id = f"progress-{uuid.uuid4().hex[:8]}"
        run = Terminal(env, "run", "add caching", "--id", run_id, "--no-input")
        try:
            _expect(run, f"Started {run_id}")
            assert endpoint.holding.wait(WAIT_CEILING), "the retry reached the endpoint"
            _expect(run, "attempt 2 of 5: ")
            _expect(run, "503")
            shown = run.seen
            _expect(run, "running: ORCHESTRATOR")
            assert _gaps(run, 4.0) <= LIVE_TICK
            clocks = re.findall(r"running: ORCHESTRATOR \S+ (\d+)s", _plain(run.seen[len(shown) :]))
            assert len(set(clocks)) >= 2, "the call's time goes on"

            sent = agents(
                env, "interrupt", run_id, "--source", "ORCHESTRATOR", "--reason", "check scope"
            )
            assert sent.returncode == 0, sent.stderr
            _expect(run, "event INFO: InterruptRequestEvent")
            _expect(run, "accepted at")
            run.interrupt()
            _expect(run, f"Follow it again: agents follow {run_id}")
        finally:
            endpoint.release_hold()
            run.close()
            _stop(worker)
    assert "Traceback" not in run.seen


def test_up_refuses_a_base_url_without_a_key_and_warns_of_an_endpoint_that_does_not_answer(
    fresh_env: dict[str, str],
) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    refused = agents({**fresh_env, "OPENAI_BASE_URL": nowhere}, "up")
    assert refused.returncode == 1
    assert "OPENAI_BASE_URL is" in refused.stderr and "OPENAI_API_KEY is unset" in refused.stderr
    assert agents(fresh_env, "down").returncode == 0

    keyed = {**fresh_env, "OPENAI_BASE_URL": nowhere, "OPENAI_API_KEY": "local"}
    up = agents(keyed, "up")
    assert up.returncode == 0, up.stderr
    warning = f"WARNING: the model endpoint OPENAI_BASE_URL={nowhere} does not answer"
    assert warning in up.stderr, up.stderr
    status = agents(fresh_env, "up", "--status")
    assert f"model gpt-4o-mini at {nowhere}" in status.stdout, status.stdout
    assert warning in status.stderr, status.stderr
