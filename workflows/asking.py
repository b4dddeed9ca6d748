"""A node's question: hand it to InterruptWorkflow, then set the step the answer leads to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError
from temporalio.workflow import ChildWorkflowHandle

from models.agent_types import AgentType
from models.errors import DegenerateLoop, InterruptFailed, StepLimitExceeded, failure_message
from models.fan_out import HeldAgent
from models.interrupt_flow import InterruptInput, InterruptOutcome
from models.interrupts import InterruptRequestBase, InterruptRouting, TimeoutOutcome
from models.state import EntryKind, EventKind, PendingInterrupt, PendingStep
from workflows.budget_questions import budget_question, stops_the_run
from workflows.graph import NODES
from workflows.interrupt import InterruptWorkflow
from workflows.interrupt_text import details_markdown, summary_line
from workflows.lifting import answer_each
from workflows.planner import last_request_of, origin_of
from workflows.resolution_rules import describe_resolution
from workflows.resume import resumed_request
from workflows.run_book import RunBook
from workflows.steps import decide
from workflows.visibility import child_attributes, show_orchestrator


@dataclass
class StartedQuestion:
    """A node's question handed to its InterruptWorkflow, not answered yet."""

    node_id: str
    origin: AgentType
    origin_request: dict[str, Any]
    request: InterruptRequestBase
    child_id: str
    child: ChildWorkflowHandle[InterruptWorkflow, InterruptOutcome]


async def ask(
    book: RunBook,
    node_id: str,
    node_request: tuple[AgentType, dict[str, Any]],
    request: InterruptRequestBase,
    fan_out: list[HeldAgent],
    *,
    person_only: bool = False,
) -> None:
    """Hand the question to InterruptWorkflow; continue where its routing leads (FR-001).

    ``node_request`` is the asking node's agent and request, handed over by the step that holds
    them: a bounded window of payloads may have dropped it (a fan-out of 12 did; issue 18).
    A dispatch node that resumes keeps its ``fan_out``: finished agents are not run again,
    and each agent that asked runs with its own part of the answer (spec 004 section 5).

    A ``person_only`` question (a stuck model, a used-up step budget: issue 19) is never
    escalated to the reviewing model, which may be the model at fault: where the run's timeout
    would escalate, it waits for a person without a deadline; the loop breaker does not count it.
    """
    started = await start_question(book, node_id, node_request, request, person_only=person_only)
    await settle_question(book, started, fan_out)


async def start_question(
    book: RunBook,
    node_id: str,
    node_request: tuple[AgentType, dict[str, Any]],
    request: InterruptRequestBase,
    *,
    person_only: bool = False,
) -> StartedQuestion:
    """Start the question's InterruptWorkflow: from here on, a person sees it (``ask``)."""
    state = book.state
    origin = origin_of(request, state.history)
    agent, own_request = node_request
    if origin is agent:
        origin_request: dict[str, Any] | None = own_request
    else:  # a question typed as another agent's: its newest request, if still held
        last = last_request_of(state.history, origin)
        origin_request = last.payload if last is not None else None
    if origin_request is None:
        book.fail(
            DegenerateLoop(
                f"{origin} raised an interrupt but the blackboard holds no earlier request "
                f"of {origin} to return to (degenerate loop)"
            ),
            node_id,
            origin,
        )
    event = state.stored_events.pop(node_id, None)
    state.interrupts_started += 1
    child_id = f"{workflow.info().workflow_id}-interrupt-{state.interrupts_started}"
    job = InterruptInput(
        orchestrator_id=workflow.info().workflow_id,
        goal=state.goal,
        request=request,
        origin=origin,
        origin_node_id=node_id,
        origin_request=origin_request,
        reroute_to=event.reroute_to_agent_type if event else None,
        event=event,
        timeout_seconds=None
        if person_only and state.on_interrupt_timeout is TimeoutOutcome.ESCALATE_TO_AGENT_REVIEW
        else state.interrupt_timeout_seconds,
        on_timeout=state.on_interrupt_timeout,
        shadow=state.shadow_answers,
        autonomy=state.controller_autonomy,
    )
    book.record(
        node_id,
        origin,
        EntryKind.INTERRUPT,
        {"workflowId": child_id, **request.to_wire()},
        supervised=event is not None or person_only,  # not the agent's own: not counted
    )
    book.event(EventKind.INTERRUPT_STATUS, f"REQUESTED: {child_id}", node_id, origin)
    child = await workflow.start_child_workflow(
        InterruptWorkflow.run,
        job,
        id=child_id,
        static_summary=summary_line(origin, request),
        static_details=details_markdown(child_id, origin, request),
        search_attributes=child_attributes(job),
    )
    state.pending_interrupt = PendingInterrupt(
        workflow_id=child_id,
        origin_agent_type=origin,
        reroute_to_agent_type=job.reroute_to,
        request=request.to_wire(),
    )
    show_orchestrator(state.phase, None, state.pending_interrupt)
    return StartedQuestion(node_id, origin, origin_request, request, child_id, child)


async def settle_question(
    book: RunBook, started: StartedQuestion, fan_out: list[HeldAgent]
) -> None:
    """Wait for the answer, then set the step it leads to; a dispatch node's ``fan_out`` (as it
    is now: agents that asked after the question started keep theirs for the next round) gets
    each agent's own part."""
    state = book.state
    node_id, origin, child_id = started.node_id, started.origin, started.child_id
    request = started.request
    try:
        outcome = await started.child
    except ChildWorkflowError as err:
        message = failure_message(err)
        book.fail(InterruptFailed(f"interrupt {child_id} failed: {message}"), node_id, origin)
    state.pending_interrupt = None
    book.event(
        EventKind.INTERRUPT_STATUS,
        f"RESOLVED: {child_id} by {outcome.resolution.resolved_by} -> {outcome.route}",
        node_id,
        origin,
    )
    routing = InterruptRouting.model_validate(outcome.routing)
    entry = book.record(node_id, origin, EntryKind.RESOLUTION, outcome.routing, route=outcome.route)
    decision = decide(origin, routing, entry, state.history)
    if decision.step is None:
        book.fail(
            InterruptFailed(f"interrupt {child_id} resolved to {decision.route}: no request"),
            node_id,
            origin,
        )
    target = decision.step.agent_type
    resumes = target is origin
    if resumes:
        carried: dict[str, Any] | None = started.origin_request
    else:  # a supervisor's reroute: the target's newest request, if still held
        found = last_request_of(state.history, target)
        carried = found.payload if found is not None else None
    state.pending = decision.step.model_copy(
        update={
            "request": resumed_request(
                NODES[target].request_model,
                carried or {},
                NODES[target].request_model.model_validate(decision.step.request),
            ),
            "interrupt_resolution": describe_resolution(request, outcome.resolution),
            "resolution": outcome.resolution,
            "held": answer_each(request, outcome.resolution, fan_out)
            if resumes and fan_out
            else [],
        }
    )


async def ask_for_steps(book: RunBook, step: PendingStep, budget: int) -> None:
    """The step budget is used up: a person grants ``budget`` more steps or stops the run
    (issue 19). The waiting step keeps its request, its answer and its held fan-out; the
    person's words join its guidance."""
    state = book.state
    agent = step.agent_type
    node_id = book.next_node_id(agent)
    book.event(
        EventKind.WARNING,
        f"the run took {state.steps_taken} agent steps (maxSteps); a person is asked "
        f"whether it gets {budget} more",
        node_id,
        agent,
    )
    question = budget_question(agent, state.steps_taken, budget)
    await ask(book, node_id, (agent, step.request), question, [], person_only=True)
    answered = state.pending
    if answered is None or stops_the_run(answered.resolution):
        book.fail(
            StepLimitExceeded(
                f"the run took {state.steps_taken} agent steps without finishing and a "
                "person chose to stop it at its step budget (maxSteps)"
            ),
            node_id,
            agent,
        )
    state.max_steps = state.steps_taken + budget
    guidance = [g for g in (step.interrupt_resolution, answered.interrupt_resolution) if g]
    state.pending = step.model_copy(update={"interrupt_resolution": "\n\n".join(guidance) or None})
