"""Fixtures of the bench tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from bench.tokens import counter


@pytest.fixture
def no_tokenizer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``bench.tokens.counter()`` as it is without tiktoken and bpe-openai (the ``test`` extra
    installs neither): both imports fail, and the cached counter is dropped before and after."""
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # import tiktoken -> ImportError
    monkeypatch.setitem(sys.modules, "bpe_openai", None)
    counter.cache_clear()
    yield
    counter.cache_clear()
