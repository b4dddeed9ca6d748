"""Smoke test for the interrupt round-trip bench: it runs and measures something sane.

tiktoken is only in the ``bench`` extra: nothing here imports it, and the bench falls back to
counting bytes when it is missing or cannot load an encoding offline.
"""

from __future__ import annotations

import sys

import pytest
from temporalio.client import Client

from activities.route_filter import ROUTE_OF
from bench.interrupt_round_trip import measure, measure_schema_sizes, report, token_counter


async def test_bench_measures_both_medians_and_every_schema(client: Client) -> None:
    result = await measure(client, runs=1, bare=2, interrupt_warmups=0, bare_warmups=0)

    assert len(result.interrupt_runs) == 1
    assert len(result.bare_seconds) == 2
    assert result.interrupt_median > 0
    assert result.bare_median > 0
    assert all(r.next_activity == "run_agent" for r in result.interrupt_runs)
    assert [r.origin for r in result.schema.rows] == list(ROUTE_OF)
    assert len(result.schema.rows) == 14
    for row in result.schema.rows:
        assert 0 < row.filtered < row.unfiltered, row
    text = report(result)
    assert "ratio interrupt round trip / bare signal round trip:" in text
    assert "mean ratio filtered / unfiltered:" in text


def test_schema_sizes_fall_back_to_bytes_without_tiktoken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # import tiktoken -> ImportError

    count, unit, note = token_counter()
    sizes = measure_schema_sizes((count, unit, note))

    assert unit == "bytes"
    assert note
    assert count("héllo") == 6
    assert all(0 < r.filtered < r.unfiltered for r in sizes.rows)
    assert 0 < sizes.mean_ratio < 1
