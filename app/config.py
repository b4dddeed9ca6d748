"""Settings read from the environment (never inside workflow code)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from activities.llm import DEFAULT_MODEL, LlmSettings
from models.agent_types import AgentType

DEFAULT_TASK_QUEUE = "agents"
DEFAULT_NAMESPACE = "default"
DEFAULT_STATE_DIR = Path(".state")


@dataclass(frozen=True)
class TemporalSettings:
    """Where Temporal is. No address means: start the embedded dev server."""

    address: str | None = None
    namespace: str = DEFAULT_NAMESPACE
    task_queue: str = DEFAULT_TASK_QUEUE
    api_key: str | None = field(default=None, repr=False)
    tls: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    state_dir: Path = DEFAULT_STATE_DIR

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> TemporalSettings:
        cert = env.get("TEMPORAL_TLS_CERT")
        key = env.get("TEMPORAL_TLS_KEY")
        api_key = env.get("TEMPORAL_API_KEY") or None
        return cls(
            address=env.get("TEMPORAL_ADDRESS") or None,
            namespace=env.get("TEMPORAL_NAMESPACE") or DEFAULT_NAMESPACE,
            task_queue=env.get("TEMPORAL_TASK_QUEUE") or DEFAULT_TASK_QUEUE,
            api_key=api_key,
            tls=bool(cert) or bool(api_key) or env.get("TEMPORAL_TLS", "").lower() in ("1", "true"),
            tls_cert=Path(cert) if cert else None,
            tls_key=Path(key) if key else None,
            state_dir=Path(env.get("AGENTS_STATE_DIR") or DEFAULT_STATE_DIR),
        )


def llm_settings_from_env(env: Mapping[str, str] = os.environ) -> LlmSettings:
    """OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL and AGENT_MODEL_<AGENT_TYPE> overrides."""
    overrides = {
        agent.value: env[f"AGENT_MODEL_{agent.value}"]
        for agent in AgentType
        if env.get(f"AGENT_MODEL_{agent.value}")
    }
    return LlmSettings(
        api_key=env.get("OPENAI_API_KEY") or None,
        base_url=env.get("OPENAI_BASE_URL") or None,
        model=env.get("AGENT_MODEL") or DEFAULT_MODEL,
        agent_models=overrides,
    )
