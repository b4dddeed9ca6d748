"""The local stack: a Temporal dev server and workers in the background, one per state directory.

``agents up`` starts it (or finds it), ``agents down`` stops it; every command without
``TEMPORAL_ADDRESS`` uses it. The processes run in their own sessions, so they outlive the
terminal; their logs go to files under the state directory. One lock file per state directory
serialises starting and stopping; ``stack.json`` records what runs where.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.config import (
    DEFAULT_INBOX_HOST,
    DEFAULT_INBOX_PORT,
    DEFAULT_PORT,
    InboxSettings,
    TemporalSettings,
    llm_settings_from_env,
    notify_settings_from_env,
)
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.model_check import model_problems
from agent_interrupts.app.process_exit import guard_interpreter_exit
from agent_interrupts.workflows.visibility import dev_server_args

if TYPE_CHECKING:
    from agent_interrupts.models.team_spec import TeamSpec

HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 120.0
"""A ceiling for a process to come up on a loaded machine, not a window anything relies on."""
STOP_TIMEOUT_SECONDS = 15.0
SERVER_LOG = "temporal-server.log"
STACK_FILE = "stack.json"
LOCK_FILE = "stack.lock"
TEAM_FILES = "team-files.json"
"""The team files the stack was given (``agents run --team PATH``, or a team of the shell's
``AGENTS_TEAMS`` named by ``agents run --team NAME``): team name -> its file and agents. Kept
across ``down`` and ``up``, so every worker the stack starts serves them, and the worker of a
run waiting on a question of such a team starts again after ``up``."""
SETTINGS_FILE = "worker-settings.json"
"""The model and notification settings of the stack's workers, taken from the command that starts
the main worker when none are kept (the first ``up``, or the first after ``down``, which deletes
them); every worker the stack starts later shares them, a restarted main worker too. Readable by
its owner only (it holds keys and webhook URLs)."""
WORKER_SETTINGS = (
    "OPENAI_",
    "AGENT_MODEL",
    "CONTROLLER_MODEL",
    "LLM_",
    "AGENT_AUTONOMY_",
    "INTERRUPT_",
    "SLACK_WEBHOOK_URL",
    "SLACK_BOT_TOKEN",
    "SLACK_CHANNEL",
    "SLACK_API_URL",
    "AGENTS_INBOX_URL",
    "SMTP_URL",
    "AGENTS_ANSWER_RULES",
)
"""Prefixes of the variables that make a worker's model and notification settings (and its
answer rules)."""
CHANNEL_VARIABLES = {
    "webhook": "INTERRUPT_WEBHOOK_URL",
    "slack": "SLACK_WEBHOOK_URL or SLACK_BOT_TOKEN",
    "email": "SMTP_URL, INTERRUPT_EMAIL_TO",
}
"""Notification channel -> the variables that turn it on."""


class StackError(Exception):
    """The local stack cannot be started or used; the message says what to change."""


@dataclass
class StackInfo:
    """What ``stack.json`` records."""

    address: str
    ui_url: str
    namespace: str
    server_pid: int
    workers: dict[str, int] = field(default_factory=dict)
    """Task queue -> worker pid (``agents`` and one queue per offline scenario)."""
    settings: dict[str, str] = field(default_factory=dict)
    """Task queue -> its worker's model and notifications, as ``up --status`` shows them."""
    channels: dict[str, list[str]] = field(default_factory=dict)
    """Task queue -> its worker's notification channels (empty: notifications off)."""
    teams: dict[str, dict[str, str]] = field(default_factory=dict)
    """Task queue -> the kept team files' teams its worker read at start (name -> content
    hash); the files themselves are kept in ``TEAM_FILES``."""
    unstarted: list[str] = field(default_factory=list)
    """Scenario queues with open runs whose worker could not start for want of a team: each
    later command tries again (a team file put back, or this shell's AGENTS_TEAMS, serves it)."""

    def assignments(self) -> list[str]:
        """``NAME=value`` of the settings that point every Temporal tool (the ``temporal`` CLI,
        ``python worker.py``) at this stack."""
        return assignments(self.address, self.namespace)


def assignments(address: str, namespace: str) -> list[str]:
    """``TEMPORAL_ADDRESS=...`` and ``TEMPORAL_NAMESPACE=...``, quoted for a shell."""
    return [
        f"TEMPORAL_ADDRESS={shlex.quote(address)}",
        f"TEMPORAL_NAMESPACE={shlex.quote(namespace)}",
    ]


def worker_settings(env: Mapping[str, str]) -> tuple[str, list[str]]:
    """What a worker started with ``env`` uses: "offline model, notifications: none" (as
    ``python worker.py`` says it at start), and its notification channels."""
    try:
        llm, notify = llm_settings_from_env(env), notify_settings_from_env(env)
    except ValueError as err:
        return f"settings refused: {err}", []
    model = "offline model" if llm.offline else f"model {llm.model} at {llm.base_url or 'OpenAI'}"
    channels = [str(channel) for channel in notify.channels]
    return f"{model}, notifications: {', '.join(channels) or 'none'}", channels


def notifications_off(queue: str, channels: Sequence[str], in_process: bool = False) -> str:
    """The warning for a run whose worker has notifications off while the stack's are on; it
    names the variables to set, and where (``in_process``: for this command's own worker)."""
    variables = ", ".join(CHANNEL_VARIABLES.get(channel, channel) for channel in channels)
    fix = (
        f"set {variables} in this shell for this command's worker"
        if in_process
        else f"run agents down, then agents up from a shell that sets {variables} (the stack "
        "keeps them for all its workers)"
    )
    return (
        f"warning: the worker of queue {queue!r} has notifications off while the stack's "
        f"worker sends them ({', '.join(channels)}); nobody is told of this run's questions. "
        f"To turn them on: {fix}"
    )


def no_worker(
    queue: str, workflow_id: str, detail: str, task_queue: str, *, local: bool = True
) -> str:
    """One line for a workflow whose task queue no worker polls: the queue, and the command that
    starts its worker (for an offline scenario's queue, one with that scenario); ``local``: the
    command is about the local stack, else about the configured server (``agents up`` refuses)."""
    start = start_command(queue, task_queue, local=local)
    return f"no worker serves task queue {queue!r} of {workflow_id} ({detail}); start one: {start}"


def start_command(queue: str, task_queue: str, *, local: bool = True) -> str:
    """The command that starts the worker of ``queue``: on the local stack ``agents up`` may;
    on a configured server (TEMPORAL_ADDRESS), only a ``worker.py`` with the same settings."""
    scenario = queue_scenario(queue, task_queue)
    if not local:
        env = f"TEMPORAL_TASK_QUEUE={shlex.quote(queue)} " if queue != task_queue else ""
        env += f"OFFLINE_SCENARIO={shlex.quote(scenario)} " if scenario is not None else ""
        return (
            f"{env}python worker.py (installed: {env}python -m agent_interrupts.worker) with this "
            "shell's TEMPORAL_ADDRESS, on that server"
        )
    if scenario is not None:
        return (
            "agents up (local stack: it starts the worker of each scenario with open runs), or "
            f"TEMPORAL_TASK_QUEUE={shlex.quote(queue)} OFFLINE_SCENARIO={shlex.quote(scenario)} "
            "python worker.py"
        )
    if queue == task_queue:
        return "agents up (local stack) or python worker.py"
    return f"TEMPORAL_TASK_QUEUE={shlex.quote(queue)} python worker.py"


def scenario_queue(task_queue: str, scenario: str) -> str:
    """The task queue of the worker that runs offline scenario ``scenario``."""
    return f"{task_queue}/scenario/{scenario.strip()}"


def queue_scenario(queue: str, task_queue: str) -> str | None:
    """The offline scenario whose worker serves ``queue`` (what ``scenario_queue`` made it of
    with ``task_queue``), else None."""
    prefix = scenario_queue(task_queue, "")
    return queue.removeprefix(prefix) if queue.startswith(prefix) and queue != prefix else None


_INFO_FIELDS = frozenset(StackInfo.__dataclass_fields__)
"""What ``stack.json`` may hold (one written by an older version may hold more)."""


@dataclass
class KeptTeam:
    """A team file the stack was given: where it is, and its agents when it was read (what an
    offline scenario may name, even once the file is gone)."""

    path: str
    agents: list[str] = field(default_factory=list)


class LocalStack:
    """The stack of one state directory."""

    def __init__(self, settings: TemporalSettings) -> None:
        self.settings = settings
        self.dir = settings.state_dir.resolve()
        self.not_started: list[str] = []
        """Why ``up`` started no worker for some scenario's open runs (the rest of the stack
        runs; the command named there starts that worker once the cause is fixed)."""

    # -- reading --------------------------------------------------------------------------

    def info(self) -> StackInfo | None:
        """The recorded stack if its server process is still alive, else None."""
        try:
            raw = json.loads((self.dir / STACK_FILE).read_text())
            info = StackInfo(**{k: v for k, v in raw.items() if k in _INFO_FIELDS})
        except (OSError, ValueError, TypeError, AttributeError):
            return None
        return info if _alive(info.server_pid) else None

    def owns(self, address: str) -> bool:
        """Whether ``address`` is this stack's server (so TEMPORAL_ADDRESS may point at it)."""
        info = self.info()
        return info is not None and _normal(address) == _normal(info.address)

    def serves(self, address: str | None) -> bool:
        """Whether commands for ``address`` use this stack: no address, the stack's own, or
        the address ``up`` would start while nothing else listens there."""
        if address is None or self.owns(address):
            return True
        port = self.settings.port
        return _normal(address) == f"{HOST}:{port}" and _free(port)

    def elsewhere(self, address: str | None) -> str | None:
        """One line when ``address`` is Temporal's default (``localhost:7233``, where a tool
        lands that was never told about this stack) while this stack runs at another address;
        else None."""
        info = self.info()
        if address is None or info is None or self.owns(address):
            return None
        if _normal(address) != f"{HOST}:{DEFAULT_PORT}":
            return None
        return (
            f"note: this uses Temporal at {address}, while the local stack of {self.dir} runs at "
            f'{info.address}; to use the stack: eval "$(agents env)"'
        )

    def describe(self) -> list[str]:
        """Lines for ``agents up --status``."""
        info = self.info()
        if info is None:
            return [f"no local stack runs for {self.dir} (start it with: agents up)"]
        lines = [
            f"Temporal dev server {info.address} (pid {info.server_pid}), UI {info.ui_url}",
            f"state and logs in {self.dir}",
            f"for the temporal CLI in another shell: export {' '.join(info.assignments())} "
            '(or: eval "$(agents env)")',
        ]
        for queue, pid in sorted(info.workers.items()):
            state = "running" if _alive(pid) else "stopped"
            settings = f"; {info.settings[queue]}" if queue in info.settings else ""
            lines.append(f"worker for queue {queue!r}: pid {pid}, {state}{settings}")
        return lines

    async def model_warnings(self) -> list[str]:
        """``WARNING: ...`` lines for the model the stack's workers use: settings a worker refuses
        (a base URL without a key), or an endpoint that does not answer for its model."""
        if self.info() is None:
            return []
        with contextlib.suppress(OSError, ValueError, TypeError):
            kept = dict(json.loads((self.dir / SETTINGS_FILE).read_text()))
            try:
                problems = await model_problems(llm_settings_from_env(kept))
            except ValueError as err:
                problems = [f"the workers refuse their settings: {err}"]
            return [f"WARNING: {problem}" for problem in problems]
        return []

    def notifications_gap(self, queue: str, channels: Sequence[str] | None = None) -> str | None:
        """A warning when the worker of ``queue`` (with ``channels``: an in-process worker's)
        has notifications off while the stack's main worker has them on, e.g. a scenario worker
        started before the stack kept its settings; else None."""
        info = self.info()
        main = info.channels.get(self.settings.task_queue) if info else None
        if info is None or not main:
            return None
        theirs = info.channels.get(queue, main) if channels is None else channels
        return None if theirs else notifications_off(queue, main, in_process=channels is not None)

    # -- starting and stopping ------------------------------------------------------------

    async def up(self) -> tuple[StackInfo, bool]:
        """Start the server and the main worker unless they run, and the worker of each offline
        scenario with open runs unless it runs (after ``down``, or when it died); True when the
        server started."""
        with self._lock():
            info = self.info()
            started = info is None
            if info is None:
                info = await self._start_server()
            main = self._start_worker(info, self.settings.task_queue, None)
            scenarios = []
            for queue in await self._scenarios_to_resume(info, started):
                try:
                    scenario = queue_scenario(queue, self.settings.task_queue)
                    scenarios.append(self._start_worker(info, queue, scenario))
                except StackError as err:  # a team it needs is gone: the line says how
                    self.not_started.append(f"{err}; its runs wait")
                    info.unstarted = sorted({*info.unstarted, queue})
                    self._save(info)
            if main is not None:
                await self._polling(info, *main)
            for worker in scenarios:
                if worker is None:
                    continue
                try:
                    await self._polling(info, *worker)
                except StackError as err:  # its runs wait; the stack and other runs go on
                    start = start_command(worker[0], self.settings.task_queue)
                    self.not_started.append(f"{err}; its runs wait; once fixed: {start}")
            return info, started

    async def ensure_scenario_worker(self, scenario: str) -> str:
        """A background worker whose offline model follows ``scenario``; returns its queue."""
        queue = scenario_queue(self.settings.task_queue, scenario)
        with self._lock():
            info = self.info()
            if info is None:
                raise StackError("the local stack is not running; start it with: agents up")
            pid = info.workers.get(queue)
            if pid is None or not _alive(pid):  # a new worker: stop those with nothing to do
                await self._retire_idle_scenarios(info, keep=queue)
            await self._ensure_worker(info, queue, scenario)
        return queue

    async def serve_team(self, spec: TeamSpec, path: Path, queue: str) -> bool:
        """Make the worker of ``queue`` serve the team file ``path`` (``spec`` as read now): a
        worker that does not serve this version of it is started again (its runs go on; each
        run follows the version it pinned). Returns whether a worker was (re)started."""
        with self._lock():
            info = self.info()
            if info is None:
                raise StackError("the local stack is not running; start it with: agents up")
            self._keep_team(spec, path)
            pid = info.workers.get(queue)
            alive = pid is not None and _alive(pid)
            if alive and info.teams.get(queue, {}).get(spec.name) == spec.sha256():
                self._save(info)
                return False
            if alive and pid is not None:
                await asyncio.to_thread(_stop, pid)
            info.workers.pop(queue, None)
            await self._ensure_worker(info, queue, queue_scenario(queue, self.settings.task_queue))
            return True

    async def _retire_idle_scenarios(self, info: StackInfo, keep: str) -> list[str]:
        """Stop the stack's scenario workers with no open run (but ``keep``'s): each is a
        worker process of its own (about 110 MB), and one per scenario ever tried piled up
        until ``down``. A later command about one of their closed runs starts it again."""
        prefix = scenario_queue(self.settings.task_queue, "")
        idle = [q for q in info.workers if q.startswith(prefix) and q != keep]
        if not idle:
            return []
        client = await local_client(info)
        retired = []
        for queue in idle:
            literal = queue.replace("\\", "\\\\").replace("'", "\\'")
            query = f"ExecutionStatus = 'Running' AND TaskQueue = '{literal}'"
            if (await client.count_workflows(query)).count:
                continue
            await asyncio.to_thread(_stop, info.workers.pop(queue))
            info.settings.pop(queue, None)
            info.channels.pop(queue, None)
            retired.append(queue)
        self._save(info)
        return retired

    async def ensure_worker_of(self, client: Client, workflow_id: str) -> None:
        """Start the worker of the offline scenario whose queue ``workflow_id`` is on, unless it
        runs: ``up`` starts only those of open runs, and a closed run's queries need one too.
        An unknown id does nothing (the command says what is wrong with it)."""
        try:
            queue = (await client.get_workflow_handle(workflow_id).describe()).task_queue
        except RPCError:
            return
        scenario = queue_scenario(queue, self.settings.task_queue)
        if scenario is not None:
            await self.ensure_scenario_worker(scenario)

    def down(self) -> bool:
        """Stop the workers and the server; False when nothing was running."""
        with self._lock():
            info = self.info()
            path = self.dir / STACK_FILE
            (self.dir / SETTINGS_FILE).unlink(missing_ok=True)  # the next up takes its shell's
            if info is None:
                path.unlink(missing_ok=True)
                return False
            for pid in [*info.workers.values(), info.server_pid]:
                _stop(pid)
            path.unlink(missing_ok=True)
            return True

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        self.dir.mkdir(parents=True, exist_ok=True)
        with (self.dir / LOCK_FILE).open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def kept_teams(self) -> dict[str, KeptTeam]:
        """The team files the stack was given (``TEAM_FILES``), by team name."""
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            raw = json.loads((self.dir / TEAM_FILES).read_text())
            return {name: KeptTeam(**team) for name, team in raw.items()}
        return {}

    def _keep_team(self, spec: TeamSpec, path: Path) -> None:
        kept = self.kept_teams()
        kept[spec.name] = KeptTeam(str(path.resolve()), [a.name for a in spec.agents])
        target = self.dir / TEAM_FILES
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps({name: asdict(team) for name, team in kept.items()}, indent=2))
        tmp.replace(target)

    def _save(self, info: StackInfo) -> None:
        path = self.dir / STACK_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(info), indent=2))
        tmp.replace(path)

    async def _start_server(self) -> StackInfo:
        port, ui_port = self.settings.port, self.settings.ui_port
        for name, number in (("AGENTS_PORT", port), ("AGENTS_UI_PORT", ui_port)):
            if not _free(number):
                raise StackError(
                    f"port {number} is in use by another program, not by the local stack of "
                    f"{self.dir}; set {name} to a free port, or TEMPORAL_ADDRESS to use the "
                    "server that is there"
                )
        address = f"{HOST}:{port}"
        command = [
            temporal_cli(),
            "server",
            "start-dev",
            "--ip",
            HOST,
            "--port",
            str(port),
            "--ui-ip",
            HOST,
            "--ui-port",
            str(ui_port),
            "--namespace",
            self.settings.namespace,
            "--db-filename",
            str(self.dir / "temporal.db"),
            "--log-level",
            "warn",
            "--dynamic-config-value",
            "frontend.enableUpdateWorkflowExecution=true",
            *dev_server_args(),
            *ui_codec_args(os.environ),
        ]
        process = _spawn(command, self.dir / SERVER_LOG, dict(os.environ))
        info = StackInfo(
            address=address,
            ui_url=f"http://{HOST}:{ui_port}",
            namespace=self.settings.namespace,
            server_pid=process.pid,
        )
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while True:
            if process.poll() is not None:
                raise StackError(
                    f"the Temporal dev server exited at start; see {self.dir / SERVER_LOG}"
                )
            try:
                await local_client(info)
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    _stop(process.pid)
                    raise StackError(
                        f"the Temporal dev server did not answer on {address}; "
                        f"see {self.dir / SERVER_LOG}"
                    ) from None
                await asyncio.sleep(0.2)
        self._save(info)
        return info

    def _worker_settings(self, main: bool) -> dict[str, str]:
        """The model and notification variables a worker starts with: the kept ones, whichever
        shell starts it (a main worker restarted after it died too); with none kept (the first
        ``up``, or the first after ``down``), this command's, which the main worker keeps."""
        path = self.dir / SETTINGS_FILE
        with contextlib.suppress(OSError, ValueError, TypeError):
            return dict(json.loads(path.read_text()))
        shell = {k: v for k, v in os.environ.items() if k.startswith(WORKER_SETTINGS)}
        if main:
            path.unlink(missing_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                json.dump(shell, out)
        return shell

    async def _scenarios_to_resume(self, info: StackInfo, started: bool) -> list[str]:
        """The scenario queues with open runs whose worker does not run; the server is asked only
        when it just started, one of the stack's scenario workers died, or one could not start."""
        prefix = scenario_queue(self.settings.task_queue, "")
        known = {q: pid for q, pid in info.workers.items() if q.startswith(prefix)}
        if not started and not info.unstarted and all(_alive(p) for p in known.values()):
            return []
        client = await local_client(info)
        literal = prefix.replace("\\", "\\\\").replace("'", "\\'")
        query = f"ExecutionStatus = 'Running' AND TaskQueue STARTS_WITH '{literal}'"
        queues = {run.task_queue async for run in client.list_workflows(query)}
        if info.unstarted:  # a queue whose runs have all closed needs no worker any more
            info.unstarted = [q for q in info.unstarted if q in queues]
            self._save(info)
        return sorted(q for q in queues if q not in known or not _alive(known[q]))

    async def _ensure_worker(self, info: StackInfo, queue: str, scenario: str | None) -> None:
        worker = self._start_worker(info, queue, scenario)
        if worker is not None:
            await self._polling(info, *worker)

    def _start_worker(
        self, info: StackInfo, queue: str, scenario: str | None
    ) -> tuple[str, subprocess.Popen[bytes], Path] | None:
        """Spawn the worker of ``queue`` unless it runs; ``_polling`` waits until it polls."""
        pid = info.workers.get(queue)
        if pid is not None and _alive(pid):
            return None
        settings = self._worker_settings(main=queue == self.settings.task_queue)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("TEMPORAL_", *WORKER_SETTINGS)) and k != "OFFLINE_SCENARIO"
        }
        env.update(settings)
        env.update(
            TEMPORAL_ADDRESS=info.address,
            TEMPORAL_NAMESPACE=info.namespace,
            TEMPORAL_TASK_QUEUE=queue,
            TEMPORAL_CONFIG_FILE=os.devnull,
        )
        if scenario:
            env["OFFLINE_SCENARIO"] = scenario
        kept = self.kept_teams()
        loaded = _team_hashes({name: team.path for name, team in kept.items()})
        if scenario and (missing := _scenario_team_missing(scenario, env, kept, loaded)):
            raise StackError(f"the worker for {queue!r} cannot start: {missing}")
        info.teams[queue] = loaded  # a kept file since broken or gone is not served
        if loaded:
            from agent_interrupts.models.team_files import TEAMS_SETTING

            named = [env.get(TEAMS_SETTING, ""), *(kept[name].path for name in loaded)]
            env[TEAMS_SETTING] = os.pathsep.join(filter(None, named))
        log = self.dir / f"worker-{_slug(queue)}.log"
        process = _spawn([sys.executable, "-m", "agent_interrupts.worker"], log, env)
        info.workers[queue] = process.pid
        info.unstarted = [q for q in info.unstarted if q != queue]
        info.settings[queue], info.channels[queue] = worker_settings(env)
        self._save(info)
        return queue, process, log

    async def _polling(
        self, info: StackInfo, queue: str, process: subprocess.Popen[bytes], log: Path
    ) -> None:
        client = await local_client(info)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not await pollers(client, info.namespace, queue):
            if process.poll() is not None:
                del info.workers[queue]
                self._save(info)
                raise StackError(f"the worker for {queue!r} exited at start: {_tail(log)}")
            if time.monotonic() > deadline:
                raise StackError(f"the worker for {queue!r} did not start; see {log}")
            await asyncio.sleep(0.2)


def ui_codec_args(env: Mapping[str, str]) -> list[str]:
    """With encryption on (``AGENTS_ENCRYPTION_KEYS``), the UI's codec endpoint: the codec server
    of ``agents inbox`` on this machine (its port, AGENTS_INBOX_PORT), which decodes for the
    holders of its token (docs/encryption.md); else nothing."""
    if KeyRing.from_env(env) is None:
        return []
    try:
        port = InboxSettings.from_env(env).port
    except ValueError:
        port = DEFAULT_INBOX_PORT
    return ["--ui-codec-endpoint", f"http://{DEFAULT_INBOX_HOST}:{port}"]


async def local_client(info: StackInfo) -> Client:
    """A client of the stack's server (plain connection, no TLS or API key)."""
    converter = data_converter()
    guard_interpreter_exit()
    return await Client.connect(info.address, namespace=info.namespace, data_converter=converter)


async def pollers(client: Client, namespace: str, queue: str) -> set[str]:
    """The identities of the workers polling ``queue`` for workflow tasks."""
    described = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=namespace,
            task_queue=TaskQueue(name=queue),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
    )
    return {p.identity for p in described.pollers}


def _spawn(command: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start ``command`` in its own session (Ctrl-C in the terminal does not reach it)."""
    with log.open("ab") as out:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):  # a zombie child of this process is not alive
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


def _stop(pid: int) -> None:
    """SIGTERM the process group of ``pid``; SIGKILL it if it does not end in time."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
    while _alive(pid) and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    if _alive(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def _free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def _normal(address: str) -> str:
    host, _, port = address.rpartition(":")
    return f"{HOST if host in ('localhost', '127.0.0.1', '') else host}:{port}"


def _slug(queue: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in queue)[:80]


def _tail(log: Path) -> str:
    with contextlib.suppress(OSError):
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        if lines:
            return lines[-1]
    return f"see {log}"


def _scenario_team_missing(
    scenario: str, env: Mapping[str, str], kept: Mapping[str, KeptTeam], loaded: Collection[str]
) -> str | None:
    """Why a worker of the offline ``scenario`` would not start for want of a team (None when
    it would, or fails for another reason its worker names): the scenario names an agent of a
    kept team whose file is gone or broken, or of no team the worker serves. One line, naming
    the team and how to get it served."""
    from agent_interrupts.activities.offline_model import OfflineScenario, UnknownScenarioAgent
    from agent_interrupts.models.team_files import TEAMS_SETTING, TeamFileError, configured_teams

    try:
        served = configured_teams(env)
    except TeamFileError:
        return None  # the worker says what is wrong with its AGENTS_TEAMS
    agents = [a.name for team in served.values() for a in team.agents]
    agents += [a for name in loaded for a in kept[name].agents]
    try:
        OfflineScenario.parse(scenario, agents)
    except UnknownScenarioAgent as err:
        for name, team in kept.items():
            if name in loaded:
                continue
            with contextlib.suppress(ValueError):
                OfflineScenario.parse(scenario, [*agents, *team.agents])
                how = "is gone" if not Path(team.path).exists() else "no longer loads"
                return (
                    f"its offline scenario {scenario!r} names agents of team {name}, whose "
                    f"file {team.path} {how}; put the file back (or fix it), or set "
                    f"{TEAMS_SETTING} to the team's file, then run agents up"
                )
        return f"{err}; set {TEAMS_SETTING} to the file of the team it names, then run agents up"
    except ValueError:
        return None  # not for want of a team: the worker says what is wrong with it
    return None


def _team_hashes(team_files: Mapping[str, str]) -> dict[str, str]:
    """The content hash of each team file's team now (a file that does not load: none)."""
    from agent_interrupts.models.team_files import TeamFileError, load_team_file

    hashes = {}
    for name, path in team_files.items():
        with contextlib.suppress(TeamFileError, OSError):
            hashes[name] = load_team_file(path).sha256()
    return hashes
