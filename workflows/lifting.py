"""Dispatched agents' questions, raised by their dispatch node (handler US4, handler FR-010;
resume §2).

A dispatched agent that needs input answers with its own typed interrupt request. The workflow,
not an LLM, lifts the questions of one fan-out into one interrupt of the dispatch node
(``lift``); each agent's choice and confirmation ids are prefixed with the agent's key
(``ticket-agent-2/approach``), so every answer is traceable to the agent that asked. The answer
is split back (``answer_each``): each agent gets only its own part, and an answer may leave some
agents' parts for later (``resolution_rules.unanswered_parts``). On resume, ``plan_fan_out``
keeps finished agents' results and runs only the agents whose question was answered.

Rules for questions asked at once: they are shown together, in fan-out order, as long as the
combined question stays answerable in one resolution (``MAX_ITEMS`` choices and confirmations);
a question that does not fit waits, unanswered and not re-run, for the next round. The combined
question is AGENT_REVIEW only when every agent asked for AGENT_REVIEW, else HUMAN_REVIEW.

Pure functions, unit-tested in ``tests/workflows/test_lifting.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, TypeVar

from agent_interrupts.models.agent_call import ContextItem
from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.ids import agent_key
from agent_interrupts.models.interrupts import (
    AgentQuestion,
    ConfirmationItem,
    DispatchRoutingDecision,
    InterruptRequestBase,
    InterruptResolution,
    InterruptType,
    StructuredChoice,
)
from agent_interrupts.models.limits import MAX_ITEMS, clip, compact_json
from agent_interrupts.models.resolution_rules import (
    answer_lines,
    closing_lines,
    describe_resolution,
    unanswered_parts,
)
from agent_interrupts.models.results import DispatchResult
from agent_interrupts.models.team import Team
from agent_interrupts.teams.software.questions import DispatchedAgentInterruptRequest
from agent_interrupts.workflows.resume import resumed_request
from agent_interrupts.workflows.stuck_questions import more_tokens

T = TypeVar("T", StructuredChoice, ConfirmationItem)

REASON_CHARS = 1_000
"""How much of each agent's reason the combined reason quotes (the full one is kept inside)."""
DIGEST_CHARS = 400
"""How much of a finished agent's result its dispatch node's prompt shows."""
_ASSIGNMENT_KEYS = ("subdomain", "area", "ticketId", "title")
_SEPARATOR = "/"


def plan_fan_out(
    agent: str,
    held: Sequence[HeldAgent],
    requests: Sequence[dict[str, Any]],
    team: Team,
) -> list[HeldAgent]:
    """The fan-out to run: the held agents in order (finished ones keep their result; answered
    ones take any change the translated request made to their sub-request), then the requests
    beyond them, not run yet. Nothing held: one fresh agent per request."""
    planned = []
    for index, held_agent in enumerate(held):
        if held_agent.result is None:
            held_agent = with_translated_request(agent, held_agent, requests, index, team)
        planned.append(held_agent)
    for index in range(len(held), len(requests)):
        planned.append(HeldAgent(key=agent_key(agent, index + 1), request=dict(requests[index])))
    return planned


def with_translated_request(
    agent: str,
    held_agent: HeldAgent,
    requests: Sequence[dict[str, Any]],
    index: int,
    team: Team,
) -> HeldAgent:
    """``held_agent`` with any change the translated dispatch request made to its sub-request
    (``requests[index]``, when the translation still has it)."""
    if index >= len(requests):
        return held_agent
    model = team.node(agent).request_model
    translated = model.model_validate(requests[index])
    merged = resumed_request(model, held_agent.request, translated)
    return held_agent.model_copy(update={"request": merged})


def asked(fan_out: Sequence[HeldAgent]) -> list[tuple[HeldAgent, DispatchedAgentInterruptRequest]]:
    """The agents of the fan-out whose question waits for an answer, and their questions (an
    answered agent running again is not one of them)."""
    return [
        (a, a.question)
        for a in fan_out
        if a.result is None and a.question is not None and a.answer is None
    ]


def lift(
    dispatch: str,
    fan_out: Sequence[HeldAgent],
    skip: Collection[str] = (),
    *,
    team: Team,
) -> InterruptRequestBase | None:
    """The dispatch node's interrupt carrying its agents' open questions, combined (but those of
    the agents in ``skip``, asked already); None when no other agent asked."""
    shown: list[AgentQuestion] = []
    choices: list[StructuredChoice] = []
    confirmations: list[ConfirmationItem] = []
    for held_agent, question in asked(fan_out):
        if held_agent.key in skip:
            continue
        fits = (
            len(choices) + len(question.choices) <= MAX_ITEMS
            and len(confirmations) + len(question.confirmation_items) <= MAX_ITEMS
        )
        if shown and not fits:
            continue  # waits for the next round, unanswered and not run again
        key = held_agent.key
        choices += _tagged(key, question.choices, "choice_id", "question")
        confirmations += _tagged(key, question.confirmation_items, "confirmation_id", "statement")
        shown.append(AgentQuestion(agent_key=key, node_id=held_agent.node_id, request=question))
    if not shown:
        return None
    everyone_agent_review = all(q.request.type is InterruptType.AGENT_REVIEW for q in shown)
    return team.questions[dispatch](  # type: ignore[call-arg]
        type=InterruptType.AGENT_REVIEW if everyone_agent_review else InterruptType.HUMAN_REVIEW,
        reason=f"{len(shown)} of {len(fan_out)} {shown[0].request.origin} agents need a decision: "
        + " ".join(f"[{q.agent_key}] {clip(q.request.reason, REASON_CHARS)}" for q in shown),
        choices=choices,
        confirmation_items=confirmations,
        context_for_decision="\n".join(
            f"[{q.agent_key}] {q.request.context_for_decision}" for q in shown
        ),
        routing_decisions=[_routing_decision(a) for a in fan_out],
        target_agent_context="\n".join(
            f"[{a.key}] {clip(str(a.request.get('guidance', '')))}" for a in fan_out
        ),
        agent_questions=shown,
    )


def lifted_output(
    dispatch: str,
    question: dict[str, Any],
    summary: str,
    result_id: str,
    upstream: list[str],
    team: Team,
) -> dict[str, Any]:
    """The dispatch node's output (wire form) when the workflow raised its agents' questions:
    no LLM call, so the routing is made here (and read back the same way from history)."""
    result = DispatchResult(summary=summary, result_id=result_id, upstream_context_ids=upstream)
    routing = team.node(dispatch).output_model.model_validate(
        {"dispatchResult": result.to_wire(), "interruptRequest": question}
    )
    return routing.to_wire()


def answer_each(
    request: InterruptRequestBase,
    resolution: InterruptResolution,
    fan_out: Sequence[HeldAgent],
    also: Sequence[str] = (),
) -> list[HeldAgent]:
    """The fan-out with each agent whose question ``request`` carried given its own answer (an
    agent whose part the answer leaves for later keeps waiting: ``unanswered_parts``), and the
    lines ``also`` every answered agent reads (a supervisor's part joined to the question)."""
    carried = {q.agent_key: q for q in getattr(request, "agent_questions", ())}
    later = unanswered_parts(request, resolution)
    answered = []
    for held_agent in fan_out:
        question = carried.get(held_agent.key)
        if question is not None and held_agent.result is None and held_agent.key not in later:
            own = own_answer(held_agent.key, resolution)
            text = describe_resolution(question.request, own)
            if also:
                text = "\n".join(
                    [
                        f"Question: {question.request.reason}",
                        *answer_lines(question.request, own),
                        *also,
                        *closing_lines(own),
                    ]
                )
            tokens = more_tokens(own, held_agent.output_tokens_factor)
            held_agent = held_agent.model_copy(
                update={"answer": text, "output_tokens_factor": tokens}
            )
        answered.append(held_agent)
    return answered


def own_answer(key: str, resolution: InterruptResolution) -> InterruptResolution:
    """The part of a combined answer that belongs to agent ``key``, under its own ids (FR-094)."""
    prefix = f"{key}{_SEPARATOR}"

    def mine(answers: dict[str, Any]) -> dict[str, Any]:
        return {k.removeprefix(prefix): v for k, v in answers.items() if k.startswith(prefix)}

    return resolution.model_copy(
        update={
            "selected_choices": mine(resolution.selected_choices),
            "custom_inputs": mine(resolution.custom_inputs),
            "confirmations": mine(resolution.confirmations),
        }
    )


def fan_out_context(agent: str, fan_out: Sequence[HeldAgent]) -> list[ContextItem]:
    """The finished agents' results as the dispatch node's prompt shows them: id and digest."""
    return [
        ContextItem(
            context_id=a.result.result_id,
            agent_type=agent,
            summary=compact_json(
                a.result.model_dump(
                    mode="json", by_alias=True, exclude={"schema_version", "upstream_context_ids"}
                ),
                DIGEST_CHARS,
            ),
        )
        for a in fan_out
        if a.result is not None
    ]


def _tagged(key: str, items: Sequence[T], id_field: str, text_field: str) -> list[T]:
    """Copies of ``items`` whose id is prefixed with the agent's key and whose text names it."""
    return [
        item.model_copy(
            update={
                id_field: f"{key}{_SEPARATOR}{getattr(item, id_field)}",
                text_field: f"[{key}] {getattr(item, text_field)}",
            }
        )
        for item in items
    ]


def _routing_decision(held_agent: HeldAgent) -> DispatchRoutingDecision:
    request = held_agent.request
    assignment = ", ".join(str(request[k]) for k in _ASSIGNMENT_KEYS if request.get(k))
    if held_agent.result is not None:
        state = "finished; its result is kept and it is not run again"
    elif held_agent.question is not None:
        state = f"asked: {clip(held_agent.question.reason)}"
    else:
        state = "not run yet"
    return DispatchRoutingDecision(
        agent=held_agent.key,
        assignment=assignment or clip(str(request.get("guidance", ""))),
        rationale=state,
    )
