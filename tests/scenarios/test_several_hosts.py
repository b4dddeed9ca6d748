"""Runs that span hosts: two worker hosts share one Temporal server and
one PostgreSQL, and runs with a workspace, memory and questions complete whichever host takes
each step, and survive the loss of a host.

Hosts are network namespaces (``tests/support/hosts.py``): the server host (this process, the
Temporal dev server and PostgreSQL, listening on a bridge) and two worker hosts, each running
``python worker.py`` with its own state directory. What the hosts share is what a deployment
shares: the Temporal server, ``AGENT_MEMORY_URL`` (PostgreSQL), and one mount holding
``AGENT_WORKSPACES_DIR`` and ``AGENT_TOOL_RESULTS_DIR``. Which host ran each step is read from
the runs' histories (the worker identity of every started activity).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError

from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.visibility import dev_server_args
from tests.support.code_repo import TEST_COMMAND, make_code_repo
from tests.support.hosts import Network, worker_hosts
from tests.support.interrupts import answer_all, interrupt_status, wait_for_interrupt
from tests.support.postgres import PostgresServer, free_port, postgres_server, require_pg_bin
from tests.support.workspace import git

ROOT = Path(__file__).resolve().parents[2]
QUEUE = "agents-hosts"
SCENARIO = "interrupt=REVIEW_AGENT"
"""Every run asks a person at its review, after its tickets were committed."""
WAIT = 240.0


@contextlib.contextmanager
def temporal_server(host: str, log: Path) -> Iterator[str]:
    """A Temporal dev server (in memory); its address on ``host``. It listens on every address
    of the server host: its own services dial its front end on 127.0.0.1."""
    port = free_port("0.0.0.0")
    command = [
        temporal_cli(), "server", "start-dev", "--ip", "0.0.0.0", "--port", str(port), "--headless",
        "--log-level", "warn", "--dynamic-config-value",
        "frontend.enableUpdateWorkflowExecution=true", *dev_server_args(),
    ]  # fmt: skip
    with log.open("ab") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield f"{host}:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


async def _connect(address: str) -> Client:
    deadline = time.monotonic() + 60
    while True:
        try:
            return await Client.connect(address, data_converter=pydantic_data_converter)
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)


class WorkerHosts:
    """``python worker.py`` on each worker host, with its own state directory and the shared
    mount; ``identity(n)`` is how histories name host ``n``'s worker."""

    def __init__(self, network: Network, address: str, memory_url: str, root: Path) -> None:
        self.network = network
        self.root = root
        shared = root / "shared-mount"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEMPORAL_", "OPENAI_"))}
        self.env = {
            **env,
            "PYTHONPATH": str(ROOT),
            "TEMPORAL_ADDRESS": address,
            "TEMPORAL_TASK_QUEUE": QUEUE,
            "AGENT_MEMORY_URL": memory_url,
            "AGENT_WORKSPACES_DIR": str(shared / "workspaces"),
            "AGENT_TOOL_RESULTS_DIR": str(shared / "tool-results"),
            "OFFLINE_SCENARIO": SCENARIO,
        }
        self.workers: dict[int, subprocess.Popen[bytes]] = {}

    def start(self, host: int) -> None:
        state = self.root / f"host-{host}" / "state"
        state.mkdir(parents=True)
        self.workers[host] = self.network.spawn(
            host,
            [sys.executable, str(ROOT / "worker.py")],
            {**self.env, "AGENTS_STATE_DIR": str(state)},
            self.root / f"host-{host}" / "worker.log",
            ROOT,
        )

    def identity(self, host: int) -> str:
        return f"{self.workers[host].pid}@"

    def kill(self, host: int) -> None:
        self.workers[host].send_signal(signal.SIGKILL)
        self.workers[host].wait()

    def stop_all(self) -> None:
        for worker in self.workers.values():
            if worker.poll() is None:
                worker.kill()
                worker.wait()

    def log(self, host: int) -> str:
        return (self.root / f"host-{host}" / "worker.log").read_text(errors="replace")[-3000:]


@contextlib.asynccontextmanager
async def cluster(tmp_path: Path) -> AsyncIterator[tuple[Client, WorkerHosts, PostgresServer]]:
    """Two worker hosts, the server host's Temporal and PostgreSQL; everything stopped after."""
    with (
        worker_hosts(2) as network,
        postgres_server(require_pg_bin(), network.server, network.subnet) as pg,
        temporal_server(network.server, tmp_path / "temporal.log") as address,
    ):
        client = await _connect(address)
        hosts = WorkerHosts(network, address, pg.create_database(), tmp_path)
        try:
            yield client, hosts, pg
        finally:
            hosts.stop_all()


async def _start(client: Client, run_id: str, repo: Path) -> WorkflowHandle[object, object]:
    spec = WorkspaceSpec(source=str(repo), test_command=TEST_COMMAND)
    return await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=f"fix the add and mul bugs ({run_id})", workspace=spec),
        id=run_id,
        task_queue=QUEUE,
    )


async def _answer(agents: AgentWorkflowClient, handle: WorkflowHandle[object, object]) -> None:
    """Answer the run's question (it may be asked again after a lost host: wait for it). A query
    that reached the killed host's sticky queue fails ("context canceled"): ask again, as a
    person's command would."""
    async with asyncio.timeout(WAIT):
        while True:
            try:
                status = await wait_for_interrupt(handle, timeout=WAIT)  # type: ignore[arg-type]
                pending = status.pending_interrupt
                assert pending is not None
                question = (await interrupt_status(agents.client, pending.workflow_id)).request
                break
            except RPCError:
                await asyncio.sleep(0.5)
    await agents.resolve(pending.workflow_id, answer_all(question))


async def _started_activities(handle: WorkflowHandle[object, object]) -> list[tuple[str, float]]:
    """(worker identity, start time) of every activity the run's history started."""
    started = []
    async for event in handle.fetch_history_events():
        if event.HasField("activity_task_started_event_attributes"):
            identity = event.activity_task_started_event_attributes.identity
            started.append((identity, event.event_time.ToDatetime().timestamp()))
    return started


async def test_two_worker_hosts_share_runs_memory_and_code_and_survive_losing_one(
    tmp_path: Path,
) -> None:
    repo = make_code_repo(tmp_path)
    async with cluster(tmp_path) as (client, hosts, pg):
        agents = AgentWorkflowClient(client, QUEUE)
        memory_url = hosts.env["AGENT_MEMORY_URL"]
        hosts.start(0)
        runs = [await _start(client, f"hosts-{n}", repo) for n in range(2)]
        for handle in runs:  # every step so far on host 0: tickets, commits, memories
            await wait_for_interrupt(handle, timeout=WAIT)  # type: ignore[arg-type]
        (retained_on_0,) = pg.query(memory_url, "SELECT max(id) FROM memories")
        assert retained_on_0, "host 0's agents retained memories"

        hosts.start(1)
        hosts.kill(0)  # runs mid-way, waiting on their questions; their next steps are host 1's
        killed_at = time.time()
        for handle in runs:
            await _answer(agents, handle)
        late = await _start(client, "hosts-late", repo)  # host 1 alone, from the start
        await _answer(agents, late)
        every = [*runs, late]
        finals: list[OrchestratorCollectorResult] = [
            await asyncio.wait_for(h.result(), WAIT)  # type: ignore[misc]
            for h in every
        ]
        for handle, final in zip(every, finals, strict=True):
            change = final.code_change
            assert change is not None and change.merged_tickets == ["T-001", "T-002"], handle.id
            assert change.verification is not None and change.verification.startswith("VERIFIED")

        started = [await _started_activities(handle) for handle in every]
        hosts_of = [_hosts_of(steps, hosts, killed_at) for steps in started]
        assert hosts_of == [{0, 1}, {0, 1}, {1}], "steps on both hosts; the late run on host 1"

        shared = ToolSettings(workspaces_dir=Path(hosts.env["AGENT_WORKSPACES_DIR"]))
        for handle in every:  # no duplicated side effect: one commit per ticket
            assert _ticket_commits(shared, repo, handle.id) == [1, 1], handle.id
        duplicated = pg.query(
            memory_url,
            "SELECT node_id || ' ' || content FROM memories GROUP BY node_id, content "
            "HAVING count(*) > 1",
        )
        assert duplicated == [], "a step's memories were written once"
        # an insight written through host 1 links memories retained through host 0, so host 1
        # recalled them (host 0 wrote nothing after retained_on_0: its runs waited, then it died)
        crossing = pg.query(
            memory_url,
            "SELECT count(*) FROM memory_links l JOIN memories i ON i.id = l.a WHERE "
            f"i.kind = 'insight' AND i.id > {retained_on_0:d} AND l.b <= {retained_on_0:d}",
        )
        assert crossing[0] > 0


def _hosts_of(started: list[tuple[str, float]], hosts: WorkerHosts, killed_at: float) -> set[int]:
    """The hosts that ran a run's activities; none on a host after its death."""
    ran: set[int] = set()
    for who, when in started:
        host = next(n for n in hosts.workers if who.startswith(hosts.identity(n)))
        assert host != 0 or when < killed_at, f"{who} ran a step after it was killed"
        ran.add(host)
    return ran


def _ticket_commits(shared: ToolSettings, repo: Path, run_id: str) -> list[int]:
    """The commits on each ticket branch of the run, in the agents' repository on the mount."""
    (tickets,) = [
        p for p in (shared.workspace_cache / "agents").glob("*.git") if ".runs." not in p.name
    ]
    base = git(repo, "rev-parse", "HEAD")
    return [
        len(git(tickets, "log", "--format=%H", f"{base}..agents/{run_id}/{t}").split())
        for t in ("T-001", "T-002")
    ]
