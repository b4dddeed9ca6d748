"""Episodic memory, for real (agents FR-008, agents FR-010): one contract that the
embedded SQLite store and the PostgreSQL store both keep."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent_interrupts.activities.tools.memory import (
    RECALL_WINDOW,
    AsOf,
    MemoryStore,
    Recalled,
    open_memory,
)
from tests.support.postgres import PostgresServer

Opener = Callable[..., MemoryStore]


@pytest.fixture(params=["sqlite", "postgres"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens a store on one fresh memory (a SQLite file, or a new PostgreSQL database), as
    ``AGENT_MEMORY_URL`` names it; every store opened is closed at the end."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres")
        url = server.create_database()
    opened: list[MemoryStore] = []

    def opener(recall_window: int = RECALL_WINDOW) -> MemoryStore:
        opened.append(open_memory(url, recall_window))
        return opened[-1]

    yield opener
    for store in opened:
        store.close()  # type: ignore[attr-defined]


@pytest.fixture
def store(open_store: Opener) -> MemoryStore:
    return open_store()


def _retain(store: MemoryStore, key: str, content: str, space: str = "shop") -> int:
    return store.retain(
        key, space, content, agent="DISCOVERY_AGENT", node_id="n-1", context_ids=[], files=["a.py"]
    )


def test_retain_and_reflect_are_idempotent_by_key(store: MemoryStore) -> None:
    first = _retain(store, "step-1/call_0", "the gateway has no rate limit")
    assert _retain(store, "step-1/call_0", "the gateway has no rate limit") == first  # a retry
    other = _retain(store, "step-2/call_0", "settings hold requests_per_minute")
    insight, again = (  # the second: a retried activity reflecting again under the same key
        store.reflect(
            "step-2/call_1",
            "shop",
            [first, other],
            "the limit exists, unused",
            agent="DISCOVERY_AGENT",
            node_id="n-2",
        )
        for _ in range(2)
    )
    assert again == insight
    assert (
        len(store.recall("shop", "gateway limit settings insight unused", limit=50).memories) == 3
    )
    assert store.recall("shop", "gateway").memories[0].linked == [insight]  # linked once


def test_recall_ranks_the_newest_matches_of_its_space_within_the_window(
    open_store: Opener,
) -> None:
    """A recall ranks at most AGENT_MEMORY_RECALL_WINDOW matches, the newest
    of its space, so it costs the same at any size; the best of them come first."""
    store = open_store(recall_window=3)
    best_but_old = _retain(store, "k0", "cache cache cache cache the gateway cache")
    newer = [_retain(store, f"k{n}", f"the gateway cache, episode {n}") for n in range(1, 4)]
    for n in range(5):  # newer still, but of other spaces or matching nothing: not in the window
        _retain(store, f"other-{n}", "the gateway cache elsewhere", space="elsewhere")
        _retain(store, f"miss-{n}", "settings hold requests_per_minute")
    recalled = [m.id for m in store.recall("shop", "cache", limit=10).memories]
    assert sorted(recalled) == newer, "the three newest matches of the space, no older one"
    ranked = [m.id for m in open_store().recall("shop", "cache").memories]
    assert ranked[:1] == [best_but_old], "in the default window the best match comes first"


def test_recall_returns_matches_and_the_memories_linked_to_them(store: MemoryStore) -> None:
    gateway = _retain(store, "k1", "the gateway handles every request")
    config = _retain(store, "k2", "requests_per_minute is configured in settings")
    _retain(store, "k3", "gateway in another workspace", space="elsewhere")
    insight = store.reflect(
        "k4",
        "shop",
        [gateway, config],
        "throttle where the config is read",
        agent="REVIEW_AGENT",
        node_id="n-3",
    )
    found = store.recall("shop", "gateway")
    assert [m.id for m in found.memories] == [gateway]
    assert found.memories[0].linked == [insight]
    assert [m.id for m in found.linked] == [insight]
    assert found.linked[0].kind == "insight" and found.linked[0].linked == [gateway, config]
    assert found.linked[0].agent == "REVIEW_AGENT" and found.linked[0].node_id == "n-3"


def test_recall_ranks_by_words_matched_then_by_id_and_caps_both_lists(store: MemoryStore) -> None:
    one = [_retain(store, f"one-{i}", f"payments note {i}") for i in range(3)]
    both = _retain(store, "both", "payments retry on timeout")
    assert [m.id for m in store.recall("shop", "Payments, RETRY!").memories] == [both, *one]
    assert [m.id for m in store.recall("shop", "payments retry", limit=2).memories] == [
        both,
        one[0],
    ]
    insights = [
        store.reflect(f"r-{i}", "shop", [both], f"insight {i}", agent="A", node_id="n")
        for i in range(3)
    ]
    found = store.recall("shop", "timeout", limit=2)
    assert [m.id for m in found.memories] == [both]
    assert [m.id for m in found.linked] == insights[:2]  # at most ``limit`` linked, by id
    assert store.recall("shop", "  ...  ") == store.recall("shop", "absent") == Recalled([], [])


def test_recall_searches_files_and_keeps_what_was_retained(store: MemoryStore) -> None:
    memory_id = store.retain(
        "k",
        "shop",
        "the handler is thin",
        agent="A",
        node_id="n-7",
        context_ids=["wf-1/A/0/t", "wf-1/B/1/t"],
        files=["src/gateway.py", "README.md"],
    )
    (memory,) = store.recall("shop", "gateway").memories  # a word of a file's path
    assert memory.id == memory_id and memory.kind == "episode"
    assert memory.files == ["src/gateway.py", "README.md"]
    assert memory.context_ids == ["wf-1/A/0/t", "wf-1/B/1/t"] and memory.linked == []


def test_recall_before_a_time_leaves_out_later_memories(store: MemoryStore) -> None:
    early = _retain(store, "early", "cache warmed at start")
    time.sleep(0.05)
    cut = time.time()
    time.sleep(0.05)
    later = _retain(store, "later", "cache flushed later")
    insight = store.reflect("r", "shop", [early, later], "cache cycle", agent="A", node_id="n")
    found = store.recall("shop", "cache", before=cut)
    assert [m.id for m in found.memories] == [early] and found.linked == []
    assert found.memories[0].linked == [insight]  # its links are listed, later ones too
    assert {m.id for m in store.recall("shop", "cache").memories} == {early, later, insight}


def test_a_forks_recall_sees_the_memories_as_of_its_point_and_its_own_since(
    store: MemoryStore,
) -> None:
    """A fork: the parent's memories retained before the point, none of the
    parent's after it, and its own run chain's (named by a context id) after it too; insights
    are known by the reflecting call's context id as episodes are."""
    fork = "fork_run%"  # _ and % in the run id match only themselves

    def retain(key: str, run: str) -> int:
        return store.retain(
            key,
            "shop",
            f"cache note {key}",
            agent="A",
            node_id="n",
            context_ids=["wf-x%_/A/001/t", f"wf-{run}/review-agent/007/2026-01-01T00:00:00Z"],
            files=[],
        )

    def reflect(key: str, ids: list[int], run: str) -> int:
        context = [f"wf-{run}/review-agent/008/2026-01-01T00:00:00Z"]
        return store.reflect(
            key, "shop", ids, f"cache insight {key}", agent="A", node_id="n", context_ids=context
        )

    early = retain("early", "parent-run")
    time.sleep(0.05)
    point = time.time()
    time.sleep(0.05)
    parents = retain("parents-later", "parent-run")
    own = retain("forks-own", fork)
    lookalike = retain("lookalike", "forkXrunY")
    parents_insight = reflect("parents-insight", [early, parents], "parent-run")
    own_insight = reflect("own-insight", [own], fork)
    as_of = AsOf(point, fork)

    found = store.recall("shop", "cache", limit=50, as_of=as_of)
    assert {m.id for m in found.memories} == {early, own, own_insight}
    assert found.linked == []
    linked = store.recall("shop", "note", limit=50, as_of=as_of).linked
    assert [m.id for m in linked] == [own_insight]  # not the parent's, linked to early
    assert store.recall("shop", "early", as_of=as_of).memories[0].linked == [parents_insight]
    assert {m.id for m in store.recall("shop", "cache", limit=50).memories} == {
        early,
        parents,
        own,
        lookalike,
        parents_insight,
        own_insight,
    }
    bounded = store.recall("shop", "cache", limit=50, before=point, as_of=as_of)
    assert [m.id for m in bounded.memories] == [early]  # the step's own time bounds it still


def test_memories_persist_across_store_instances_like_runs(open_store: Opener) -> None:
    open_store().retain(
        "run-1/x",
        "shop",
        "payments retry twice",
        agent="A",
        node_id="n",
        context_ids=["wf-1"],
        files=[],
    )
    (memory,) = open_store().recall("shop", "payments").memories
    assert memory.content == "payments retry twice" and memory.context_ids == ["wf-1"]


def test_workers_opening_and_retaining_at_once_agree(open_store: Opener) -> None:
    """Two workers start together on a new memory (schema made once) and retry one step."""
    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda _: open_store(), range(4)))
        ids = set(pool.map(lambda s: _retain(s, "same-key", "one episode"), stores * 3))
    assert len(ids) == 1
    assert len(stores[0].recall("shop", "episode").memories) == 1


def test_reflect_needs_known_memories_of_its_space(store: MemoryStore) -> None:
    elsewhere = _retain(store, "k1", "another workspace", space="elsewhere")
    with pytest.raises(ValueError, match=f"unknown: {elsewhere}, 99$"):
        store.reflect("k", "shop", [elsewhere, 99], "x", agent="A", node_id="n")
    with pytest.raises(ValueError, match="unknown: none given"):
        store.reflect("k", "shop", [], "x", agent="A", node_id="n")
    assert store.recall("shop", "x") == Recalled([], [])  # nothing stored by a refused reflect


def test_an_unsupported_url_says_what_to_use_and_hides_its_password() -> None:
    with pytest.raises(
        ValueError, match=r"AGENT_MEMORY_URL 'mysql://u:\[REDACTED\]@db' is not"
    ) as e:
        open_memory("mysql://u:hunter22@db")
    assert "postgresql://user:password@host:port/database" in str(e.value)
