"""Memory bench: recall over many memories, PostgreSQL against the embedded SQLite.

Both stores get the same ``--memories`` episodes (eight words of a 24-word vocabulary each, one
space, retained one by one through ``retain`` as the tools do) and answer the same ``--queries``
two-word recalls; the report gives p50/p95 per recall in each and the PostgreSQL/SQLite ratio,
and the retains per second of the fill. The PostgreSQL store is the server ``--postgres URL``
names (it should be an empty database), or with ``--postgres auto`` (the default) Debian's
PostgreSQL started in a temporary directory on a free loopback port, as the tests do; after the
fill the bench runs ``ANALYZE``, as autovacuum would on a server that takes many inserts.

``python -m bench.memory [--memories 100000] [--queries 200] [--postgres auto|URL]``
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

from agent_interrupts.activities.tools.memory import MemoryStore, SqliteMemory
from agent_interrupts.activities.tools.memory_postgres import PostgresMemory
from bench.harness import load_average, positive_int, versions, versus_aim
from bench.tools import fill_memory, percentile, time_recalls

RECALL_P95_AIM = 0.050
"""Seconds: the issue's aim for one recall's p95 over 100,000 memories, in either store."""


@dataclass(frozen=True)
class StoreTimes:
    """One store's figures: seconds per recall, and how long the fill took."""

    recall: list[float]
    fill_seconds: float


def measure_store(
    store: MemoryStore,
    *,
    memories: int,
    queries: int,
    after_fill: Callable[[], None] = lambda: None,
) -> StoreTimes:
    """Fill ``store`` with ``memories`` episodes, then (after ``after_fill``) time ``queries``
    recalls."""
    started = time.perf_counter()
    fill_memory(store, memories)
    fill_seconds = time.perf_counter() - started
    after_fill()
    return StoreTimes(time_recalls(store, queries), fill_seconds)


def measure(postgres_url: str, *, memories: int, queries: int) -> dict[str, StoreTimes]:
    """Both stores' figures, SQLite first, on the same memories and queries."""
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = SqliteMemory(Path(tmp) / "memory.sqlite3")
        try:
            lite = measure_store(sqlite, memories=memories, queries=queries)
        finally:
            sqlite.close()
    postgres = PostgresMemory(postgres_url)
    try:
        pg = measure_store(
            postgres, memories=memories, queries=queries, after_fill=lambda: _analyze(postgres_url)
        )
    finally:
        postgres.close()
    return {"SQLite": lite, "PostgreSQL": pg}


def _analyze(url: str) -> None:
    """Give the planner the table's statistics, as autovacuum does on a server after many inserts
    (the tests' server runs without it)."""
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("ANALYZE memories")


def report(times: dict[str, StoreTimes], memories: int) -> str:
    lines = ["Memory bench: recall over many memories", versions()]
    for name, t in times.items():
        p95 = versus_aim(percentile(t.recall, 0.95) * 1000, RECALL_P95_AIM * 1000, unit=" ms")
        lines.append(
            f"{name}: recall over {memories:,} memories p50 {percentile(t.recall, 0.5) * 1000:.2f}"
            f" ms, p95 {p95} ({len(t.recall)} queries); fill {memories / t.fill_seconds:,.0f}"
            " retains/s"
        )
    lite, pg = times["SQLite"], times["PostgreSQL"]
    ratio = percentile(pg.recall, 0.95) / percentile(lite.recall, 0.95)
    lines.append(f"p95 PostgreSQL / SQLite: {ratio:.2f}x (load average {load_average()})")
    return "\n".join(lines)


@contextlib.contextmanager
def postgres_url(given: str) -> Iterator[str]:
    """The URL of the PostgreSQL store: ``given``, or a fresh server's database with ``auto``."""
    if given != "auto":
        yield given
        return
    from tests.support.postgres import pg_bin, postgres_server  # only the bench's own server

    found = pg_bin()
    if found is None:
        raise SystemExit(
            "--postgres auto needs Debian's PostgreSQL (apt-get install postgresql); "
            "or give --postgres postgresql://user:password@host:port/database"
        )
    with postgres_server(found) as server:
        yield server.create_database()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.memory",
        description="Recall p50/p95 over many memories: PostgreSQL against the embedded SQLite.",
    )
    parser.add_argument("--memories", type=positive_int, default=100_000, help="(default 100000)")
    parser.add_argument("--queries", type=positive_int, default=200, help="(default 200)")
    parser.add_argument(
        "--postgres",
        default="auto",
        metavar="auto|URL",
        help="the PostgreSQL database (empty), or auto: start Debian's PostgreSQL (default auto)",
    )
    args = parser.parse_args(argv)
    with postgres_url(args.postgres) as url:
        times = measure(url, memories=args.memories, queries=args.queries)
    print(report(times, args.memories))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
