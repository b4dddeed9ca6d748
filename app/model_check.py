"""Whether the configured model answers, asked once when a worker starts (and by ``agents up
--status``): ``GET /models`` of the endpoint, with a short timeout. A key the endpoint refuses, an
endpoint that does not answer, or a model it does not list is a loud warning naming the setting to
change; the worker starts all the same (the endpoint may come back, and the first agent call says
what failed in its own words)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx2

from agent_interrupts.activities.redaction import redact

if TYPE_CHECKING:  # annotations only: ``agents list`` loads this module, not the model's
    from agent_interrupts.activities.llm import LlmSettings

CHECK_SECONDS = 3.0
"""How long the endpoint may take to list its models."""
OPENAI = "https://api.openai.com/v1"


async def model_problems(settings: LlmSettings) -> list[str]:
    """What stops the configured models from answering, one line each (credentials in the URL
    redacted); empty when they are listed (or the endpoint has no model list), or for the offline
    model."""
    return [redact(problem) for problem in await _problems(settings)]


async def _problems(settings: LlmSettings) -> list[str]:
    if settings.offline:
        return []
    base = (settings.base_url or OPENAI).rstrip("/")
    where = f"OPENAI_BASE_URL={base}" if settings.base_url else f"{base} (OPENAI_BASE_URL unset)"
    try:
        async with httpx2.AsyncClient(timeout=CHECK_SECONDS) as http:
            reply = await http.get(
                f"{base}/models", headers={"Authorization": f"Bearer {settings.api_key}"}
            )
    except (httpx2.HTTPError, httpx2.InvalidURL) as err:
        return [
            f"the model endpoint {where} does not answer ({type(err).__name__}: {err}); every "
            "agent call fails until it does. Check OPENAI_BASE_URL"
        ]
    if reply.status_code in (401, 403):
        return [
            f"the model endpoint {where} refused OPENAI_API_KEY (HTTP {reply.status_code}); every "
            "agent call fails. Set OPENAI_API_KEY to a key it takes"
        ]
    if reply.status_code != 200:
        return []  # no model list here (some servers have none): the first call will tell
    try:
        entries: list[dict[str, Any]] = reply.json().get("data") or []
        served = {str(entry["id"]) for entry in entries}
    except (ValueError, KeyError, TypeError, AttributeError):
        return []
    if not served:
        return []
    wanted = {"AGENT_MODEL": settings.model}
    wanted |= {f"AGENT_MODEL_{agent}": model for agent, model in settings.agent_models.items()}
    if settings.controller_model:
        wanted["CONTROLLER_MODEL"] = settings.controller_model
    listed = ", ".join(sorted(served)[:8]) + (", ..." if len(served) > 8 else "")
    return [
        f"the model endpoint {where} does not serve {setting}={model} (it serves: {listed}); "
        f"those agent calls fail. Set {setting} to a model it serves, or check OPENAI_BASE_URL"
        for setting, model in wanted.items()
        if model not in served
    ]
