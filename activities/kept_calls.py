"""Model calls kept across a Temporal server outage: one model call per step, however the
attempts of its activity go.

A server that was down while an attempt ran times the attempt out when it is back (it missed
the heartbeats), and the worker's next heartbeat hears "not found": the SDK cancels the attempt
and the server schedules the next one. The attempt's result, had it finished while the server was
down, is refused too. So each call runs in its own task, kept by the activity's identity
(workflow id, run id, activity id) with the fingerprint of its input: an attempt the server lost
leaves its call running, and the next attempt on this worker joins it, or takes its reply when
it has finished. A real cancel (the workflow's: a supervisor's stop or redirect, a cancelled run;
a pause, a reset, the worker shutting down) cancels the call with its attempt.

A call nobody joins within ``ORPHANED_CALL_WAIT`` (the next attempt went to another worker, or
the run was terminated) is cancelled; finished replies are kept for ``KEPT_REPLY_TTL``, at most
``KEPT_CALLS`` of them (the oldest go first); a failed call is not kept (the next attempt asks
again, as Temporal's retry means)."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel
from temporalio import activity

from agent_interrupts.models.policies import KEPT_CALLS, KEPT_REPLY_TTL, ORPHANED_CALL_WAIT

T = TypeVar("T")

Key = tuple[str, str, str]
"""An activity's identity across its attempts: workflow id, run id, activity id."""


def lost_by_the_server(details: activity.ActivityCancellationDetails | None) -> bool:
    """Whether an attempt was cancelled only because the server no longer knows it (it timed
    the attempt out while it could not hear from this worker): its call goes on for the next
    attempt. Any other cancel (requested by the workflow, a pause, a reset, the worker shutting
    down), or one without details, stops the call."""
    if details is None:
        return False
    real = details.cancel_requested or details.paused or details.reset or details.worker_shutdown
    return (details.not_found or details.timed_out) and not real


def fingerprint(request: BaseModel) -> str:
    """The fingerprint of an activity's input: a kept call serves only the same request."""
    return hashlib.sha256(request.model_dump_json().encode()).hexdigest()


def activity_key() -> Key:
    """The running activity's identity across its attempts."""
    info = activity.info()
    return (info.workflow_id or "", info.workflow_run_id or "", info.activity_id)


@dataclass
class _Kept(Generic[T]):
    fingerprint: str
    task: asyncio.Task[T]
    waiting: int = 0
    """Attempts awaiting the call now."""
    losses: int = 0
    """Attempts the server lost while they awaited the call."""
    finished_at: float | None = None


class KeptCalls(Generic[T]):
    """The calls of one kind of activity on this worker, by activity identity."""

    def __init__(
        self,
        size: int = KEPT_CALLS,
        ttl: float = KEPT_REPLY_TTL.total_seconds(),
        orphan_wait: float = ORPHANED_CALL_WAIT.total_seconds(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._calls: OrderedDict[Key, _Kept[T]] = OrderedDict()
        self._size, self._ttl, self._orphan_wait, self._clock = size, ttl, orphan_wait, clock
        self._next_expiry = float("inf")
        """When the first kept reply expires: no call looks through the replies before."""

    def __len__(self) -> int:
        return len(self._calls)

    async def run(self, key: Key, request: str, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``'s result for the activity ``key`` with the input fingerprint ``request``:
        the call this worker already made or is making for an earlier attempt, else a new one.
        """
        self._expire()
        kept = self._calls.get(key)
        if kept is not None and (kept.fingerprint != request or _failed(kept.task)):
            del self._calls[key]
            kept = None
        if kept is None:
            kept = _Kept(request, asyncio.create_task(_awaited(call)))
            kept.task.add_done_callback(lambda task: self._finished(key, task))
            self._calls[key] = kept
            while len(self._calls) > self._size:
                self._calls.popitem(last=False)  # a running call goes on with its attempt
        else:
            self._calls.move_to_end(key)
            activity.logger.warning(
                "attempt %d %s of an earlier attempt the server lost; the model is not asked again",
                activity.info().attempt,
                "takes the reply" if kept.task.done() else "joins the call",
            )
        kept.waiting += 1
        try:
            return await asyncio.shield(kept.task)
        except asyncio.CancelledError:
            details = activity.cancellation_details()
            if lost_by_the_server(details):
                activity.logger.warning(
                    "the server lost attempt %d (it timed it out while it could not hear from "
                    "this worker); its model call %s for the next attempt",
                    activity.info().attempt,
                    "is kept" if kept.task.done() else "goes on",
                )
                kept.losses += 1
                loop = asyncio.get_running_loop()
                loop.call_later(self._orphan_wait, _unjoined, kept, kept.losses)
            elif kept.waiting == 1:
                kept.task.cancel()
                self._forget(key, kept)
            raise
        finally:
            kept.waiting -= 1

    def _finished(self, key: Key, task: asyncio.Task[T]) -> None:
        failed = task.cancelled() or task.exception() is not None  # retrieved: never "lost"
        kept = self._calls.get(key)
        if kept is None or kept.task is not task:
            return
        if failed:
            del self._calls[key]  # only replies are kept
        else:
            kept.finished_at = self._clock()
            self._next_expiry = min(self._next_expiry, kept.finished_at + self._ttl)

    def _forget(self, key: Key, kept: _Kept[T]) -> None:
        if self._calls.get(key) is kept:
            del self._calls[key]

    def _expire(self) -> None:
        now = self._clock()
        if now <= self._next_expiry:
            return
        finished = [
            (k, kept.finished_at) for k, kept in self._calls.items() if kept.finished_at is not None
        ]
        for key, at in finished:
            if now - at > self._ttl:
                del self._calls[key]
        left = [at + self._ttl for _, at in finished if now - at <= self._ttl]
        self._next_expiry = min(left, default=float("inf"))


async def _awaited(call: Callable[[], Awaitable[T]]) -> T:
    return await call()


def _failed(task: asyncio.Task[T]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


def _unjoined(kept: _Kept[T], loss: int) -> None:
    """A call whose attempt the server lost and that no later attempt joined (it went to another
    worker, or the run ended): nobody will take its reply, so it stops."""
    if kept.losses == loss and kept.waiting == 0 and not kept.task.done():
        kept.task.cancel()
