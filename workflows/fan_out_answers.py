"""A dispatch node's fan-out whose questions are answered one at a time (FR-094, resume
§5): each agent runs; an agent that asks gets a question at once, even while another question of
the node waits; each answer (or each part of a combined one) re-runs the agents it answers at
once, while the others still work or wait. Finished agents never run again.

The loop ends when every agent has its result, or when an answer sends the run elsewhere (the
node's running agents are cancelled and its other questions closed, with a warning naming them),
or when the run's history grew long while only questions wait: they are handed back and asked
again by the next run (``OrchestratorState.open_questions``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass

from temporalio import workflow
from temporalio.exceptions import ActivityError

from agent_interrupts.models.agent_call import AgentReply
from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.graph import Node
from agent_interrupts.models.interrupt_flow import InterruptOutcome
from agent_interrupts.models.policies import (
    QUESTION_MAX_ROUND_TRIPS,
    QUESTION_QUIET_ROUND_TRIPS,
    ROUND_TRIP_RETRY,
    ROUND_TRIP_TIMEOUT,
)
from agent_interrupts.models.state import EventKind, HandedOverQuestion, PendingStep
from agent_interrupts.workflows.asking import (
    QuestionHandedOver,
    StartedQuestion,
    ask_again,
    hand_back,
    outcome_of,
    take_answer,
    waiting_on,
)
from agent_interrupts.workflows.handover import history_is_long
from agent_interrupts.workflows.lifting import asked, with_translated_request
from agent_interrupts.workflows.patches import ARRIVE_TOGETHER
from agent_interrupts.workflows.run_book import RunBook
from agent_interrupts.workflows.visibility import show_orchestrator

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.round_trip import round_trip

StartAgent = Callable[[int], Awaitable[AgentReply]]
"""Runs the fan-out's agent at this index (with its answer, if it has one)."""
SettleAgent = Callable[[int, AgentReply], None]
"""Records the reply of the agent at this index and marks it finished or asking."""
AskNow = Callable[[list[HeldAgent], Collection[str]], Awaitable[StartedQuestion]]
"""Asks the node's question for the agents that asked, but those (by key) asked already."""


def waits_again(round_trips: int, quiet: int) -> bool:
    """Whether a fan-out's question waits one more round trip for its other agents' replies,
    after ``round_trips`` of them, the last ``quiet`` of which brought none: until
    ``QUESTION_QUIET_ROUND_TRIPS`` in a row brought none, at most ``QUESTION_MAX_ROUND_TRIPS``."""
    return quiet < QUESTION_QUIET_ROUND_TRIPS and round_trips < QUESTION_MAX_ROUND_TRIPS


@dataclass
class FanOutEnd:
    """How a dispatch node's fan-out ended."""

    fan_out: list[HeldAgent]
    question: StartedQuestion | None = None
    """Runs recorded before: the question asked while agents ran, for the node to settle."""
    left: bool = False
    """An answer sent the run elsewhere: ``state.pending`` is set, the node is done."""


class AnsweredAlone:
    """One dispatch node's agents and open questions, until every agent has its result."""

    def __init__(
        self,
        book: RunBook,
        node: Node,
        step: PendingStep,
        fan_out: list[HeldAgent],
        start_agent: StartAgent,
        settle: SettleAgent,
        ask_now: AskNow,
    ) -> None:
        self._book = book
        self._node = node
        self._step = step
        self._fan_out = fan_out
        self._start_agent = start_agent
        self._settle = settle
        self._ask_now = ask_now
        self._agents: dict[int, asyncio.Task[AgentReply]] = {}
        self._questions: dict[str, StartedQuestion] = {}
        """The node's open questions by InterruptWorkflow id, oldest first."""

    async def run(self) -> FanOutEnd:
        """Run the agents that run, ask again what the run before handed over, and answer as
        answers come."""
        state = self._book.state
        for index, held_agent in enumerate(self._fan_out):
            if held_agent.runs():
                self._run(index)
        handed, state.open_questions = state.open_questions, []
        for question in handed:
            started = await ask_again(self._book, question)
            self._questions[started.child_id] = started
        while True:
            await self._ask_the_unasked()
            if not self._agents and not self._questions:
                return FanOutEnd(self._fan_out)
            await workflow.wait_condition(self._anything_to_do)
            self._settle_finished()
            for child_id in [c for c, q in self._questions.items() if q.child.done()]:
                started = self._questions.pop(child_id)
                if await self._take(started, await outcome_of(self._book, started), rerun=True):
                    return FanOutEnd(self._fan_out, left=True)
            if not self._agents and self._questions and history_is_long():
                return await self._hand_over()

    def _anything_to_do(self) -> bool:
        """An agent finished, a question was answered, or only questions wait and the history
        grew long."""
        return (
            any(task.done() for task in self._agents.values())
            or any(q.child.done() for q in self._questions.values())
            or (not self._agents and history_is_long())
        )

    def _run(self, index: int) -> None:
        self._agents[index] = asyncio.ensure_future(self._start_agent(index))

    def _settle_finished(self) -> None:
        for index in sorted(i for i, task in self._agents.items() if task.done()):
            self._settle(index, self._agents.pop(index).result())

    def _asked_already(self) -> set[str]:
        return {
            q.agent_key
            for started in self._questions.values()
            for q in getattr(started.request, "agent_questions", ())
        }

    async def _ask_the_unasked(self) -> None:
        """Ask the agents that asked and are in no open question; while others still run, the
        agents whose replies arrive together with theirs join the same question
        (``_wait_for_arrivals``), as do those asking within the run's
        ``questionGatherSeconds``."""
        gather = self._book.state.question_gather_seconds
        if self._agents and self._unasked() and workflow.patched(ARRIVE_TOGETHER):
            await self._wait_for_arrivals()
        if gather > 0 and self._agents and self._unasked():
            await workflow.wait(list(self._agents.values()), timeout=gather)
            self._settle_finished()
        while self._unasked():
            started = await self._ask_now(self._fan_out, self._asked_already())
            self._questions[started.child_id] = started
        self._show_waiting()

    async def _wait_for_arrivals(self) -> None:
        """Settle the running agents whose replies arrive in the next workflow tasks: round trips
        through the server until a few in a row brought none (``waits_again``)."""
        round_trips = quiet = 0
        while self._agents and waits_again(round_trips, quiet):
            running = len(self._agents)
            with contextlib.suppress(ActivityError):  # no worker ran it in time: ask now
                await workflow.execute_activity(
                    round_trip,
                    schedule_to_close_timeout=ROUND_TRIP_TIMEOUT,
                    retry_policy=ROUND_TRIP_RETRY,
                    summary="let the replies arriving with this question's come in",
                )
            round_trips += 1
            self._settle_finished()
            quiet = 0 if len(self._agents) < running else quiet + 1

    def _unasked(self) -> list[str]:
        covered = self._asked_already()
        return [a.key for a, _ in asked(self._fan_out) if a.key not in covered]

    def _show_waiting(self) -> None:
        state = self._book.state
        oldest = next(iter(self._questions.values()), None)
        state.pending_interrupt = waiting_on(oldest) if oldest is not None else None
        show_orchestrator(state.phase, None, state.pending_interrupt)

    async def _take(self, started: StartedQuestion, outcome: InterruptOutcome, rerun: bool) -> bool:
        """Take the answer to ``started``: the agents it answers run again at once (with
        ``rerun``; else they run when the node next runs); True when it sends the run elsewhere
        (the node's other agents and questions are then dropped)."""
        book, node = self._book, self._node
        step = take_answer(book, started, outcome, self._fan_out)
        self._show_waiting()
        if step.agent_type != node.agent_type:
            await self._close(started, step)
            return True
        dispatched = node.dispatches or node.agent_type
        requests = list(step.request.get("requests") or [])
        keys = {q.agent_key for q in getattr(started.request, "agent_questions", ())}
        later = []
        for index, answered in enumerate(step.held):
            mine = self._fan_out[index]
            if answered.key not in keys or mine.result is not None or mine.answer is not None:
                continue
            if answered.answer is None:
                later.append(answered.key)
                continue
            self._fan_out[index] = with_translated_request(
                dispatched, answered, requests, index, self._book.team
            )
            if rerun:
                self._run(index)
        if later:
            book.event(
                EventKind.INFO,
                f"the answer to {started.child_id} leaves {', '.join(later)} for later: "
                "their questions are asked again at once",
                started.node_id,
                node.agent_type,
            )
        return False

    async def _close(self, answered: StartedQuestion, step: PendingStep) -> None:
        """The answer to ``answered`` sends the run to ``step``: cancel the node's running
        agents, close its other questions, say which."""
        book = self._book
        running = [self._fan_out[i].key for i in self._agents]
        closed = list(self._questions)
        for task in [*self._agents.values(), *(q.child for q in self._questions.values())]:
            task.cancel()
        await asyncio.gather(
            *self._agents.values(),
            *(q.child for q in self._questions.values()),
            return_exceptions=True,
        )
        self._agents.clear()
        self._questions.clear()
        self._show_waiting()
        if running or closed:
            dropped = [
                *([f"its running agents {', '.join(running)} are cancelled"] if running else []),
                *([f"its open questions {', '.join(closed)} are closed"] if closed else []),
            ]
            book.event(
                EventKind.WARNING,
                f"the answer to {answered.child_id} sends the run to {step.agent_type}: "
                + " and ".join(dropped),
                answered.node_id,
                self._node.agent_type,
            )
        book.state.pending = step

    async def _hand_over(self) -> FanOutEnd:
        """Hand the open questions back (the run's history grew long while only questions
        waited): the next run runs the node again with its fan-out and asks them again."""
        book = self._book
        handed: list[HandedOverQuestion] = []
        for started in list(self._questions.values()):
            del self._questions[started.child_id]
            back = await hand_back(book, started)
            if isinstance(back, HandedOverQuestion):
                handed.append(back)
            elif await self._take(started, back, rerun=False):
                if handed:
                    book.event(
                        EventKind.WARNING,
                        f"questions {', '.join(h.child_id for h in handed)} were handed back "
                        "before that answer came; they are not asked again",
                        started.node_id,
                        self._node.agent_type,
                    )
                return FanOutEnd(self._fan_out, left=True)
        book.state.open_questions = handed
        book.state.pending = self._step.model_copy(update={"held": self._fan_out})
        raise QuestionHandedOver(
            f"continuing as new while {len(handed)} questions of {self._node.agent_type} "
            "waited: the history grew long (they are asked again, under the same ids)"
        )
