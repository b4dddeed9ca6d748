"""Every timeout and retry policy, in one place."""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy

LLM_REQUEST_TIMEOUT = timedelta(seconds=90)
"""One HTTP request to the LLM endpoint."""
LLM_VALIDATION_ATTEMPTS = 3
"""Replies that fail validation are asked again with the error fed back, this many times in all."""
AGENT_CALL_MARGIN = timedelta(seconds=30)
"""Time an agent activity needs besides its LLM requests: prompts, validation, heartbeats."""
AGENT_START_TO_CLOSE = LLM_REQUEST_TIMEOUT * LLM_VALIDATION_ATTEMPTS + AGENT_CALL_MARGIN
"""One agent LLM call with all its validation attempts: every request times out before this."""
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
        "LlmReplyTooLarge",
        "PromptRenderError",
        "UnknownAgentType",
    ],
)
"""Rate limits and 5xx retry; bad replies and bad credentials do not."""

HISTORY_HANDOVER_BYTES = 4 * 1024 * 1024
"""A workflow continues as new once its history is this large (or when the server suggests it,
whichever comes first): far below the server's 50 MB limit, so a flood of signals is absorbed."""

LLM_REPLY_LIMIT = 1024 * 1024
"""Bytes of one LLM reply: half of Temporal's 2 MiB payload limit, leaving room for the event."""

NOTIFY_REQUEST_TIMEOUT = timedelta(seconds=10)
"""One delivery: an HTTP request to a webhook or Slack, or one SMTP session."""
NOTIFY_START_TO_CLOSE = NOTIFY_REQUEST_TIMEOUT + timedelta(seconds=5)
"""One notify attempt: its one delivery times out before this."""
NOTIFY_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=6,
    non_retryable_error_types=["NotificationRefused"],
)
"""A receiver that is down is tried again with backoff; one that refuses (4xx) is not."""
NOTIFY_SCHEDULE_TO_CLOSE = timedelta(minutes=3)
"""Every attempt of one delivery with the backoffs between them (2+4+8+16+32 s) fits in this;
then the failure becomes a WARNING event on the interrupt."""
NOTIFY_PLAN_TIMEOUT = timedelta(seconds=5)
"""The local activity that reads which channels the worker's settings enable."""

WORKSPACE_PIN_TIMEOUT = timedelta(minutes=10)
"""Cloning or fetching a run's workspace and extracting its commit."""
WORKSPACE_PIN_RETRY = RetryPolicy(
    maximum_attempts=3, non_retryable_error_types=["WorkspaceUnavailable"]
)
"""A source that is not a repository, or a ref that names no commit, fails the run at once."""

CODE_WORK_TIMEOUT = timedelta(hours=1)
"""One git step of the agents' code changes, with its verification run (whose own limit,
``AGENT_TEST_TIMEOUT``, is the worker's setting); liveness is the heartbeat."""
CODE_WORK_HEARTBEAT = timedelta(seconds=60)
CODE_WORK_RETRY = RetryPolicy(maximum_attempts=5, non_retryable_error_types=["WorktreeLimit"])
"""git lock contention retries; too many worktrees on disk fails the run with the setting's name."""
