"""Smoke test for the memory bench: tiny counts on both stores, a sane report."""

from __future__ import annotations

from bench.memory import measure, report
from tests.support.postgres import PostgresServer


def test_memory_bench_times_recall_in_both_stores(postgres: PostgresServer) -> None:
    times = measure(postgres.create_database(), memories=300, queries=5)
    assert list(times) == ["SQLite", "PostgreSQL"]
    assert all(len(t.recall) == 5 and t.fill_seconds > 0 for t in times.values())
    text = report(times, 300)
    assert "SQLite: recall over 300 memories" in text and "PostgreSQL: recall over 300" in text
    assert "p95 PostgreSQL / SQLite:" in text
