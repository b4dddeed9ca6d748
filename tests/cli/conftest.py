"""One local stack (``agents up``) shared by the CLI tests, on free ports, stopped at the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.support import agents, free_port, stack_env


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of commands that use a running local stack."""
    env = stack_env(tmp_path_factory.mktemp("stack"), free_port(), free_port())
    up = agents(env, "up")
    assert up.returncode == 0, up.stderr
    yield env
    agents(env, "down")


@pytest.fixture
def fresh_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A state directory with no stack yet; whatever a test starts is stopped afterwards."""
    env = stack_env(tmp_path, free_port(), free_port())
    yield env
    agents(env, "down")
