"""A worker keeps an activity's model call for its later attempts: an attempt the server lost
(timed out in an outage) leaves its call running for the next one, which joins it or takes its
reply; a real cancel stops the call; kept calls are bounded and expire."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from temporalio.activity import ActivityCancellationDetails
from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from agent_interrupts.activities.kept_calls import KeptCalls, fingerprint, lost_by_the_server
from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.resolution import ResolutionActivities
from agent_interrupts.app.worker_setup import openai_client
from agent_interrupts.models.interrupt_flow import ReviewInput
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import question_input
from tests.support.prompts import make_call

KEY = ("wf", "run", "1")


class SlowModel:
    """A call that waits until released, counting how often it was made and cancelled."""

    def __init__(self) -> None:
        self.asked = 0
        self.cancelled = 0
        self.release = asyncio.Event()

    async def __call__(self) -> str:
        self.asked += 1
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return f"reply {self.asked}"


def attempt(number: int) -> ActivityEnvironment:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, attempt=number)
    return env


async def _started(
    kept: KeptCalls[str], env: ActivityEnvironment, model: SlowModel
) -> asyncio.Task[str]:
    task = asyncio.create_task(env.run(kept.run, KEY, "request", model))
    await asyncio.sleep(0.01)
    return task


@pytest.mark.parametrize(
    ("details", "lost"),
    [
        (ActivityCancellationDetails(not_found=True), True),
        (ActivityCancellationDetails(timed_out=True), True),
        (ActivityCancellationDetails(cancel_requested=True), False),
        (ActivityCancellationDetails(paused=True), False),
        (ActivityCancellationDetails(reset=True), False),
        (ActivityCancellationDetails(worker_shutdown=True), False),
        (ActivityCancellationDetails(not_found=True, worker_shutdown=True), False),
        (None, False),
    ],
)
def test_only_an_attempt_the_server_lost_leaves_its_call_running(
    details: ActivityCancellationDetails | None, lost: bool
) -> None:
    assert lost_by_the_server(details) is lost


async def test_the_next_attempt_joins_the_call_of_one_the_server_lost() -> None:
    kept: KeptCalls[str] = KeptCalls()
    model = SlowModel()
    first = attempt(1)
    lost = await _started(kept, first, model)
    first.cancel(ActivityCancellationDetails(not_found=True))
    with pytest.raises(asyncio.CancelledError):
        await lost
    second = await _started(kept, attempt(2), model)
    model.release.set()

    assert await second == "reply 1"
    assert (model.asked, model.cancelled) == (1, 0)


async def test_a_later_attempt_takes_the_reply_an_earlier_one_finished() -> None:
    kept: KeptCalls[str] = KeptCalls()
    model = SlowModel()
    model.release.set()
    assert await attempt(1).run(kept.run, KEY, "request", model) == "reply 1"

    assert await attempt(2).run(kept.run, KEY, "request", model) == "reply 1"
    assert await attempt(1).run(kept.run, KEY, "another request", model) == "reply 2"
    assert await attempt(1).run(kept.run, ("wf", "run", "2"), "request", model) == "reply 3"


async def test_a_real_cancel_stops_the_call_and_the_next_attempt_asks_again() -> None:
    kept: KeptCalls[str] = KeptCalls()
    model = SlowModel()
    first = attempt(1)
    redirected = await _started(kept, first, model)
    first.cancel(ActivityCancellationDetails(cancel_requested=True))
    with pytest.raises(asyncio.CancelledError):
        await redirected
    await asyncio.sleep(0)

    assert model.cancelled == 1 and len(kept) == 0
    model.release.set()
    assert await attempt(2).run(kept.run, KEY, "request", model) == "reply 2"


async def test_a_failed_call_is_not_kept() -> None:
    kept: KeptCalls[str] = KeptCalls()
    failures = iter([RuntimeError("the endpoint answered 500")])

    async def flaky() -> str:
        for failure in failures:
            raise failure
        return "reply"

    with pytest.raises(RuntimeError):
        await attempt(1).run(kept.run, KEY, "request", flaky)
    assert await attempt(2).run(kept.run, KEY, "request", flaky) == "reply"


async def test_a_lost_call_nobody_joins_stops_after_the_wait() -> None:
    kept: KeptCalls[str] = KeptCalls(orphan_wait=0.05)
    model = SlowModel()
    first = attempt(1)
    lost = await _started(kept, first, model)
    first.cancel(ActivityCancellationDetails(not_found=True))
    with pytest.raises(asyncio.CancelledError):
        await lost
    await asyncio.sleep(0.2)

    assert model.cancelled == 1 and len(kept) == 0


async def test_kept_replies_are_bounded_and_expire() -> None:
    now = [0.0]
    kept: KeptCalls[str] = KeptCalls(size=2, ttl=60, clock=lambda: now[0])
    model = SlowModel()
    model.release.set()
    for activity_id in ("1", "2", "3"):
        await attempt(1).run(kept.run, ("wf", "run", activity_id), "request", model)
    assert len(kept) == 2, "the oldest went"
    assert await attempt(2).run(kept.run, ("wf", "run", "1"), "request", model) == "reply 4"

    now[0] = 61
    assert await attempt(2).run(kept.run, ("wf", "run", "3"), "request", model) == "reply 5"
    assert len(kept) == 1


def test_a_request_s_fingerprint_is_its_exact_input() -> None:
    call = make_call(AgentType.PLANNING_ORCHESTRATOR)
    assert fingerprint(call) == fingerprint(call.model_copy())
    assert fingerprint(call) != fingerprint(make_call(AgentType.MERGER_AGENT))


async def test_a_review_the_server_lost_is_not_asked_again(client: Client) -> None:
    """The reviewing call (like a translation) keeps its reply for the next attempt."""
    settings = LlmSettings()
    model = OfflineModel()
    resolution = ResolutionActivities(
        StructuredLlm(openai_client(settings, model), settings), PromptRenderer()
    )
    asked = question_input()
    job = ReviewInput(goal=asked.goal, request=asked.request, origin_request=asked.origin_request)
    first = await attempt(1).run(resolution.review_interrupt, job)
    retry = ActivityEnvironment(client)  # it clears the run's sticky queue (none here)
    retry.info = dataclasses.replace(retry.info, attempt=2)

    assert await retry.run(resolution.review_interrupt, job) == first
    assert len(model.received) == 1
