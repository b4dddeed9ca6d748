"""Heartbeat while awaiting something slow: cancellation reaches the activity promptly, and a
worker that dies is noticed within the heartbeat timeout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from agent_interrupts.activities.attempts import beat as send_beat


@asynccontextmanager
async def heartbeating(interval: timedelta) -> AsyncIterator[None]:
    """Send a heartbeat every ``interval`` while the block runs."""

    async def beat() -> None:
        while True:
            send_beat()
            await asyncio.sleep(interval.total_seconds())

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
