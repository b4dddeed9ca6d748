"""A worker for the agent workflows: ``python worker.py`` (``--verbose`` for library logs).

Environment: Temporal's standard connection settings (``TEMPORAL_ADDRESS``, default: the local
stack of ``AGENTS_STATE_DIR`` when it runs, else 127.0.0.1:``AGENTS_PORT``;
``TEMPORAL_NAMESPACE``, ``TEMPORAL_API_KEY``, ``TEMPORAL_TLS_*``, profiles),
``TEMPORAL_TASK_QUEUE`` (default ``agents``); OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL,
AGENT_MODEL_<AGENT>; without OPENAI_API_KEY the offline model answers, shaped by
OFFLINE_SCENARIO (docs/models.md), and OPENAI_BASE_URL without a key refuses to start. A model
the endpoint does not list (or an endpoint that does not answer) is a WARNING at start, and so is
a server whose payload limit is under ``SERVER_PAYLOAD_BYTES`` (docs/operators.md); a per-agent
setting (``AGENT_MODEL_<AGENT>``, ``LLM_MAX_OUTPUT_TOKENS_<AGENT>``) that names no agent of the
teams it serves is a ``warning:`` line, and an AGENT_AUTONOMY_POLICY that does refuses to start.
AGENTS_ENCRYPTION_KEYS (or AGENTS_ENCRYPTION_KEYS_FILE) encrypts every payload (docs/encryption.md);
a worker whose keys lack the key id of an open run's input refuses to start in one line.
SIGTERM or Ctrl-C lets running activities finish for up to AGENTS_WORKER_DRAIN_SECONDS (default
10) before it stops, then sends the next workflow task of each run it cached to any worker
(``app/sticky_release.py``); a second one stops it at once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import replace
from datetime import timedelta

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.worker import Worker

from agent_interrupts.activities.autonomy import AutonomySettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.config import (
    TemporalSettings,
    answer_rules_from_env,
    llm_settings_from_env,
    notify_settings_from_env,
    stuck_check_seconds,
    unknown_agent_settings,
    worker_drain,
    worker_max_activities,
    worker_max_cached_workflows,
    worker_max_workflow_tasks,
    worker_sticky,
)
from agent_interrupts.app.connect import ConnectionProblem, connect
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.key_check import missing_key_problem
from agent_interrupts.app.logs import configure_logging
from agent_interrupts.app.message_size import server_limit_problem
from agent_interrupts.app.metrics import metrics_address, metrics_runtime
from agent_interrupts.app.model_check import model_problems
from agent_interrupts.app.model_context import with_served_context
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.stack import HOST, LocalStack, worker_settings
from agent_interrupts.app.sticky_release import cached_runs, release_sticky
from agent_interrupts.app.stuck import StuckRunWatch
from agent_interrupts.app.worker_setup import build_worker, served_agents
from agent_interrupts.models.team_files import configured_teams
from agent_interrupts.models.team_spec import SOFTWARE_TEAM_NAME


def _where(settings: TemporalSettings) -> tuple[str, TemporalSettings, str | None]:
    """The address to join, the settings to join it with, and a line to say about it: with no
    address configured, the local stack of the state directory (the one ``agents up`` starts)."""
    stack = LocalStack(settings)
    if settings.address is not None:
        return settings.address, settings, stack.elsewhere(settings.address)
    info = stack.info()
    if info is not None:
        return info.address, replace(settings, namespace=info.namespace), None
    address = f"{HOST}:{settings.port}"
    return (
        address,
        settings,
        f"note: no local stack runs for {stack.dir}; trying {address} (start the stack with: "
        "agents up, or set TEMPORAL_ADDRESS)",
    )


async def main(argv: list[str]) -> int:
    configure_logging(verbose="--verbose" in argv)
    try:
        settings = TemporalSettings.from_env()
        teams = configured_teams(os.environ)
        team_agents = [a.name for team in teams.values() for a in team.agents]
        scenario = OfflineScenario.parse(os.environ.get("OFFLINE_SCENARIO"), team_agents)
        notify = notify_settings_from_env()
        answer_rules = answer_rules_from_env()
        llm = llm_settings_from_env(os.environ, teams.values())
        agents = served_agents(teams)
        autonomy = AutonomySettings.from_env(os.environ, agents)
        watch_every = stuck_check_seconds()
        drain = worker_drain()
        sticky = worker_sticky()
        max_activities = worker_max_activities()
        max_cached = worker_max_cached_workflows()
        max_workflow_tasks = worker_max_workflow_tasks()
        metrics_at = metrics_address()
        runtime = metrics_runtime(metrics_at) if metrics_at else None
        ring = KeyRing.from_env()
    except ValueError as err:  # a bad setting, or team files with problems: one line each
        for line in str(err).splitlines():
            print(f"error: {line}", file=sys.stderr)
        return 2
    for warning in [*settings.warnings, *unknown_agent_settings(os.environ, agents)]:
        print(f"warning: {warning}", file=sys.stderr)
    address, settings, note = _where(settings)
    if note:
        print(note, file=sys.stderr)
    try:
        client = await connect(settings, address, runtime)
    except ConnectionProblem as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if missing := await missing_key_problem(client, settings.task_queue, ring):
        print(f"error: {missing}", file=sys.stderr)
        return 1
    llm = await with_served_context(llm)
    for problem in await model_problems(llm):
        print(f"WARNING: {problem}", file=sys.stderr, flush=True)
    if too_small := await server_limit_problem(client):
        print(f"WARNING: {too_small}", file=sys.stderr, flush=True)
    uses, _ = worker_settings(os.environ)
    served = f", metrics: http://{metrics_at}/metrics" if metrics_at else ""
    print(
        f"worker: {address} namespace={settings.namespace} queue={settings.task_queue}, "
        f"{uses}{served}, teams: {', '.join(sorted({SOFTWARE_TEAM_NAME, *teams}))}",
        flush=True,
    )
    worker = build_worker(
        client,
        settings.task_queue,
        llm,
        scenario=scenario,
        notify=notify,
        drain=drain,
        max_activities=max_activities,
        max_cached_workflows=max_cached,
        max_workflow_tasks=max_workflow_tasks,
        sticky=sticky,
        autonomy_settings=autonomy,
        teams=teams,
        answer_rules=answer_rules,
    )
    held = stop_on_signals(worker, drain)
    if watch_every:
        watch = StuckRunWatch(client, settings.task_queue, notify, watch_every)
        watching = asyncio.create_task(watch.run())
    await worker.run()
    if watch_every:
        watching.cancel()
    if held:  # stopped by a signal: the runs it held go to any worker, not its sticky queue
        cleared = await release_sticky(client, held)
        print(
            f"worker: stopped; the next workflow task of {cleared} of the {len(held)} workflows "
            "it held goes to any worker",
            file=sys.stderr,
            flush=True,
        )
    # at once: asyncio.run would wait for threads that cancelled activities left running (a
    # sandboxed test run may take AGENT_TEST_TIMEOUT)
    exit_now(0)


def stop_on_signals(worker: Worker, drain: timedelta) -> list[WorkflowExecution]:
    """The first SIGTERM or SIGINT shuts ``worker`` down, letting running activities finish for
    ``drain``; a second one ends the process at once (exit status 128 + the signal's number).
    Returns the list that the first signal fills with the runs ``worker`` then cached."""
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []
    held: list[WorkflowExecution] = []

    def stop(signum: signal.Signals) -> None:
        for each in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(each)
            signal.signal(each, lambda number, _frame: exit_now(128 + number))
        print(
            f"worker: {signum.name}: stopping; running activities may finish for "
            f"{drain.total_seconds():g} s (AGENTS_WORKER_DRAIN_SECONDS); send it again to stop now",
            file=sys.stderr,
            flush=True,
        )
        held.extend(cached_runs(worker))  # before the SDK empties its cache
        stopping.append(loop.create_task(worker.shutdown()))

    for each in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(each, stop, each)
    return held


def run() -> None:
    """The worker process: ``python worker.py`` and ``python -m agent_interrupts.worker``."""
    try:
        code = asyncio.run(main(sys.argv[1:]))
    except KeyboardInterrupt:
        code = 130
    exit_now(code)
