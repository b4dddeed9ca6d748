"""Token counting for benchmarks, offline: tiktoken if its encoding is cached, else the
tiktoken-compatible ``bpe-openai`` (it ships o200k_base), else word and symbol pieces."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

ENCODING = "o200k_base"


@functools.cache
def counter() -> tuple[Callable[[str], int], str]:
    """A counting function and the unit it counts in (``o200k_base tokens`` or ``words``)."""
    try:
        import tiktoken

        encoding = tiktoken.get_encoding(ENCODING)
        return (lambda text: len(encoding.encode(text))), f"{ENCODING} tokens (tiktoken)"
    except Exception:
        pass
    try:
        import bpe_openai

        bpe = bpe_openai.get_encoding(ENCODING)
        return (lambda text: len(bpe.encode(text))), f"{ENCODING} tokens (bpe-openai)"
    except Exception:
        pass
    return (lambda text: len(_PIECES.findall(text))), "word and symbol pieces (no tokenizer)"


_PIECES = re.compile(r"\w+|[^\w\s]")
"""Runs of word characters and single symbols: a rough, tokenizer-free token estimate."""
