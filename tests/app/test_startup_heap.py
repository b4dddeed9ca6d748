"""A built worker's startup heap is frozen out of the collector's full passes
(app/startup_heap.py): a full pass then walks what the runs made, not the whole process."""

from __future__ import annotations

import asyncio
import gc

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.startup_heap import freeze_startup_heap
from agent_interrupts.app.worker_setup import build_worker
from tests.support.interrupts import start


async def test_a_built_worker_leaves_its_startup_heap_out_of_full_collections(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        frozen = gc.get_freeze_count()
        handle = await start(client, task_queue, workflow_id)
        assert (await asyncio.wait_for(handle.result(), 120)).summary  # runs as before
    assert frozen > 100_000  # the SDKs, schemas and templates a worker imported (143,000)
    assert not freeze_startup_heap()  # once per process: later workers' garbage is not pinned


def test_the_collector_still_frees_what_is_made_after_the_freeze() -> None:
    freeze_startup_heap()

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    Cycle()
    assert gc.collect() >= 1
