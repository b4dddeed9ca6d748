"""Episodic memory, for real (issue 13 item 4; spec 003 FR-008, FR-010)."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.tools.memory import SqliteMemory, open_memory


def _retain(store: SqliteMemory, key: str, content: str, space: str = "shop") -> int:
    return store.retain(
        key, space, content, agent="DISCOVERY_AGENT", node_id="n-1", context_ids=[], files=["a.py"]
    )


def test_retain_and_reflect_are_idempotent_by_key(tmp_path: Path) -> None:
    store = SqliteMemory(tmp_path / "m.sqlite3")
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


def test_recall_returns_matches_and_the_memories_linked_to_them(tmp_path: Path) -> None:
    store = SqliteMemory(tmp_path / "m.sqlite3")
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


def test_memories_persist_across_store_instances_like_runs(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    first = open_memory(f"sqlite:///{path}")
    first.retain(
        "run-1/x",
        "shop",
        "payments retry twice",
        agent="A",
        node_id="n",
        context_ids=["wf-1"],
        files=[],
    )
    later = open_memory(f"sqlite:///{path}")
    (memory,) = later.recall("shop", "payments").memories
    assert memory.content == "payments retry twice" and memory.context_ids == ["wf-1"]


def test_reflect_on_unknown_memories_and_an_unsupported_url_say_what_to_do(tmp_path: Path) -> None:
    store = SqliteMemory(tmp_path / "m.sqlite3")
    with pytest.raises(ValueError, match="unknown: 99"):
        store.reflect("k", "shop", [99], "x", agent="A", node_id="n")
    with pytest.raises(ValueError, match="AGENT_MEMORY_URL 'postgres://db' is not supported"):
        open_memory("postgres://db")
