"""LLM_CONTEXT_TOKENS read from the endpoint when it says, as llama-server, vLLM and Ollama do
(``app/model_context.py``); the realmodel tests read a real llama-server's."""

from __future__ import annotations

from typing import Any

import pytest

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.model_context import ServedContext, served_context, with_served_context
from tests.support.openai_server import ScriptedOpenAIServer

LLAMA = {"/props": {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}}
VLLM = {"/v1/models": {"object": "list", "data": [{"id": "m", "max_model_len": 32768}]}}
OLLAMA = {"/api/show": {"parameters": "stop <|im_end|>\nnum_ctx 8192", "model_info": {}}}


def _settings(server: ScriptedOpenAIServer, **more: Any) -> LlmSettings:
    return LlmSettings(api_key="sk-x", base_url=server.base_url, model="m", **more)


@pytest.mark.parametrize(
    ("pages", "expected"),
    [
        (LLAMA, ServedContext(4096, "llama-server /props")),
        (VLLM, ServedContext(32768, "/v1/models max_model_len")),
        (OLLAMA, ServedContext(8192, "Ollama /api/show num_ctx")),
        ({}, None),
        ({"/props": {"default_generation_settings": {"n_ctx": "big"}}}, None),
        ({"/api/show": {"parameters": "stop x", "model_info": {"llama.context_length": 9}}}, None),
    ],
    ids=["llama-server", "vllm", "ollama", "silent", "nonsense", "ollama-without-num_ctx"],
)
async def test_the_context_is_read_where_the_server_says_it(
    pages: dict[str, dict[str, Any]], expected: ServedContext | None
) -> None:
    with ScriptedOpenAIServer(pages=pages) as server:
        assert await served_context(_settings(server)) == expected


async def test_a_worker_takes_the_served_context_unless_the_setting_is_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ScriptedOpenAIServer(pages=LLAMA) as server:
        found = await with_served_context(_settings(server))
        assert found.context_tokens == 4096
        assert "model context: 4096 tokens (from llama-server /props)" in capsys.readouterr().err
        given = await with_served_context(_settings(server, context_tokens=2000))
        assert given.context_tokens == 2000
    with ScriptedOpenAIServer() as silent:
        assert (await with_served_context(_settings(silent))).context_tokens is None
        assert "set LLM_CONTEXT_TOKENS" in capsys.readouterr().err
    offline = LlmSettings()
    assert await with_served_context(offline) is offline
