"""Heartbeat while awaiting something slow, so cancellation reaches the activity promptly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from temporalio import activity


@asynccontextmanager
async def heartbeating(interval: timedelta) -> AsyncIterator[None]:
    """Send a heartbeat every ``interval`` while the block runs."""

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(interval.total_seconds())

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
