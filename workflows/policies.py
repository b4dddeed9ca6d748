"""Every timeout and retry policy, in one place."""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy

AGENT_START_TO_CLOSE = timedelta(minutes=5)
"""One agent LLM call, including its validation retries."""
AGENT_HEARTBEAT_TIMEOUT = timedelta(seconds=20)
"""Agent activities heartbeat while waiting on the LLM, so cancellation arrives promptly."""
AGENT_HEARTBEAT_INTERVAL = timedelta(seconds=1)
HEARTBEAT_THROTTLE = timedelta(seconds=1)
"""Heartbeats reach the server at least this often, so a cancel lands within about a second."""

AGENT_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=5,
    non_retryable_error_types=[
        "InvalidLlmReply",
        "LlmConfigurationError",
        "PromptRenderError",
        "UnknownAgentType",
    ],
)
"""Rate limits and 5xx retry; bad replies and bad credentials do not."""

LLM_VALIDATION_ATTEMPTS = 3
"""Replies that fail validation are retried with the error fed back, this many times in all."""
LLM_REQUEST_TIMEOUT = timedelta(seconds=120)
"""One HTTP request to the LLM endpoint; well under AGENT_START_TO_CLOSE."""
