"""The embedded Temporal dev server used when no TEMPORAL_ADDRESS is set."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from app.binaries import temporal_cli

PREFERRED_PORT = 7233
PREFERRED_UI_PORT = 8233


def _free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _any_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def embedded_server(state_dir: Path) -> AsyncIterator[tuple[WorkflowEnvironment, str]]:
    """`temporal server start-dev` with a SQLite file under ``state_dir``; yields (env, UI url)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    port = PREFERRED_PORT if _free(PREFERRED_PORT) else _any_port()
    ui_port = PREFERRED_UI_PORT if _free(PREFERRED_UI_PORT) else _any_port()
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        port=port,
        ui=True,
        ui_port=ui_port,
        dev_server_database_filename=str(state_dir / "temporal.db"),
    )
    async with env:
        yield env, f"http://localhost:{ui_port}"
