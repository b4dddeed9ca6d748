"""Smoke test for the encryption bench: each figure is reported, the ratios beside their aims."""

from __future__ import annotations

from temporalio.client import Client

from bench.encryption import measure


async def test_bench_reports_on_against_off_and_the_codec_servers_decode(client: Client) -> None:
    lines = await measure(client, runs=2, rounds=1, decodes=1)
    text = "\n".join(lines)
    assert "per step (median of 1 runs each, interleaved): on " in text
    assert "throughput (2 runs at once, twice each): on " in text
    assert text.count("(aim ") == 2
    assert "codec server decode of a 200-event history (" in text
    assert text.count("load average") == 2
