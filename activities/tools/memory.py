"""Episodic memory (agents US2): retain episodes, recall them by text, reflect to link them.

``MemoryStore`` is the whole interface the tools use; ``open_memory(url)`` picks the backend from
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

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
class Recalled:
    memories: list[Memory]
    """The best matches, best first."""
    linked: list[Memory]
    """Memories linked to a match (through a reflection) that did not match themselves."""


class MemoryStore(Protocol):
    """What the memory tools need from a store; a server-backed store implements the same."""

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
    ) -> int: ...

    def recall(
        self, space: str, query: str, limit: int = RECALL_LIMIT, before: float | None = None
    ) -> Recalled: ...

    def reflect(
        self, key: str, space: str, memory_ids: list[int], insight: str, *, agent: str, node_id: str
    ) -> int: ...


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
    WHERE memories_fts MATCH ? AND m.space = ? AND m.created < ? ORDER BY f.rowid DESC LIMIT ?
) ORDER BY score, id LIMIT ?
"""
"""The best of the newest matches: FTS5 walks its matches newest first and stops at the window,
so bm25 is computed for the window only."""
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


class SqliteMemory:
    """The embedded store: one SQLite file (WAL), full-text search with FTS5 and bm25 ranking
    of the newest ``recall_window`` matches."""

    def __init__(self, path: Path, recall_window: int = RECALL_WINDOW) -> None:
        self._window = recall_window
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            path, check_same_thread=False, timeout=SQLITE_BUSY_SECONDS, isolation_level=None
        )
        self._lock = threading.Lock()
        with self._lock:
            _wal(self._db)
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL: survives a crash of the worker
            self._db.executescript(_SCHEMA)

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
        return self._insert(key, space, "episode", content, agent, node_id, context_ids, files)

    def reflect(
        self, key: str, space: str, memory_ids: list[int], insight: str, *, agent: str, node_id: str
    ) -> int:
        """Store ``insight`` once per ``key`` and link it with each memory of ``memory_ids``."""
        with self._lock:
            known = {
                row[0]
                for row in self._db.execute(
                    f"SELECT id FROM memories WHERE space = ? AND id IN ({_marks(memory_ids)})",
                    [space, *memory_ids],
                )
            }
        check_reflected(memory_ids, known)
        insight_id = self._insert(key, space, "insight", insight, agent, node_id, [], [])
        with self._lock:
            self._db.executemany(
                "INSERT OR IGNORE INTO links (a, b) VALUES (?, ?)",
                [pair for m in sorted(known) for pair in ((insight_id, m), (m, insight_id))],
            )
        return insight_id

    def recall(
        self, space: str, query: str, limit: int = RECALL_LIMIT, before: float | None = None
    ) -> Recalled:
        """The memories of ``space`` that best match ``query``'s words, and those linked to them;
        with ``before`` (a Unix time), only memories retained earlier."""
        words = recall_words(query)
        if not words:
            return Recalled([], [])
        match = " OR ".join(f'"{w}"' for w in words)
        with self._lock:
            rows = self._db.execute(
                _RECALL,
                (match, space, before if before is not None else float("inf"), self._window, limit),
            ).fetchall()
            found = [self._memory(row) for row in rows]
            hit_ids = {m.id for m in found}
            linked_ids = sorted({i for m in found for i in m.linked} - hit_ids)[:limit]
            linked = [
                self._memory(row)
                for row in self._db.execute(
                    f"SELECT * FROM memories WHERE id IN ({_marks(linked_ids)}) AND created < ? "
                    "ORDER BY id",
                    [*linked_ids, before if before is not None else float("inf")],
                )
            ]
        return Recalled(found, linked)

    def _insert(
        self,
        key: str,
        space: str,
        kind: str,
        content: str,
        agent: str,
        node_id: str,
        context_ids: list[str],
        files: list[str],
    ) -> int:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO memories (key, space, kind, content, agent, node_id, "
                "context_ids, files, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    space,
                    kind,
                    content,
                    agent,
                    node_id,
                    json.dumps(context_ids),
                    " ".join(files),
                    time.time(),
                ),
            )
            row = self._db.execute("SELECT id FROM memories WHERE key = ?", (key,)).fetchone()
        return int(row[0])

    def _memory(self, row: tuple[object, ...]) -> Memory:
        memory_id = int(str(row[0]))
        links = self._db.execute("SELECT b FROM links WHERE a = ? ORDER BY b", (memory_id,))
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

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _marks(values: list[int]) -> str:
    return ",".join("?" * len(values)) or "NULL"
