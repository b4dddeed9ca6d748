"""Episodic memory (agents US2): retain episodes, recall them by text, reflect to link them.

``MemoryStore`` is the whole interface the tools use, and ``MemoryBackend`` implements it once
for both stores, each supplying its queries; ``open_memory(url)`` picks the backend from
``AGENT_MEMORY_URL``. The embedded backend is one SQLite file with an FTS5 index: enough for the
workers of one machine; workers on several machines share a PostgreSQL server
(``memory_postgres.py``), which behaves the same. Memories live in a *space* (one per workspace
source), so runs of the same workspace share them. ``retain`` and ``reflect`` take a key (the agent
call's result id and the tool call's id): a retried activity writes nothing twice.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeAlias, TypeVar

from agent_interrupts.activities.redaction import redact

RECALL_LIMIT = 8
"""Memories one recall returns (plus the memories linked to them, at most as many again)."""
RECALL_WINDOW = 1_000
"""Newest matching memories of a space one recall ranks (``AGENT_MEMORY_RECALL_WINDOW``): a
recall costs the same at 1,000 memories and at 100,000, and recent episodes win over old ones."""


@dataclass(frozen=True)
class Memory:
    id: int
    kind: str
    """``episode`` (retained) or ``insight`` (a reflection linking episodes)."""
    content: str
    agent: str
    node_id: str
    context_ids: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    linked: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class AsOf:
    """A fork's view of the memory: what was retained before its point (``at``, a Unix time),
    and what its own run chain retained since (a context id ``wf-<own_run>/...`` among the
    memory's context ids: every memory an agent retains carries its call's context id)."""

    at: float
    own_run: str

    def sees(self, created: float, context_ids: list[str]) -> bool:
        """Whether a memory retained at ``created`` with ``context_ids`` is seen: the rule the
        stores' recall queries apply (``own_pattern``)."""
        mark = f"wf-{self.own_run}/"
        return created < self.at or any(c.startswith(mark) for c in context_ids)

    def own_pattern(self) -> str:
        """A LIKE pattern (escape ``\\``) matching the stored JSON text of context ids one of
        which is the own run chain's."""
        run = re.sub(r"([\\%_])", r"\\\1", self.own_run)
        return f'%"wf-{run}/%'


def fork_terms(as_of: AsOf | None) -> tuple[float, str]:
    """The recall queries' fork terms: ``created < at OR context_ids LIKE pattern``; not a fork:
    every time is before the point (and the pattern matches nothing)."""
    if as_of is None:
        return float("inf"), ""
    return as_of.at, as_of.own_pattern()


@dataclass(frozen=True)
class Recalled:
    memories: list[Memory]
    """The best matches, best first."""
    linked: list[Memory]
    """Memories linked to a match (through a reflection) that did not match themselves."""


def open_memory(url: str, recall_window: int = RECALL_WINDOW) -> MemoryStore:
    """The store ``url`` names: ``sqlite:///<absolute path>`` or ``postgresql://...``; a recall
    ranks the newest ``recall_window`` matching memories."""
    if url.startswith("sqlite:///"):
        return SqliteMemory(Path(url.removeprefix("sqlite://")), recall_window)
    if url.startswith(("postgresql://", "postgres://")):
        from agent_interrupts.activities.tools.memory_postgres import (
            PostgresMemory,  # the driver, only if used
        )

        return PostgresMemory(url, recall_window)
    raise ValueError(
        f"AGENT_MEMORY_URL {redact(url)!r} is not supported; use sqlite:///<path> or "
        "postgresql://user:password@host:port/database (docs/code-changes.md)"
    )


def recall_words(query: str) -> list[str]:
    """The distinct words of a recall query, lowercased, in order: a memory matching any counts."""
    return list(dict.fromkeys(_WORD.findall(query.lower())))


def check_reflected(memory_ids: list[int], known: set[int]) -> None:
    """Raise unless ``memory_ids`` is non-empty and every id is ``known`` in the space."""
    missing = sorted(set(memory_ids) - known)
    if missing or not memory_ids:
        raise ValueError(
            "reflect needs ids of existing memories (from recall or retain); unknown: "
            + (", ".join(map(str, missing)) or "none given")
        )


@dataclass(frozen=True)
class NewMemory:
    """A memory to store, as ``retain`` or ``reflect`` received it."""

    key: str
    space: str
    kind: str
    content: str
    agent: str
    node_id: str
    context_ids: list[str]
    files: list[str]


Handle = TypeVar("Handle")
"""What a backend's queries run on: a connection from its pool, or its one SQLite connection."""


class MemoryBackend(ABC, Generic[Handle]):
    """``retain``, ``reflect`` and ``recall`` once, for both stores: a backend supplies its
    queries (``_insert``, ``_known``, ``_link``, ``_matches``, ``_with_ids``) and ``_unit``, in
    which one call's queries run together (a transaction, or the SQLite connection's lock)."""

    def __init__(self, recall_window: int) -> None:
        self._window = recall_window

    def retain(
        self,
        key: str,
        space: str,
        content: str,
        *,
        agent: str,
        node_id: str,
        context_ids: list[str],
        files: list[str],
    ) -> int:
        """Store an episode once per ``key``; return its id (the first one's, on a retry)."""
        with self._unit() as db:
            new = NewMemory(key, space, "episode", content, agent, node_id, context_ids, files)
            return self._insert(db, new)

    def reflect(
        self,
        key: str,
        space: str,
        memory_ids: list[int],
        insight: str,
        *,
        agent: str,
        node_id: str,
        context_ids: list[str] | None = None,
    ) -> int:
        """Store ``insight`` once per ``key`` and link it with each memory of ``memory_ids``;
        ``context_ids``: the reflecting call's (a fork's recall knows its own insights by it)."""
        with self._unit() as db:
            known = self._known(db, space, memory_ids)
            check_reflected(memory_ids, known)
            ids = list(context_ids or [])
            new = NewMemory(key, space, "insight", insight, agent, node_id, ids, [])
            insight_id = self._insert(db, new)
            self._link(db, insight_id, sorted(known))
        return insight_id

    def recall(
        self,
        space: str,
        query: str,
        limit: int = RECALL_LIMIT,
        before: float | None = None,
        as_of: AsOf | None = None,
    ) -> Recalled:
        """The memories of ``space`` that best match ``query``'s words, and those linked to them;
        with ``before`` (a Unix time), only memories retained earlier; with ``as_of`` (a fork),
        only those it sees (``AsOf.sees``)."""
        words = recall_words(query)
        if not words:
            return Recalled([], [])
        until = before if before is not None else float("inf")
        with self._unit() as db:
            found = self._matches(db, space, words, until, limit, as_of)
            hit_ids = {m.id for m in found}
            linked_ids = sorted({i for m in found for i in m.linked} - hit_ids)[:limit]
            return Recalled(found, self._with_ids(db, linked_ids, until, as_of))

    @abstractmethod
    def _unit(self) -> AbstractContextManager[Handle]:
        """One call's queries, together."""

    @abstractmethod
    def _insert(self, db: Handle, new: NewMemory) -> int:
        """Insert ``new`` unless its key is there; its id either way."""

    @abstractmethod
    def _known(self, db: Handle, space: str, memory_ids: list[int]) -> set[int]:
        """Which of ``memory_ids`` are memories of ``space``."""

    @abstractmethod
    def _link(self, db: Handle, insight_id: int, memory_ids: list[int]) -> None:
        """Link ``insight_id`` with each of ``memory_ids``, both ways, once."""

    @abstractmethod
    def _matches(
        self,
        db: Handle,
        space: str,
        words: list[str],
        before: float,
        limit: int,
        as_of: AsOf | None,
    ) -> list[Memory]:
        """The best ``limit`` of the newest ``self._window`` memories of ``space`` retained before
        ``before`` (and seen ``as_of``) that contain any of ``words``, best first (ties: lower id
        first)."""

    @abstractmethod
    def _with_ids(
        self, db: Handle, memory_ids: list[int], before: float, as_of: AsOf | None
    ) -> list[Memory]:
        """The memories ``memory_ids`` retained before ``before`` (and seen ``as_of``), by id."""


MemoryStore: TypeAlias = MemoryBackend[Any]
"""What the memory tools use: either store."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    space TEXT NOT NULL,
    kind TEXT NOT NULL,
    content TEXT NOT NULL,
    agent TEXT NOT NULL,
    node_id TEXT NOT NULL,
    context_ids TEXT NOT NULL,
    files TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
    content, files, content='memories', content_rowid='id'
);
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content, files) VALUES (new.id, new.content, new.files);
END;
CREATE TABLE IF NOT EXISTS links (
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
"""
_RECALL = """
SELECT * FROM (
    SELECT m.*, bm25(memories_fts) AS score FROM memories_fts f JOIN memories m ON m.id = f.rowid
    WHERE memories_fts MATCH ? AND m.space = ? AND m.created < ?
        AND (m.created < ? OR m.context_ids LIKE ? ESCAPE '\\')
    ORDER BY f.rowid DESC LIMIT ?
) ORDER BY score, id LIMIT ?
"""
"""The best of the newest matches a recall sees: FTS5 walks its matches newest first and stops
at the window, so bm25 is computed for the window only."""
_WORD = re.compile(r"\w+")


SQLITE_BUSY_SECONDS = 30.0
"""How long opening the store waits for another worker that holds the file."""


def _wal(db: sqlite3.Connection) -> None:
    """Switch the file to WAL; SQLite does not wait on its busy timeout for that switch while
    another worker opens the same new file, so try again until SQLITE_BUSY_SECONDS."""
    deadline = time.monotonic() + SQLITE_BUSY_SECONDS
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class SqliteMemory(MemoryBackend[sqlite3.Connection]):
    """The embedded store: one SQLite file (WAL), full-text search with FTS5 and bm25 ranking
    of the newest ``recall_window`` matches."""

    def __init__(self, path: Path, recall_window: int = RECALL_WINDOW) -> None:
        super().__init__(recall_window)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            path, check_same_thread=False, timeout=SQLITE_BUSY_SECONDS, isolation_level=None
        )
        self._lock = threading.Lock()
        with self._lock:
            _wal(self._db)
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL: survives a crash of the worker
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _unit(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    def _insert(self, db: sqlite3.Connection, new: NewMemory) -> int:
        db.execute(
            "INSERT OR IGNORE INTO memories (key, space, kind, content, agent, node_id, "
            "context_ids, files, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.key,
                new.space,
                new.kind,
                new.content,
                new.agent,
                new.node_id,
                json.dumps(new.context_ids),
                " ".join(new.files),
                time.time(),
            ),
        )
        row = db.execute("SELECT id FROM memories WHERE key = ?", (new.key,)).fetchone()
        return int(row[0])

    def _known(self, db: sqlite3.Connection, space: str, memory_ids: list[int]) -> set[int]:
        return {
            row[0]
            for row in db.execute(
                f"SELECT id FROM memories WHERE space = ? AND id IN ({_marks(memory_ids)})",
                [space, *memory_ids],
            )
        }

    def _link(self, db: sqlite3.Connection, insight_id: int, memory_ids: list[int]) -> None:
        db.executemany(
            "INSERT OR IGNORE INTO links (a, b) VALUES (?, ?)",
            [pair for m in memory_ids for pair in ((insight_id, m), (m, insight_id))],
        )

    def _matches(
        self,
        db: sqlite3.Connection,
        space: str,
        words: list[str],
        before: float,
        limit: int,
        as_of: AsOf | None,
    ) -> list[Memory]:
        match = " OR ".join(f'"{w}"' for w in words)
        at, own = fork_terms(as_of)
        rows = db.execute(_RECALL, (match, space, before, at, own, self._window, limit))
        return [_memory(db, row) for row in rows.fetchall()]

    def _with_ids(
        self, db: sqlite3.Connection, memory_ids: list[int], before: float, as_of: AsOf | None
    ) -> list[Memory]:
        return [
            _memory(db, row)
            for row in db.execute(
                f"SELECT * FROM memories WHERE id IN ({_marks(memory_ids)}) AND created < ? "
                "AND (created < ? OR context_ids LIKE ? ESCAPE '\\') ORDER BY id",
                [*memory_ids, before, *fork_terms(as_of)],
            )
        ]


def _memory(db: sqlite3.Connection, row: tuple[object, ...]) -> Memory:
    memory_id = int(str(row[0]))
    links = db.execute("SELECT b FROM links WHERE a = ? ORDER BY b", (memory_id,))
    return Memory(
        id=memory_id,
        kind=str(row[3]),
        content=str(row[4]),
        agent=str(row[5]),
        node_id=str(row[6]),
        context_ids=json.loads(str(row[7])),
        files=str(row[8]).split(),
        linked=[int(r[0]) for r in links],
    )


def _marks(values: list[int]) -> str:
    return ",".join("?" * len(values)) or "NULL"
