"""Retryable failures counted by kind across an activity's attempts.

Temporal counts every attempt, whatever ended it, but a worker that dies in the middle of a call
is our crash, not the endpoint's fault. So the retry policy allows many attempts
(``AGENT_ACTIVITY_ATTEMPTS``) and each kind of retryable failure keeps its own count in the
activity's heartbeat details, which the server hands to the next attempt: the endpoint's errors
stop at ``LlmSettings.endpoint_attempts``, a condition of one worker (a path it cannot see) at
``WORKER_CONDITION_ATTEMPTS``, and lost workers spend neither. Counted failures back off
exponentially (their own ``next_retry_delay``); a lost worker's attempt is retried at once.
"""

from __future__ import annotations

from typing import TypeVar

from temporalio import activity

from agent_interrupts.models.errors import AgentWorkflowError
from agent_interrupts.models.policies import COUNTED_RETRY_DELAY, COUNTED_RETRY_DELAY_MAX

E = TypeVar("E", bound=AgentWorkflowError)


def tally() -> dict[str, int]:
    """This activity's counted failures so far, by kind (empty outside an activity)."""
    if not activity.in_activity():
        return {}
    details = activity.info().heartbeat_details
    last = details[-1] if details else None
    if not isinstance(last, dict):
        return {}
    return {k: v for k, v in last.items() if isinstance(k, str) and isinstance(v, int)}


def beat() -> None:
    """A heartbeat that carries the tally on (every heartbeat replaces the details)."""
    activity.heartbeat(tally())


def retry_or_last(kind: type[E], counted_as: str, limit: int, what: str, fix: str) -> E:
    """The error for one more failure counted as ``counted_as``: retryable, saying which
    attempt of ``limit`` it was, or non-retryable on the last, so a message that ends the run
    never promises a retry."""
    if not activity.in_activity():
        return kind(f"{what}. To fix it, {fix}.")
    counts = tally()
    number = counts[counted_as] = counts.get(counted_as, 0) + 1
    activity.heartbeat(counts)  # recorded before the attempt ends; the next one reads it
    if number >= limit:
        last = kind(f"{what}, on the last of {limit} attempts. To fix it, {fix}.")
        last.retryable = False
        return last
    again = kind(f"{what} (attempt {number} of {limit}; Temporal retries). If it persists, {fix}.")
    again.next_retry_delay = min(COUNTED_RETRY_DELAY * 2 ** (number - 1), COUNTED_RETRY_DELAY_MAX)
    return again
