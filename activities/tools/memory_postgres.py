"""Episodic memory on a PostgreSQL server (``AGENT_MEMORY_URL=postgresql://...``): the store that
workers on several machines share.

It behaves as ``SqliteMemory`` does (the same contract tests run against both): retain and
reflect are idempotent by key, recall ranks the newest ``recall_window`` memories of a space
that contain any of the query's words (``tsvector`` with the ``simple`` configuration over the
text split at every character that is not a letter or digit, as SQLite's tokenizer splits it;
ranked by ``ts_rank``, ties by id) and adds the memories linked to them. Two tables,
``memories`` and ``memory_links``, are created on first use under an advisory lock, so workers
starting together do not race. Times are the database server's clock, one clock for every worker.
Connections come from a pool; a server that cannot be reached raises ``MemoryUnavailable`` with
one line naming ``AGENT_MEMORY_URL`` and never its password.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from agent_interrupts.activities.redaction import redact
from agent_interrupts.activities.tools.memory import (
    RECALL_WINDOW,
    AsOf,
    Memory,
    MemoryBackend,
    NewMemory,
    fork_terms,
)

POOL_SIZE = 10
"""Connections one worker keeps at most (memory tools run in the activities' threads)."""
CONNECT_TIMEOUT = 10
"""Seconds to wait for the server (a new connection, or a free one from the pool)."""

Connection = psycopg.Connection[dict[str, Any]]
_OPTIONS: dict[str, Any] = {
    "autocommit": True,
    "row_factory": dict_row,
    "connect_timeout": CONNECT_TIMEOUT,
}
"""How every connection is made: a statement commits unless a transaction is opened."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    space TEXT NOT NULL,
    kind TEXT NOT NULL,
    content TEXT NOT NULL,
    agent TEXT NOT NULL,
    node_id TEXT NOT NULL,
    context_ids JSONB NOT NULL,
    files TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL DEFAULT extract(epoch FROM clock_timestamp()),
    words TSVECTOR GENERATED ALWAYS AS (
        to_tsvector('simple', regexp_replace(content || ' ' || files, '[^[:alnum:]]+', ' ', 'g'))
    ) STORED
);
CREATE INDEX IF NOT EXISTS memories_words ON memories USING GIN (words);
CREATE TABLE IF NOT EXISTS memory_links (
    a BIGINT NOT NULL REFERENCES memories (id),
    b BIGINT NOT NULL REFERENCES memories (id),
    PRIMARY KEY (a, b)
);
"""
_SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(hashtext('agent-interrupts memory schema'))"
_SCHEMA_MISSING = "SELECT to_regclass('memory_links') IS NULL AS missing"
_INSERT = """
INSERT INTO memories (key, space, kind, content, agent, node_id, context_ids, files)
VALUES (%(key)s, %(space)s, %(kind)s, %(content)s, %(agent)s, %(node_id)s, %(context_ids)s,
        %(files)s)
ON CONFLICT (key) DO NOTHING RETURNING id
"""
_ID_BY_KEY = "SELECT id FROM memories WHERE key = %(key)s"
_KNOWN = "SELECT id FROM memories WHERE space = %(space)s AND id = ANY(%(ids)s::bigint[])"
_LINK = """
INSERT INTO memory_links (a, b)
SELECT %(insight)s::bigint, m FROM unnest(%(ids)s::bigint[]) m
UNION ALL SELECT m, %(insight)s::bigint FROM unnest(%(ids)s::bigint[]) m
ON CONFLICT DO NOTHING
"""
_MEMORY = """id, kind, content, agent, node_id, context_ids, files,
    ARRAY(SELECT b FROM memory_links WHERE a = m.id ORDER BY b) AS linked"""
_RECALL = f"""
SELECT {_MEMORY} FROM (
    SELECT id, kind, content, agent, node_id, context_ids, files, words FROM memories
    WHERE words @@ websearch_to_tsquery('simple', %(query)s) AND space = %(space)s
        AND created < %(before)s AND (created < %(at)s OR context_ids::text LIKE %(own)s)
    ORDER BY id DESC LIMIT %(window)s
) m
ORDER BY ts_rank(m.words, websearch_to_tsquery('simple', %(query)s)) DESC, m.id LIMIT %(limit)s
"""
"""The best of the newest matches a recall sees: ``ts_rank`` is computed for the window only.
``context_ids::text`` is the JSON text ``AsOf.own_pattern`` matches (LIKE escapes with ``\``)."""
_LINKED = f"""
SELECT {_MEMORY} FROM memories m WHERE m.id = ANY(%(ids)s::bigint[]) AND m.created < %(before)s
    AND (m.created < %(at)s OR m.context_ids::text LIKE %(own)s)
ORDER BY m.id
"""


class MemoryUnavailable(ConnectionError):
    """The PostgreSQL server cannot be reached or refuses the connection (retrying may help)."""


class PostgresMemory(MemoryBackend[Connection]):
    """The shared store: PostgreSQL full-text search (``ts_rank`` of the newest
    ``recall_window`` matches), a pool of connections."""

    def __init__(self, url: str, recall_window: int = RECALL_WINDOW) -> None:
        super().__init__(recall_window)
        try:
            params = conninfo_to_dict(url)
        except psycopg.ProgrammingError as err:
            raise ValueError(
                f"AGENT_MEMORY_URL is not a valid PostgreSQL URL ({_one_line(err)}); "
                "use postgresql://user:password@host:port/database"
            ) from None
        self._where = "{}:{}/{}".format(
            params.get("host", "localhost"), params.get("port", 5432), params.get("dbname", "")
        )
        with self._connected(lambda: psycopg.connect(url, **_OPTIONS)) as db:
            _create_schema(db)
        self._pool: ConnectionPool[Connection] = ConnectionPool(
            url,
            kwargs=_OPTIONS,
            min_size=1,
            max_size=POOL_SIZE,
            timeout=CONNECT_TIMEOUT,
            check=ConnectionPool.check_connection,  # a server restart breaks idle connections
            name="agent-memory",
            open=True,
        )

    def close(self) -> None:
        self._pool.close()

    @contextmanager
    def _connection(self) -> Iterator[Connection]:
        with self._connected(self._pool.connection) as db:
            yield db

    @contextmanager
    def _connected(
        self, connect: Callable[[], AbstractContextManager[Connection]]
    ) -> Iterator[Connection]:
        """``connect()``'s connection; a failure to reach the server becomes one line."""
        try:
            with connect() as db:
                yield db
        except (psycopg.OperationalError, PoolTimeout) as err:
            raise MemoryUnavailable(
                f"AGENT_MEMORY_URL: cannot use the PostgreSQL memory store at {self._where} "
                f"({_one_line(err)}); start the server or fix AGENT_MEMORY_URL"
            ) from None

    @contextmanager
    def _unit(self) -> Iterator[Connection]:
        with self._connection() as db, db.transaction():
            yield db

    def _insert(self, db: Connection, new: NewMemory) -> int:
        values = asdict(new) | {"context_ids": Jsonb(new.context_ids), "files": " ".join(new.files)}
        row = db.execute(_INSERT, values).fetchone() or db.execute(_ID_BY_KEY, values).fetchone()
        assert row is not None  # inserted, or there already under this key
        return int(row["id"])

    def _known(self, db: Connection, space: str, memory_ids: list[int]) -> set[int]:
        rows = db.execute(_KNOWN, {"space": space, "ids": memory_ids}).fetchall()
        return {int(row["id"]) for row in rows}

    def _link(self, db: Connection, insight_id: int, memory_ids: list[int]) -> None:
        db.execute(_LINK, {"insight": insight_id, "ids": memory_ids})

    def _matches(
        self,
        db: Connection,
        space: str,
        words: list[str],
        before: float,
        limit: int,
        as_of: AsOf | None,
    ) -> list[Memory]:
        at, own = fork_terms(as_of)
        query = {
            "query": " or ".join(f'"{w}"' for w in words),
            "space": space,
            "before": before,
            "at": at,
            "own": own,
            "window": self._window,
            "limit": limit,
        }
        return [_memory(row) for row in db.execute(_RECALL, query).fetchall()]

    def _with_ids(
        self, db: Connection, memory_ids: list[int], before: float, as_of: AsOf | None
    ) -> list[Memory]:
        at, own = fork_terms(as_of)
        query = {"ids": memory_ids, "before": before, "at": at, "own": own}
        return [_memory(row) for row in db.execute(_LINKED, query).fetchall()]


def _create_schema(db: Connection) -> None:
    """The tables, once: the advisory lock makes a second worker wait, then find them."""
    with db.transaction():
        db.execute(_SCHEMA_LOCK)
        row = db.execute(_SCHEMA_MISSING).fetchone()
        if row is None or row["missing"]:
            db.execute(_SCHEMA)


def _memory(row: dict[str, Any]) -> Memory:
    return Memory(
        id=int(row["id"]),
        kind=row["kind"],
        content=row["content"],
        agent=row["agent"],
        node_id=row["node_id"],
        context_ids=list(row["context_ids"]),
        files=str(row["files"]).split(),
        linked=[int(i) for i in row["linked"]],
    )


def _one_line(err: Exception) -> str:
    return redact(" ".join(str(err).split()))
