"""Encryption's cost: agent steps with every payload encrypted against the same runs without keys,
and the codec server's decode of a 200-event history.

Run it with ``python -m bench.encryption [--runs N] [--rounds N] [--decodes N]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (in memory),
with in-process workers (``app.worker_setup.build_worker``, offline model, no sleeps) on fresh task
queues; "on" is a client and worker whose converter has a key (``data_converter(ring)``), "off"
the same converter without keys (what every process uses with ``AGENTS_ENCRYPTION_KEYS`` unset):

1. **Per step.** One run at a time, on and off alternating (``--rounds`` pairs, default 6, after a
   warm-up of each), each run's span (its first to its last event, server times) / the agent
   calls its history scheduled. Medians; ``on / off``: aim <= 1.05x.
2. **Throughput.** ``--runs`` (default 40) runs started at once, on, then off, then on and off
   again: agent steps / span (first start to last close). ``on / off`` of the summed rates: aim
   >= 0.95x (the same 1.05x the other way round).
3. **Codec server decode.** A run whose history reaches at least 200 events (a looping offline
   model), every payload of its first 200 events (activity inputs and results, the start, child
   results, updates) sent to the codec server's ``POST /decode`` over real HTTP with the token,
   as one request, ``--decodes`` times (default 10) after a warm-up: the median time, with the
   payload count and bytes.

The machine is shared: the load average is printed, and the ratios compare runs of the same shape
taken in the same minutes (interleaved), so the load falls on both sides.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn
from google.protobuf import json_format
from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.codec import EncryptionCodec
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.inbox.codec_server import CodecServer, codec_app
from agent_interrupts.app.inbox.web import listening
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import (
    bench_parser,
    fresh_id,
    load_average,
    run_on_dev_server,
    versions,
    versus_aim,
)

GOAL = "add rate limiting to the gateway"
RING = KeyRing((("bench-1", os.urandom(32)),))
TOKEN = "bench-codec-token-0123456789"
HISTORY_EVENTS = 200
WAIT_TIMEOUT = 600.0


def _client(client: Client, ring: KeyRing | None) -> Client:
    config = client.config()
    config["data_converter"] = data_converter(ring)
    return Client(**config)


async def _steps(handle: WorkflowHandle[Any, Any]) -> tuple[int, float]:
    """The agent calls a run's history scheduled, and its span in seconds (server times)."""
    events = [e async for e in handle.fetch_history_events()]
    steps = sum(
        e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_type.name == "run_agent"
        for e in events
    )
    seconds = (
        events[-1].event_time.ToDatetime() - events[0].event_time.ToDatetime()
    ).total_seconds()
    return steps, seconds


async def _run_once(client: Client, queue: str) -> float:
    """One run to its end: seconds per agent step."""
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL),
        id=fresh_id("bench-enc"),
        task_queue=queue,
    )
    await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)
    steps, seconds = await _steps(handle)
    return seconds / max(steps, 1)


async def _rate(client: Client, queue: str, runs: int) -> tuple[int, float]:
    """``runs`` runs at once: agent steps, and seconds from the first start to the last close."""
    handles = await asyncio.gather(
        *(
            client.start_workflow(
                OrchestratorWorkflow.run,
                OrchestratorInput(goal=GOAL),
                id=fresh_id("bench-enc"),
                task_queue=queue,
            )
            for _ in range(runs)
        )
    )
    await asyncio.wait_for(asyncio.gather(*(h.result() for h in handles)), WAIT_TIMEOUT)
    described = await asyncio.gather(*(h.describe() for h in handles))
    counted = await asyncio.gather(*(_steps(h) for h in handles))
    closes = [d.close_time for d in described if d.close_time is not None]
    span = (max(closes) - min(d.start_time for d in described)).total_seconds()
    return sum(steps for steps, _ in counted), span


def _payloads(message: Message) -> Iterator[Payload]:
    if isinstance(message, Payload):
        yield message
        return
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            for item in value.values():
                if isinstance(item, Message):
                    yield from _payloads(item)
        elif field.is_repeated:
            for item in value:
                yield from _payloads(item)
        else:
            yield from _payloads(value)


async def _decode_times(
    client: Client, decodes: int
) -> tuple[int, list[Payload], int, list[float]]:
    """A run of at least HISTORY_EVENTS events under RING; its payloads decoded by the codec
    server over HTTP ``decodes`` times: (events, payloads, bytes, seconds each)."""
    sealed = _client(client, RING)
    queue = fresh_id("bench-enc-long")
    offline = OfflineModel(OfflineScenario(loop=40))
    async with build_worker(sealed, queue, LlmSettings(), offline=offline):
        handle = await sealed.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL, max_steps=200),
            id=fresh_id("bench-enc-long"),
            task_queue=queue,
        )
        await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)
    history = [e async for e in client.get_workflow_handle(handle.id).fetch_history_events()]
    if len(history) < HISTORY_EVENTS:
        raise RuntimeError(f"the long run has {len(history)} events, under {HISTORY_EVENTS}")
    events = history[:HISTORY_EVENTS]
    payloads = [
        p for e in events for p in _payloads(e) if p.metadata.get("encoding") == b"binary/encrypted"
    ]
    body = json_format.MessageToJson(Payloads(payloads=payloads), indent=None)
    settings = InboxSettings(port=_free_port(), token=TOKEN)
    server = uvicorn.Server(
        uvicorn.Config(
            codec_app(CodecServer(EncryptionCodec(RING), settings, client.namespace)),
            log_level="warning",
            lifespan="off",
        )
    )
    times = []
    with listening(settings) as sock:
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{settings.port}") as http:
                headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
                for n in range(decodes + 1):
                    started = time.perf_counter()
                    response = await http.post("/decode", content=body, headers=headers)
                    elapsed = time.perf_counter() - started
                    response.raise_for_status()
                    if n:
                        times.append(elapsed)
        finally:
            server.should_exit = True
            await serving
    steps = sum(
        e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_type.name == "run_agent"
        for e in events
    )
    return steps, payloads, len(body), times


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def measure(
    client: Client, *, runs: int = 40, rounds: int = 6, decodes: int = 10
) -> list[str]:
    lines = [
        "encryption: every payload AES-256-GCM (on) against the same converter without keys (off)",
        versions(event_times=True),
        f"load average before: {load_average()} (a shared machine: figures are busy ones)",
    ]
    on, off = _client(client, RING), _client(client, None)
    on_queue, off_queue = fresh_id("bench-enc-on"), fresh_id("bench-enc-off")
    async with (
        build_worker(on, on_queue, LlmSettings(), offline=OfflineModel()),
        build_worker(off, off_queue, LlmSettings(), offline=OfflineModel()),
    ):
        await _run_once(on, on_queue)
        await _run_once(off, off_queue)
        per_step: dict[str, list[float]] = {"on": [], "off": []}
        for _ in range(rounds):
            per_step["on"].append(await _run_once(on, on_queue))
            per_step["off"].append(await _run_once(off, off_queue))
        on_ms = statistics.median(per_step["on"]) * 1000
        off_ms = statistics.median(per_step["off"]) * 1000
        lines.append(
            f"per step (median of {rounds} runs each, interleaved): on {on_ms:.1f} ms, "
            f"off {off_ms:.1f} ms; on / off {versus_aim(on_ms / off_ms, 1.05)}"
        )
        totals = {"on": [0, 0.0], "off": [0, 0.0]}
        for _ in range(2):
            for name, sealed, queue in (("on", on, on_queue), ("off", off, off_queue)):
                steps, seconds = await _rate(sealed, queue, runs)
                totals[name][0] += steps
                totals[name][1] += seconds
        rate_on = totals["on"][0] / totals["on"][1]
        rate_off = totals["off"][0] / totals["off"][1]
        ratio = versus_aim(rate_on / rate_off, 0.95, at_least=True)
        lines.append(
            f"throughput ({runs} runs at once, twice each): on {rate_on:.1f} steps/s, off "
            f"{rate_off:.1f} steps/s; on / off {ratio}"
        )
    steps, payloads, size, times = await _decode_times(client, decodes)
    codec = EncryptionCodec(RING)
    opened = codec.decode_now(payloads)
    started = time.process_time()
    for _ in range(10):
        codec.decode_now(codec.encode_now(opened))
    cpu = (time.process_time() - started) / 10 / len(payloads)
    lines.append(
        f"the codec's own CPU time: encrypt + decrypt {cpu * 1e6:.0f} us per payload "
        f"(process time, the long run's {len(payloads)} payloads, "
        f"{sum(len(p.data) for p in opened) // len(payloads)} bytes each on average); "
        f"{cpu * 1e3 * len(payloads) / max(1, steps):.2f} ms per agent step ({steps} steps)"
    )
    lines.append(
        f"codec server decode of a {HISTORY_EVENTS}-event history ({len(payloads)} payloads, "
        f"{size} bytes of JSON, one POST /decode): median {statistics.median(times) * 1000:.1f} ms "
        f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}, {len(times)} times)"
    )
    lines.append(f"load average after: {load_average()}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.encryption",
        "Encryption on against off, and the codec server's decode of a 200-event history.",
        ("--runs", 40, "runs started at once for the throughput"),
        ("--rounds", 6, "runs one at a time on and off for the per-step time"),
        ("--decodes", 10, "decodes of the long history's payloads"),
    )
    args = parser.parse_args(argv)
    lines = run_on_dev_server(measure, runs=args.runs, rounds=args.rounds, decodes=args.decodes)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
