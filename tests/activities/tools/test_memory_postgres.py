"""The PostgreSQL memory store's own promises: a server it cannot use is one
line naming ``AGENT_MEMORY_URL``, never its password; the contract is in ``test_memory.py``."""

from __future__ import annotations

import pytest

from agent_interrupts.activities.tools.memory import open_memory
from agent_interrupts.activities.tools.memory_postgres import MemoryUnavailable
from tests.support.postgres import PASSWORD, PostgresServer, free_port


def _refusal(url: str) -> str:
    with pytest.raises(MemoryUnavailable) as refused:
        open_memory(url)
    message = str(refused.value)
    assert "\n" not in message and "AGENT_MEMORY_URL" in message
    return message


def test_an_unreachable_server_is_one_line_without_the_password() -> None:
    port = free_port()  # nothing listens there
    message = _refusal(f"postgresql://agent:s3cret-pass@127.0.0.1:{port}/memory")
    assert f"127.0.0.1:{port}/memory" in message and "s3cret-pass" not in message
    assert message.endswith("start the server or fix AGENT_MEMORY_URL")


def test_a_wrong_password_is_one_line_without_either_password(postgres: PostgresServer) -> None:
    message = _refusal(postgres.url("postgres", password="wrong-password"))
    assert "password authentication failed" in message
    assert "wrong-password" not in message and PASSWORD not in message


def test_the_schema_is_two_tables_made_on_first_use(postgres: PostgresServer) -> None:
    url = postgres.create_database()
    store = open_memory(url)
    try:
        tables = postgres.query(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        assert sorted(tables) == ["memories", "memory_links"]
    finally:
        store.close()  # type: ignore[attr-defined]
