"""Bench: a worker killed in the middle of an agent call, restarted at once.

A real ``python worker.py`` process runs a run's first agent call against a local
OpenAI-compatible server that holds every request (the call stays in flight); the bench kills the
worker with SIGKILL and starts a new one at once, ``--trials`` times, then lets the model answer.

It prints, per trial, the time from the kill to the model request of the call's next attempt (the
call running again on the new worker; aim: median <= 5 s), and the model calls each death cost
(aim <= 1: the one request the dead worker had in flight, asked again). The run must then
complete: deaths never spend the endpoint's attempts.

Then, in a second run, ``--trials`` deaths each in another agent's call, whose next attempt the
model answers at once: the time from the kill to the next agent's first model request (the run
moving again: the call's next attempt clears the run's sticky queue, so its next workflow task
does not wait for the dead worker's AGENTS_WORKER_STICKY_SECONDS; aim: median <= 5 s). Its fan-outs
run one agent each; it is set beside the call's own restart (the first measure). ``--baseline``
measures it again with Temporal's default sticky wait (10 s), which cost 14.6 s before the
attempt after a lost one cleared its run's sticky queue, and now costs nothing more.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from bench.harness import (
    bench_parser,
    run_on_dev_server,
    server_mode,
    versions,
    versus_aim,
    worker_env,
)
from tests.support.openai_server import HANG, VALID, ScriptedOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
AIM_SECONDS = 5.0
TEMPORAL_STICKY = 10.0
"""The Python SDK's default sticky-queue schedule-to-start timeout, the baseline."""


@dataclass
class Recovery:
    seconds: list[float]
    """Per trial: kill -> the call's next model request."""
    calls_per_death: list[int]
    """Per trial: model requests the death cost."""
    attempts: int
    """The agent call's Temporal attempts when it finished."""
    completed: bool
    moving: list[float]
    """Per trial of the second run: kill -> the next agent's first model request."""
    moving_standby: list[float]
    """The same beside a standby worker that was already running."""
    moving_baseline: list[float]
    """The same with Temporal's default sticky wait (``--baseline``); empty without."""


def _worker(
    client: Client, task_queue: str, base_url: str, log: Path, sticky: float | None = None
) -> subprocess.Popen[bytes]:
    env = worker_env(client, task_queue) | {
        "OPENAI_API_KEY": "sk-recovery-bench",
        "OPENAI_BASE_URL": base_url,
        "AGENT_MODEL": "recovery-model",
    }
    if sticky is not None:
        env["AGENTS_WORKER_STICKY_SECONDS"] = str(sticky)
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "worker.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )


async def _start_run(client: Client, task_queue: str) -> WorkflowHandle[Any, Any]:
    return await client.start_workflow(
        "OrchestratorWorkflow",
        {"goal": "add rate limiting to the gateway", "maxSteps": 40},
        id=f"recovery-{uuid.uuid4()}",
        task_queue=task_queue,
    )


def _replace(
    worker: subprocess.Popen[bytes],
    client: Client,
    task_queue: str,
    base_url: str,
    log: Path,
    sticky: float | None = None,
) -> tuple[subprocess.Popen[bytes], float]:
    """SIGKILL ``worker`` and start another at once: the new one, and when the kill was."""
    worker.kill()
    killed = time.monotonic()
    worker.wait()
    return _worker(client, task_queue, base_url, log, sticky), killed


async def _requests_reach(server: ScriptedOpenAIServer, count: int, timeout: float) -> None:
    async with asyncio.timeout(timeout):
        while len(server.completions) < count:
            await asyncio.sleep(0.02)


async def measure(
    client: Client,
    *,
    trials: int,
    timeout: float = 120,
    baseline: bool = False,
    sticky: float | None = None,
) -> Recovery:
    """Kill the worker ``trials`` times in the first agent call, then let the run finish."""
    seconds: list[float] = []
    calls: list[int] = []
    task_queue = f"recovery-{uuid.uuid4()}"
    with tempfile.TemporaryDirectory() as tmp, ScriptedOpenAIServer([HANG] * trials) as llm:
        log = Path(tmp) / "workers.log"
        worker = _worker(client, task_queue, llm.base_url, log)
        try:
            handle = await _start_run(client, task_queue)
            await _requests_reach(llm, 1, timeout)
            first_call = llm.completions[0].schema_name
            for _ in range(trials):
                before = len(llm.completions)
                worker, killed = _replace(worker, client, task_queue, llm.base_url, log)
                await _requests_reach(llm, before + 1, timeout)
                seconds.append(time.monotonic() - killed)
                await asyncio.sleep(0.5)  # any further request this death caused arrives too
                again = [r for r in llm.completions[before:] if r.schema_name == first_call]
                calls.append(len(again))
            result = await asyncio.wait_for(handle.result(), timeout)
            history = await handle.fetch_history()
        finally:
            worker.kill()
            worker.wait()
    started = [
        e.activity_task_started_event_attributes.attempt
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    final = OrchestratorCollectorResult.model_validate(result)
    moving = await _measure_moving(client, trials=trials, timeout=timeout, sticky=sticky)
    standby = await _measure_moving(
        client, trials=trials, timeout=timeout, sticky=sticky, standby=True
    )
    temporal_default = (
        await _measure_moving(client, trials=trials, timeout=timeout, sticky=TEMPORAL_STICKY)
        if baseline
        else []
    )
    return Recovery(
        seconds,
        calls,
        attempts=started[0],
        completed=bool(final.phases_completed),
        moving=moving,
        moving_standby=standby,
        moving_baseline=temporal_default,
    )


async def _measure_moving(
    client: Client,
    *,
    trials: int,
    timeout: float,
    sticky: float | None = None,
    standby: bool = False,
) -> list[float]:
    """Kill the worker that runs the call in ``trials`` successive agent calls, each answered at
    once when it runs again, and start another at once (``standby``: beside a second worker that
    is already running); per death, kill -> the next agent's first model request."""
    moving: list[float] = []
    task_queue = f"recovery-{uuid.uuid4()}"
    script = [HANG, *[VALID, HANG] * (trials - 1), VALID]  # killed, answered again at once, ...
    with (
        tempfile.TemporaryDirectory() as tmp,
        ScriptedOpenAIServer(script, scenario=OfflineScenario(fan_out=1)) as llm,
    ):
        log = Path(tmp) / "workers.log"
        workers = [_worker(client, task_queue, llm.base_url, log, sticky)]
        try:
            handle = await _start_run(client, task_queue)
            await _requests_reach(llm, 1, timeout)
            if standby:
                workers.append(_worker(client, task_queue, llm.base_url, log, sticky))
            for _ in range(trials):
                before = len(llm.completions)
                holder = await _holder(handle, workers)
                workers.remove(holder)
                replacement, killed = _replace(
                    holder, client, task_queue, llm.base_url, log, sticky
                )
                workers.append(replacement)
                await _requests_reach(llm, before + 2, timeout)  # again, then the next agent
                moving.append(time.monotonic() - killed)
            await asyncio.wait_for(handle.result(), timeout)
        finally:
            for worker in workers:
                worker.kill()
                worker.wait()
    return moving


async def _holder(
    handle: WorkflowHandle[Any, Any], workers: list[subprocess.Popen[bytes]]
) -> subprocess.Popen[bytes]:
    """The worker whose process runs the run's pending activity (its identity is ``pid@host``)."""
    description = await handle.describe()
    identity = description.raw_description.pending_activities[0].last_worker_identity
    pid = int(identity.split("@", 1)[0])
    return next(worker for worker in workers if worker.pid == pid)


def report(recovery: Recovery, mode: str) -> str:
    trials = len(recovery.seconds)
    median = statistics.median(recovery.seconds)
    return "\n".join(
        [
            f"recovery after a worker death, {trials} trials ({mode}; {versions()})",
            "kill -> the call's next model request: "
            + ", ".join(f"{s:.2f}" for s in recovery.seconds)
            + f" s; median {versus_aim(median, AIM_SECONDS, unit=' s')}, max "
            f"{max(recovery.seconds):.2f} s",
            "model calls per death: "
            + ", ".join(map(str, recovery.calls_per_death))
            + f"; max {versus_aim(max(recovery.calls_per_death), 1, unit='')}",
            f"the agent call finished on attempt {recovery.attempts} "
            f"({trials} deaths, no endpoint attempt spent); the run completed",
            "deaths in successive calls, each answered at once when it ran again: kill -> the "
            "next agent's first model request (the run moving again): "
            + ", ".join(f"{s:.2f}" for s in recovery.moving)
            + f" s; median {versus_aim(statistics.median(recovery.moving), AIM_SECONDS, unit=' s')}"
            f", max {max(recovery.moving):.2f} s; "
            f"{statistics.median(recovery.moving) / median:.2f}x the call's own restart above "
            "(the rest is the run's next workflow task and the next agent's start)",
            "the same beside a standby worker already running: "
            + ", ".join(f"{s:.2f}" for s in recovery.moving_standby)
            + f" s; median {versus_aim(_median(recovery.moving_standby), AIM_SECONDS, unit=' s')}",
            *_baseline(recovery),
        ]
    )


def _median(seconds: list[float]) -> float:
    return statistics.median(seconds)


def _baseline(recovery: Recovery) -> list[str]:
    if not recovery.moving_baseline:
        return []
    ours, theirs = statistics.median(recovery.moving), statistics.median(recovery.moving_baseline)
    return [
        f"the same with Temporal's default sticky wait ({TEMPORAL_STICKY:g} s): "
        + ", ".join(f"{s:.2f}" for s in recovery.moving_baseline)
        + f" s; median {theirs:.2f} s; ours / Temporal's default: {ours / theirs:.2f}x"
    ]


def main() -> None:
    parser = bench_parser(
        "python -m bench.recovery",
        __doc__.splitlines()[0],
        ("--trials", 10, "worker deaths in the call"),
        db_file=True,
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also measure the run moving again with Temporal's default sticky wait (10 s)",
    )
    parser.add_argument(
        "--sticky",
        type=float,
        metavar="SECONDS",
        help="the workers' AGENTS_WORKER_STICKY_SECONDS (default: the setting's default)",
    )
    args = parser.parse_args()
    recovery = run_on_dev_server(
        measure,
        db_file=args.db_file,
        trials=args.trials,
        baseline=args.baseline,
        sticky=args.sticky,
    )
    print(report(recovery, server_mode(args.db_file)))


if __name__ == "__main__":
    main()
    exit_now(0)  # no interpreter teardown: see app.process_exit
