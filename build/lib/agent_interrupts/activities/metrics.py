"""Our counters, through the worker runtime's meter (a no-op without a metrics endpoint).

Names are prefixed ``agents_``; Prometheus shows counters as ``..._total`` where the SDK says so.
Recorded from activities only (workflows use ``workflow.metric_meter()``, replay-safe).
"""

from __future__ import annotations

from temporalio import activity


def agent_step(agent_type: str, outcome: str) -> None:
    """One agent model call ended: ``routed``, ``asked``, ``tools``, ``stuck`` or ``failed``."""
    if activity.in_activity():
        meter = activity.metric_meter()
        meter.create_counter("agents_agent_steps", "Agent model calls by outcome").add(
            1, {"agent_type": agent_type, "outcome": outcome}
        )


def llm_call(agent: str, model: str, seconds: float, prompt: int, completion: int) -> None:
    """One LLM request answered: its latency and tokens."""
    if activity.in_activity():
        meter = activity.metric_meter().with_additional_attributes({"agent": agent, "model": model})
        meter.create_histogram_float("agents_llm_latency", "LLM request latency", "s").record(
            seconds
        )
        tokens = meter.create_counter("agents_llm_tokens", "LLM tokens by kind")
        tokens.add(prompt, {"kind": "prompt"})
        tokens.add(completion, {"kind": "completion"})


def invalid_reply(agent: str) -> None:
    """A reply failed validation and was asked again."""
    if activity.in_activity():
        meter = activity.metric_meter()
        meter.create_counter("agents_invalid_replies", "Replies that failed validation").add(
            1, {"agent": agent}
        )
