"""A dispatch node's fan-out: its agents in parallel, and their questions lifted into the node's
own interrupt (handler US4, handler FR-010; resume §5: finished agents never run again)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Sequence
from functools import partial
from typing import Any

from temporalio import workflow

from agent_interrupts.models.agent_call import AgentReply, ContextItem
from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.errors import AgentFailed, DegenerateLoop
from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.ids import dispatched_node_id
from agent_interrupts.models.state import EntryKind, EventKind, HistoryEntry, PendingStep
from agent_interrupts.models.team import Node, on_the_wire
from agent_interrupts.workflows.asking import StartedQuestion, start_question
from agent_interrupts.workflows.code_changes import ticket_names, ticket_step
from agent_interrupts.workflows.curation import with_contexts
from agent_interrupts.workflows.event_questions import question_from_event
from agent_interrupts.workflows.fan_out_answers import AnsweredAlone, AskNow, FanOutEnd
from agent_interrupts.workflows.lifting import (
    asked,
    fan_out_context,
    lift,
    lifted_output,
    plan_fan_out,
)
from agent_interrupts.workflows.patches import ANSWERED_ALONE, EARLY_QUESTIONS
from agent_interrupts.workflows.run_book import RunBook, upstream_of
from agent_interrupts.workflows.steps import decide

AskEarly = Callable[[list[HeldAgent]], Awaitable[StartedQuestion]]
"""Asks the dispatch node's question for the agents whose questions wait, while others run."""


async def run_fan_out(
    book: RunBook,
    node: Node,
    node_id: str,
    parent: HistoryEntry,
    request: dict[str, Any],
    step: PendingStep,
    ask_now: AskNow | None = None,
) -> FanOutEnd:
    """Run the fan-out in parallel: one dispatched agent per entry of ``request.requests``,
    except the agents ``step`` holds that finished or still wait for their answer.

    With ``ask_now``, a question waits for no sibling and no other question: each agent that
    asks is asked at once and each answer re-runs its agents at once (``AnsweredAlone``). Runs
    recorded before that ask one question while agents run and settle it after the whole
    fan-out (``FanOutEnd.question``), or (before that) ask after the whole fan-out."""
    if node.dispatches is None:
        book.fail(AgentFailed(f"{node.agent_type} dispatches no agent (a bug)"), node_id)
    child = book.team.node(node.dispatches)
    fan_out = plan_fan_out(
        child.agent_type, step.held, list(request.get("requests") or []), book.team
    )
    if not fan_out:
        book.event(EventKind.WARNING, f"{node.agent_type} got no agent requests", node_id)
    kept = [a.key for a in fan_out if not a.runs()]
    if kept:
        book.event(
            EventKind.INFO,
            f"{node.agent_type} keeps {', '.join(kept)} (finished, or waiting for an answer) "
            "and runs only the others",
            node_id,
        )
    running: dict[int, tuple[str, str, list[str]]] = {}
    runs_here: dict[str, int] = {}
    tickets = ticket_names([a.request for a in fan_out], [a.key for a in fan_out])

    def start_agent(index: int) -> Awaitable[AgentReply]:
        held_agent = fan_out[index]
        sub, curated_ids = with_contexts(
            book.state.curated, child.request_model, held_agent.request
        )
        runs = runs_here[held_agent.key] = runs_here.get(held_agent.key, 0) + 1
        sub_id = dispatched_node_id(node_id, held_agent.key, runs)
        entry = book.record(
            sub_id,
            child.agent_type,
            EntryKind.REQUEST,
            sub,
            upstream=[parent.context_id, *curated_ids],
        )
        output_id = book.context_id(child.agent_type)
        context = book.context()
        running[index] = (sub_id, output_id, upstream_of(entry, sub, context))
        call = partial(
            book.call_agent,
            sub_id,
            child.agent_type,
            sub,
            entry,
            context,
            output_id,
            held_agent.answer,
            output_tokens_factor=held_agent.output_tokens_factor,
        )
        return ticket_step(book, child.agent_type, sub_id, sub, tickets[index], call)

    settle = partial(_settle, book, child, node_id, fan_out)
    if ask_now is not None and workflow.patched(ANSWERED_ALONE):
        return await AnsweredAlone(
            book,
            node,
            step,
            fan_out,
            start_agent,
            lambda index, reply: settle(index, running[index], reply),
            ask_now,
        ).run()
    calls = [start_agent(index) for index, a in enumerate(fan_out) if a.runs()]
    if ask_now is None or not calls or not workflow.patched(EARLY_QUESTIONS):
        replies = await asyncio.gather(*calls)
        for (index, where), reply in zip(running.items(), replies, strict=True):
            settle(index, where, reply)
        return FanOutEnd(fan_out)
    gather = book.state.question_gather_seconds
    fan_out, started = await _settle_as_they_finish(
        fan_out, running, calls, settle, lambda held: ask_now(held, ()), gather
    )
    return FanOutEnd(fan_out, started)


async def _settle_as_they_finish(
    fan_out: list[HeldAgent],
    running: dict[int, tuple[str, str, list[str]]],
    calls: Sequence[Awaitable[AgentReply]],
    settle: Callable[[int, tuple[str, str, list[str]], AgentReply], None],
    ask_early: AskEarly,
    gather_seconds: float,
) -> tuple[list[HeldAgent], StartedQuestion | None]:
    """Settle each agent as it finishes; the first time a question waits while agents still run,
    the node's question is asked after at most ``gather_seconds`` (agents that ask within them
    join it), whatever the others do. Questions asked after it wait, not run
    again, and are asked as the next question when the node resumes."""

    async def reply_of(call: Awaitable[AgentReply]) -> AgentReply:
        return await call

    waiting = [
        (index, asyncio.ensure_future(reply_of(call)))
        for index, call in zip(running, calls, strict=True)
    ]

    def settle_finished() -> None:
        for index, task in [w for w in waiting if w[1].done()]:  # in fan-out order
            settle(index, running[index], task.result())
            waiting.remove((index, task))

    started = await ask_early(fan_out) if asked(fan_out) else None  # held from the last round
    while waiting:
        await workflow.wait([t for _, t in waiting], return_when=asyncio.FIRST_COMPLETED)
        settle_finished()
        if started is None and waiting and asked(fan_out):
            if gather_seconds > 0:  # agents asking at nearly the same moment join the question
                await workflow.wait([t for _, t in waiting], timeout=gather_seconds)
                settle_finished()
            if waiting:
                started = await ask_early(fan_out)
    return fan_out, started


def _settle(
    book: RunBook,
    child: Node,
    node_id: str,
    fan_out: list[HeldAgent],
    index: int,
    where: tuple[str, str, list[str]],
    reply: AgentReply,
) -> None:
    """Record one dispatched agent's reply and mark it finished or asking in ``fan_out``."""
    sub_id, output_id, upstream = where
    payload, route = reply.output, reply.route
    asked_itself = reply.stuck is None and route == "interruptRequest"
    if reply.stuck is not None:  # the model stays invalid: its agent asks a person
        question = book.stuck_question(child.agent_type, child.output_model, reply.stuck, sub_id)
        payload, route = {"interruptRequest": question.to_wire()}, "interruptRequest"
    event = book.supervisor.take(sub_id)
    if event is not None:  # a supervisor's event on this agent always ends in a question
        if route != "interruptRequest":
            book.event(
                EventKind.WARNING,
                f"{sub_id} did not interrupt although event {event.event_id} asked it to; "
                "the workflow asks in its place, its reply is kept and not acted on",
                sub_id,
                child.agent_type,
            )
            question = question_from_event(child.agent_type, event, payload, book.team)
            payload, route = {"interruptRequest": question.to_wire()}, "interruptRequest"
        # an event on this agent goes on to the node's question (its choices and reroute); an
        # event on the dispatch node is stored there already and its question takes it once
        if event.source_agent_type == child.agent_type:
            book.supervisor.also_at(node_id, event)
        asked_itself = False  # a supervisor's question
    routing = child.output_model.model_validate(payload)
    _, target, value = routing.chosen_route()
    output = book.record(
        sub_id,
        child.agent_type,
        EntryKind.OUTPUT,
        payload,
        route=route,
        context_id=output_id,
        upstream=upstream,
    )
    book.remember_output(output)
    asks = target is Terminal.INTERRUPT
    fan_out[index] = fan_out[index].model_copy(
        update={
            "node_id": sub_id,
            "result": None if asks else on_the_wire(value),
            "question": on_the_wire(value) if asks else None,
            "answer": None,
            "asked_itself": asks and asked_itself,
        }
    )


def lifted(
    book: RunBook,
    node: Node,
    fan_out: list[HeldAgent],
    output_id: str,
    upstream: list[str],
    skip: Collection[str] = (),
) -> dict[str, Any] | None:
    """The dispatch node's output when its agents asked (but those in ``skip``): their questions
    lifted into its own interrupt by the workflow, with no LLM call (handler US4 scenario 2);
    else None."""
    question = (
        lift(node.agent_type, fan_out, skip, team=book.team)
        if node.dispatches is not None
        else None
    )
    if question is None or node.dispatches is None:
        return None
    if any(
        a.asked_itself
        for a in fan_out
        if a.question is not None and a.answer is None and a.key not in skip
    ):
        book.count_interrupt(node.dispatches)  # only a model's own questions (loop breaker)
    summary = (
        f"{len(getattr(question, 'agent_questions', []))} of {len(fan_out)} agents asked; the "
        "workflow "
        "raises their questions"
    )
    return lifted_output(
        node.agent_type, question.to_wire(), summary, output_id, upstream, book.team
    )


async def question_while_agents_run(
    book: RunBook,
    node: Node,
    node_id: str,
    request_entry: HistoryEntry,
    request: dict[str, Any],
    context: list[ContextItem],
    fan_out: list[HeldAgent],
    skip: Collection[str],
) -> StartedQuestion:
    """The dispatch node's question for the agents that asked (but those in ``skip``, asked
    already), started while its other agents may still run, so a person sees it at once (issue
    18 item 5); the node's output is the lifted question, as when every agent has finished."""
    agent = node.agent_type
    output_id = book.context_id(agent)
    dispatched = node.dispatches or agent
    upstream = upstream_of(request_entry, request, context + fan_out_context(dispatched, fan_out))
    payload = lifted(book, node, fan_out, output_id, upstream, skip)
    if payload is None:
        book.fail(DegenerateLoop(f"{node_id} had no question to ask (a bug)"), node_id)
    output = book.record(
        node_id,
        agent,
        EntryKind.OUTPUT,
        payload,
        route="interruptRequest",
        upstream=upstream,
        context_id=output_id,
    )
    book.remember_output(output)
    routing = node.output_model.model_validate(payload)
    decision = decide(agent, routing, output, book.state.history, team=book.team)
    if decision.interrupt is None:
        book.fail(DegenerateLoop(f"{node_id}'s lifted question was lost (a bug)"))
    still = sum(1 for a in fan_out if a.runs())
    in_parts = workflow.patched(ANSWERED_ALONE)
    then = (
        "each agent's part may be answered on its own, and agents that ask later are asked at once"
        if in_parts
        else "questions asked after it follow when the node resumes"
    )
    book.event(
        EventKind.INFO,
        f"{node_id}: a question is asked while {still} of its agents still run; {then}",
        node_id,
        agent,
    )
    return await start_question(
        book, node_id, (agent, request), decision.interrupt, answers_in_parts=in_parts
    )


def keep_late_event(book: RunBook, node_id: str) -> None:
    """A supervisor's event on one of ``node_id``'s agents taken after its question started
    goes with the agent's question to the node that asks it next."""
    resumed = book.state.pending
    if resumed is not None and book.team.node(resumed.agent_type).dispatches is not None:
        book.supervisor.move(node_id, book.next_node_id(resumed.agent_type))
        return
    late = book.supervisor.take(node_id)
    if late is None:
        return
    book.event(
        EventKind.WARNING,
        f"event {late.event_id} came after {node_id}'s question and the answer leads "
        f"elsewhere; its agent's own question is kept, its reroute is not taken",
        node_id,
    )
