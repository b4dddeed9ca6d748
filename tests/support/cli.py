"""Run ``client.py`` in a subprocess against the test session's Temporal server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from temporalio.client import Client

ROOT = Path(__file__).resolve().parent.parent.parent


def client_env(client: Client) -> dict[str, str]:
    """This environment less Temporal, OpenAI and inbox settings, with TEMPORAL_ADDRESS
    pointing at ``client``'s server."""
    prefixes = ("TEMPORAL_", "OPENAI_", "AGENTS_INBOX_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env["TEMPORAL_ADDRESS"] = client.service_client.config.target_host
    env["COLUMNS"] = "200"
    return env


async def client_py(client: Client, *args: str) -> subprocess.CompletedProcess[str]:
    """``python client.py ARGS`` with TEMPORAL_ADDRESS pointing at ``client``'s server."""
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(ROOT / "client.py"), *args],
        capture_output=True,
        text=True,
        env=client_env(client),
        timeout=60,
        cwd=ROOT,
    )
