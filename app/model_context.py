"""The context a model endpoint serves, read from the endpoint itself (LLM_CONTEXT_TOKENS unset).

Servers that say it: llama.cpp's ``llama-server`` (``GET /props``:
``default_generation_settings.n_ctx``, the context of one slot), vLLM (``GET /v1/models``:
``max_model_len``) and Ollama (``POST /api/show``: ``num_ctx`` among the model's parameters; without
it Ollama's own default applies, which the endpoint does not say). OpenAI says nothing: prompts
are then trimmed only when the endpoint refuses one as too long.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from typing import Any

import httpx2

from agent_interrupts.activities.llm import LlmSettings

PROBE_SECONDS = 5.0
"""How long each question to the endpoint may take at worker start."""


@dataclass(frozen=True)
class ServedContext:
    tokens: int
    source: str
    """Where the endpoint said it (``llama-server /props`` ...)."""


async def with_served_context(settings: LlmSettings) -> LlmSettings:
    """``settings`` with LLM_CONTEXT_TOKENS read from the endpoint when it is unset, saying on
    stderr what was found (a worker's start)."""
    if settings.offline or settings.context_tokens is not None:
        return settings
    found = await served_context(settings)
    if found is None:
        print(
            "note: the model endpoint does not say its context; prompts are trimmed only when "
            "it refuses one as too long (set LLM_CONTEXT_TOKENS to trim before sending)",
            file=sys.stderr,
        )
        return settings
    print(f"model context: {found.tokens} tokens (from {found.source})", file=sys.stderr)
    return replace(settings, context_tokens=found.tokens)


async def served_context(settings: LlmSettings) -> ServedContext | None:
    """The context of ``settings.model`` as its endpoint states it; None when it does not say
    (or cannot be reached: the first agent call reports that in its own words)."""
    if settings.offline or not settings.base_url:
        return None
    base = settings.base_url.rstrip("/")
    root = base.removesuffix("/v1")
    headers = {"Authorization": f"Bearer {settings.api_key}"}
    async with httpx2.AsyncClient(timeout=PROBE_SECONDS, headers=headers) as http:
        for ask in (_llama_server, _vllm, _ollama):
            try:
                found = await ask(http, base, root, settings.model)
            except (httpx2.HTTPError, ValueError, KeyError, TypeError, AttributeError):
                found = None
            if found is not None:
                return found
    return None


async def _llama_server(
    http: httpx2.AsyncClient, base: str, root: str, model: str
) -> ServedContext | None:
    reply = await http.get(f"{root}/props")
    if reply.status_code != 200:
        return None
    tokens = reply.json()["default_generation_settings"]["n_ctx"]
    return _context(tokens, "llama-server /props")


async def _vllm(http: httpx2.AsyncClient, base: str, root: str, model: str) -> ServedContext | None:
    reply = await http.get(f"{base}/models")
    if reply.status_code != 200:
        return None
    entries: list[dict[str, Any]] = reply.json().get("data") or []
    for entry in entries:
        if entry.get("id") == model and "max_model_len" in entry:
            return _context(entry["max_model_len"], "/v1/models max_model_len")
    return None


async def _ollama(
    http: httpx2.AsyncClient, base: str, root: str, model: str
) -> ServedContext | None:
    reply = await http.post(f"{root}/api/show", json={"model": model})
    if reply.status_code != 200:
        return None
    parameters = str(reply.json().get("parameters") or "")
    found = re.search(r"^\s*num_ctx\s+(\d+)\s*$", parameters, re.MULTILINE)
    return _context(int(found[1]), "Ollama /api/show num_ctx") if found else None


def _context(tokens: Any, source: str) -> ServedContext | None:
    return ServedContext(tokens, source) if isinstance(tokens, int) and tokens > 0 else None
