"""Record the histories CI replays (in-flight runs survive deploys).

``python -m tests.histories.record <version>`` runs, with the current code on a fresh in-memory
dev server and the offline model: an orchestrator run whose PLANNING_ORCHESTRATOR a supervisor's
event interrupts and whose REVIEW_AGENT asks a person, both answered; a run whose ticket agents
ask at once; a run that continues as new every 3 steps; a run whose agent ignores a
supervisor's event, so the workflow asks in its place, answered in free text alone, and a run in
which a supervisor's signal stops one running ticket agent; a run that uses up its step
budget and is granted more; a run whose first ticket agent's question is asked while the
third still works, the third's question following; a person's answer with the
controller's shadow answer, then a question the controller answers itself; a run
whose history grows long while its question waits, so the question is handed back and asked again
(its own dev server suggests continuing as new early); a run whose model's reply is too large, so a
person is asked, and whose answer the translator cannot write; a looping run whose routes
back close (LLM_MAX_PHASE_ROUNDS); an event on a dispatch node that cancels its running
agents, a run a person stops from a question, one sent on to another agent, one started by another
client without AgentPhase, a combined question answered one agent at a time, an answer that
closes the node's other question, two questions handed over together; people's answers carry
their name; a run of the shipped incident-response team whose investigator asks and whose
reviewer a supervisor's event re-routes; a model that never writes a valid reply, whose stuck
agents' questions are answered with their ways out (continue at the next agent; ``continueAt``
the translator cannot write; stop); a run with encryption on (``keys.RECORDING_RING``), its
question answered under a person's name. It
writes every run's history (orchestrator runs and interrupt children) as JSON into
``tests/histories/<version>/`` (the commit the code is at, listed in ``landed.LANDED``); a
folder that exists is never written again. ``record_landed`` adds the waiting shapes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.agreement import QuestionKind
from agent_interrupts.activities.autonomy import AutonomySettings
from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupt_flow import InterruptState, InterruptStatus
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.resolution_rules import recommended_answer, redirect_targets
from agent_interrupts.models.team_files import configured_teams
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import InterruptRouting, OrchestratorRouting
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.shadow import SHADOW_SUFFIX
from agent_interrupts.workflows.stuck_questions import ROUTE_CHOICE_ID
from agent_interrupts.workflows.visibility import dev_server_args
from tests.histories.keys import RECORDING_RING
from tests.support.fan_out import early_continue_as_new_server, handed_over_together, only_part
from tests.support.interrupts import (
    answer_all,
    interrupt_status,
    shadow_answer,
    start,
    started_activities,
    wait_running,
)
from tests.support.openai_server import INVALID, ScriptedOpenAIServer

HERE = Path(__file__).parent
WAITING = InterruptState.WAITING
RUNNING = WorkflowExecutionStatus.RUNNING


async def _question(client: Client, child_id: str) -> InterruptStatus:
    """The interrupt's status once it has started."""
    async with asyncio.timeout(60):
        while True:
            try:
                return await interrupt_status(client, child_id)
            except Exception:  # not started yet
                await asyncio.sleep(0.1)


async def _answer_next(client: Client, handle: WorkflowHandle, n: int, option: str = "B") -> None:
    child_id = f"{handle.id}-interrupt-{n}"
    question = await _question(client, child_id)
    signed = answer_all(question.request, option).model_copy(update={"answered_by": "ada"})
    await client.get_workflow_handle(child_id).execute_update(
        InterruptWorkflow.resolve_validated, signed
    )


async def _save(client: Client, workflow_id: str, name: str, out: Path) -> None:
    runs = [e async for e in client.list_workflows(f"WorkflowId = '{workflow_id}'")]
    for i, run in enumerate(sorted(runs, key=lambda r: r.start_time)):
        history = await client.get_workflow_handle(workflow_id, run_id=run.run_id).fetch_history()
        (out / f"{name}-{i + 1}.json").write_text(history.to_json())


async def _interrupt_and_event(client: Client, out: Path) -> None:
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario(
        interrupt_at=frozenset({AgentType.REVIEW_AGENT}),
        delays={AgentType.PLANNING_ORCHESTRATOR: 2.0},
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-interrupt-and-event")
        await wait_running(handle, AgentType.PLANNING_ORCHESTRATOR)
        await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent(
                event_id="recorded-event-1",
                source_agent_type=AgentType.PLANNING_ORCHESTRATOR,
                reroute_to_agent_type=AgentType.DISCOVERY_ORCHESTRATOR,
                reason="Need clarification on discovery scope",
            ),
        )
        await _answer_next(client, handle, 1)
        await _answer_next(client, handle, 2)
        await handle.result()
    await _save(client, handle.id, "orchestrator-interrupt-and-event", out)
    for n in (1, 2):
        await _save(client, f"{handle.id}-interrupt-{n}", f"interrupt-{n}", out)


async def _concurrent_questions(client: Client, out: Path) -> None:
    """Two of three ticket agents ask at once; the resumed fan-out runs only them."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3")
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(
            client, task_queue, "recorded-concurrent-questions", question_gather_seconds=10
        )
        await _answer_next(client, handle, 1)
        await handle.result()
    await _save(client, handle.id, "orchestrator-concurrent-questions", out)
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-concurrent-questions", out)


async def _continued_as_new(client: Client, out: Path) -> None:
    task_queue = f"record-{uuid.uuid4()}"
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(
            client, task_queue, "recorded-continue-as-new", continue_as_new_every=3
        )
        await handle.result()
    await _save(client, handle.id, "orchestrator-continued", out)


async def _ignored_event_answered_in_words(client: Client, out: Path) -> None:
    """The agent ignores the event; the workflow asks; free text alone answers."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario.parse("delay=DISCOVERY_COLLECTOR:2;deaf=DISCOVERY_COLLECTOR")
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-ignored-event")
        await wait_running(handle, AgentType.DISCOVERY_COLLECTOR)
        await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent(
                event_id="recorded-ignored-event-1",
                source_agent_type=AgentType.DISCOVERY_COLLECTOR,
                reroute_to_agent_type=AgentType.DISCOVERY_ORCHESTRATOR,
                reason="Discovery missed the billing module",
            ),
        )
        child_id = f"{handle.id}-interrupt-1"
        await _question(client, child_id)
        await client.get_workflow_handle(child_id).signal(
            "resolve", {"freeText": "Look at billing/ too, then plan as before."}
        )
        await handle.result()
    await _save(client, handle.id, "orchestrator-ignored-event", out)
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-free-text", out)


async def _event_on_a_dispatched_agent(client: Client, out: Path) -> None:
    """A supervisor's signal stops one running ticket agent; its question is lifted."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario.parse("fanout=3;delay=TICKET_AGENT:3")
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-event-on-an-agent")
        running = await wait_running(handle, AgentType.TICKET_DISPATCH, timeout=60)
        assert running.current_node is not None
        await handle.signal(
            "interrupt_request_event",
            {
                "eventId": "recorded-agent-event-1",
                "sourceAgentType": "TICKET_AGENT",
                "nodeId": f"{running.current_node.node_id}/ticket-agent-2",
                "reason": "Stop and check the ticket's scope",
            },
        )
        await _answer_next(client, handle, 1)
        await handle.result()
    await _save(client, handle.id, "orchestrator-event-on-an-agent", out)
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-event-on-an-agent", out)


async def _answer_until_done(client: Client, handle: WorkflowHandle, option: str) -> None:
    """Answer each question the run asks with ``option`` until the run ends."""
    result = asyncio.ensure_future(handle.result())
    answered: set[str] = set()
    while not result.done():
        pending = (await handle.query(OrchestratorWorkflow.status)).pending_interrupt
        if pending is not None and pending.workflow_id not in answered:
            answered.add(pending.workflow_id)
            await _answer_next(client, handle, len(answered), option)
        await asyncio.wait([result], timeout=0.1)
    await result


async def _step_budget_granted(client: Client, out: Path) -> None:
    """The run uses up its step budget of 6 and a person grants more, until it ends."""
    task_queue = f"record-{uuid.uuid4()}"
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, "recorded-step-budget", max_steps=6)
        await _answer_until_done(client, handle, "A")
    await _save(client, handle.id, "orchestrator-step-budget", out)
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-step-budget", out)


async def _question_while_a_sibling_runs(client: Client, out: Path) -> None:
    """The first agent's question is asked while the third still works; the
    third's own question follows when the node resumes."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario.parse(
        "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3;delay=TICKET_AGENT#3:3"
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-early-question")
        await _answer_until_done(client, handle, "B")
    await _save(client, handle.id, "orchestrator-early-question", out)
    for n in (1, 2):
        await _save(client, f"{handle.id}-interrupt-{n}", f"interrupt-early-question-{n}", out)


async def _shadowed_then_delegated(client: Client, out: Path) -> None:
    """A person answers and the controller answers in their shadow; the next run's
    question of that kind is answered by the controller itself (earned autonomy)."""
    task_queue = f"record-{uuid.uuid4()}"
    kinds = frozenset(
        (AgentType.PLANNING_ORCHESTRATOR, kind)
        for kind in (QuestionKind.CHOICE, QuestionKind.CONFIRMATION)
    )
    autonomy = AutonomySettings(kinds, min_answers=1, min_agreement=1.0)
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))
    async with build_worker(
        client,
        task_queue,
        LlmSettings(),
        offline=OfflineModel(scenario),
        autonomy_settings=autonomy,
    ):
        shadowed = await start(
            client, task_queue, "recorded-shadowed", shadow_answers=True, controller_autonomy=True
        )
        child_id = f"{shadowed.id}-interrupt-1"
        async with asyncio.timeout(60):
            while (
                question := await _question(client, child_id)
            ).state is not InterruptState.WAITING:
                await asyncio.sleep(0.1)
        await client.get_workflow_handle(child_id).execute_update(
            InterruptWorkflow.resolve_validated, recommended_answer(question.request)
        )
        await shadowed.result()
        await shadow_answer(client, child_id)
        delegated = await start(client, task_queue, "recorded-delegated", controller_autonomy=True)
        await delegated.result()
    await _save(client, shadowed.id, "orchestrator-shadowed", out)
    await _save(client, child_id, "interrupt-shadowed", out)
    await _save(client, child_id + SHADOW_SUFFIX, "shadow-answer", out)
    await _save(client, delegated.id, "orchestrator-delegated", out)
    await _save(client, f"{delegated.id}-interrupt-1", "interrupt-delegated", out)


async def _question_handed_over(out: Path) -> None:
    """A run whose history grows long while its REVIEW_AGENT question waits (signals the run
    ignores): the question is handed back, asked again under its id, then answered."""
    async with await early_continue_as_new_server() as env:
        client, task_queue = env.client, f"record-{uuid.uuid4()}"
        scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
        async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
            handle = await start(client, task_queue, "recorded-handed-over")
            child_id = f"{handle.id}-interrupt-1"
            await _question(client, child_id)
            async with asyncio.timeout(60):
                while not any(
                    "REQUESTED AGAIN" in e.message
                    for e in (await handle.query(OrchestratorWorkflow.status)).events
                ):
                    await handle.signal("not-a-signal-this-run-takes")
                    await asyncio.sleep(0.2)
            async with asyncio.timeout(60):
                while (await client.get_workflow_handle(child_id).describe()).status != RUNNING:
                    await asyncio.sleep(0.1)
            await _answer_next(client, handle, 1)
            await handle.result()
        await _save(client, handle.id, "orchestrator-handed-over", out)
        await _save(client, child_id, "interrupt-handed-over", out)
        scenario = OfflineScenario.parse(  # two questions: the third agent asks 2 s later
            "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3;delay=TICKET_AGENT#3:2"
        )
        async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
            together = await start(client, task_queue, "recorded-handed-over-together")
            await handed_over_together(together)
            for n in (1, 2):
                child = f"{together.id}-interrupt-{n}"
                async with asyncio.timeout(60):
                    while (await client.get_workflow_handle(child).describe()).status != RUNNING:
                        await asyncio.sleep(0.1)
                await _answer_next(client, together, n)
            await together.result()
        await _save(client, together.id, "orchestrator-handed-over-together", out)
        for n in (1, 2):
            await _save(client, f"{together.id}-interrupt-{n}", f"interrupt-together-{n}", out)


class _OversizedThenUntranslated(OfflineModel):
    """The orchestrator's first reply is over 1 MiB (LlmReplyTooLarge: a person is asked), and
    no translation sets a route (the answer resumes the agent untranslated)."""

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        if name == InterruptRouting.__name__:
            return "{}"
        reply = super().answer(name, schema, messages)
        if name == OrchestratorRouting.__name__ and len(self.received) == 1:
            return json.dumps({**json.loads(reply), "padding": "x" * 1_200_000})
        return reply


async def _model_failure_answered_untranslated(client: Client, out: Path) -> None:
    """A model failure asks a person instead of failing the run, and an answer the
    translator cannot write resumes the agent with the answer as guidance."""
    task_queue = f"record-{uuid.uuid4()}"
    settings = LlmSettings(validation_attempts=1)
    model = _OversizedThenUntranslated()
    async with build_worker(client, task_queue, settings, offline=model):
        handle = await start(client, task_queue, "recorded-model-failure")
        await _answer_until_done(client, handle, "A")
    await _save(client, handle.id, "orchestrator-model-failure", out)
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-untranslated", out)


async def _stuck_ways_out(client: Client, out: Path) -> None:
    """A model that never writes a valid reply: its agents' questions offer ways out; the first
    is answered "continue at the next agent", the second with ``continueAt`` (which the
    translator cannot write, so the run continues there untranslated), the third stops the run."""
    task_queue = f"record-{uuid.uuid4()}"
    with ScriptedOpenAIServer(then=INVALID) as server:
        settings = LlmSettings(api_key="sk-record", base_url=server.base_url, model="never-valid")
        async with build_worker(client, task_queue, settings):
            handle = await start(client, task_queue, "recorded-stuck-ways-out")
            first = (await _question(client, f"{handle.id}-interrupt-1")).request
            [route] = [c for c in first.choices if c.choice_id == ROUTE_CHOICE_ID]
            go_on = next(o.key for o in route.options if o.description.startswith("Continue at"))
            no = {c.confirmation_id: False for c in first.confirmation_items}
            await _resolve(
                client,
                f"{handle.id}-interrupt-1",
                {"selectedChoices": {ROUTE_CHOICE_ID: go_on}, "confirmations": no},
            )
            second = await _question(client, f"{handle.id}-interrupt-2")
            await _resolve(
                client,
                f"{handle.id}-interrupt-2",
                {
                    **recommended_answer(second.request).to_wire(),
                    "continueAt": redirect_targets(second.origin, team=SOFTWARE_TEAM)[0],
                },
            )
            await _question(client, f"{handle.id}-interrupt-3")
            await _resolve(client, f"{handle.id}-interrupt-3", {"stopRun": "recorded"})
            with contextlib.suppress(WorkflowFailureError):
                await handle.result()
    await _save(client, handle.id, "orchestrator-stuck-ways-out", out)
    for n in (1, 2, 3):
        await _save(client, f"{handle.id}-interrupt-{n}", f"interrupt-stuck-ways-out-{n}", out)


async def _resolve(client: Client, child_id: str, answer: dict[str, Any]) -> None:
    signed = InterruptResolution.model_validate({**answer, "answeredBy": "ada"})
    await client.get_workflow_handle(child_id).execute_update(
        InterruptWorkflow.resolve_validated, signed
    )


async def _phase_rounds_closed(client: Client, out: Path) -> None:
    """LLM_MAX_PHASE_ROUNDS=1 closes the routes back, so a looping model moves on."""
    task_queue = f"record-{uuid.uuid4()}"
    looping = OfflineModel(OfflineScenario.parse("loop=1000"))
    async with build_worker(client, task_queue, LlmSettings(max_phase_rounds=1), offline=looping):
        handle = await start(client, task_queue, "recorded-phase-rounds")
        await handle.result()
    await _save(client, handle.id, "orchestrator-phase-rounds", out)


async def _event_on_a_dispatch_node(client: Client, out: Path) -> None:
    """An event with choices on TICKET_DISPATCH cancels its running agents, which ask;
    the event's choices join theirs; answered until the run ends."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario.parse("fanout=2;delay=TICKET_AGENT:3")
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-event-on-a-dispatch-node")
        await wait_running(handle, AgentType.TICKET_DISPATCH, timeout=60)
        async with asyncio.timeout(30):
            while await started_activities(handle) < 2:
                await asyncio.sleep(0.05)
        await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent.model_validate(
                {
                    "eventId": "recorded-dispatch-event-1",
                    "sourceAgentType": "TICKET_DISPATCH",
                    "reason": "Check the ticket split",
                    "choices": [
                        {"label": "Keep", "value": "keep"},
                        {"label": "Split", "value": "split"},
                    ],
                }
            ),
        )
        await _answer_until_done(client, handle, "B")
    await _save(client, handle.id, "orchestrator-event-on-a-dispatch-node", out)
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-event-on-a-dispatch-node", out)


async def _stopped_or_sent_elsewhere(client: Client, out: Path) -> None:
    """A person stops one run from the reviewer's question, and sends another on to
    the merger; a third run is started by another client (no AgentPhase at start)."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        for name, answer in (
            ("recorded-stopped", {"stopRun": "the goal was wrong"}),
            ("recorded-sent-elsewhere", {"continueAt": "MERGER_AGENT"}),
        ):
            handle = await start(client, task_queue, name)
            question = await _question(client, f"{name}-interrupt-1")
            resolution = InterruptResolution.model_validate(
                {**answer_all(question.request).to_wire(), **answer}
            )
            await client.get_workflow_handle(f"{name}-interrupt-1").execute_update(
                InterruptWorkflow.resolve_validated, resolution
            )
            with contextlib.suppress(WorkflowFailureError):
                await handle.result()
            await _save(client, name, f"orchestrator-{name.removeprefix('recorded-')}", out)
            await _save(client, f"{name}-interrupt-1", f"interrupt-{name.split('-')[1]}", out)
        other = await client.start_workflow(
            "OrchestratorWorkflow",
            {"goal": "add rate limiting to the gateway"},
            id="recorded-started-by-another-client",
            task_queue=task_queue,
        )
        await _answer_until_done(client, other, "A")
    await _save(client, other.id, "orchestrator-started-by-another-client", out)


async def _parts_answered_alone(client: Client, out: Path) -> None:
    """Two agents share one question; the third's part is answered first, the
    first's is asked again at once and answered; then two questions wait together and the answer
    to one sends the run on, closing the other."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3")
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-parts", question_gather_seconds=10)
        combined = await _question(client, f"{handle.id}-interrupt-1")
        whole = answer_all(combined.request, "B")
        part = only_part(whole, "ticket-agent-3")
        await client.get_workflow_handle(f"{handle.id}-interrupt-1").execute_update(
            InterruptWorkflow.resolve_validated, part
        )
        await _answer_next(client, handle, 2, "A")
        await handle.result()
    await _save(client, handle.id, "orchestrator-parts", out)
    for n in (1, 2):
        await _save(client, f"{handle.id}-interrupt-{n}", f"interrupt-parts-{n}", out)
    scenario = OfflineScenario.parse(
        "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3;delay=TICKET_AGENT#3:2"
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-other-question-closed")
        await _question(client, f"{handle.id}-interrupt-2")
        first = await _question(client, f"{handle.id}-interrupt-1")
        answer = answer_all(first.request).model_copy(
            update={"continue_at": AgentType.TICKET_COLLECTOR}
        )
        await client.get_workflow_handle(f"{handle.id}-interrupt-1").execute_update(
            InterruptWorkflow.resolve_validated, answer
        )
        await handle.result()
    await _save(client, handle.id, "orchestrator-other-question-closed", out)
    for n in (1, 2):
        await _save(client, f"{handle.id}-interrupt-{n}", f"interrupt-closed-{n}", out)


async def _declared_team(client: Client, out: Path) -> None:
    """The shipped incident-response team: its second investigator asks, a person answers
    through the team's handler routing, a supervisor's event re-routes its reviewer."""
    task_queue = f"record-{uuid.uuid4()}"
    teams = configured_teams({})
    agents = [a.name for a in teams["incident-response"].agents]
    scenario = OfflineScenario.parse("interrupt=INVESTIGATOR#2;delay=REMEDIATION_REVIEW:2", agents)
    offline = OfflineModel(scenario)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await start(client, task_queue, "recorded-declared-team", team="incident-response")
        await _answer_next(client, handle, 1)
        await wait_running(handle, "REMEDIATION_REVIEW")
        await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent(
                event_id="recorded-team-event",
                source_agent_type="REMEDIATION_REVIEW",
                reroute_to_agent_type="REMEDIATION",
                reason="the rollback plan skips the cache",
            ),
        )
        await _answer_next(client, handle, 2)
        await handle.result()
    await _save(client, handle.id, "orchestrator-declared-team", out)
    for n in (1, 2):
        await _save(client, f"{handle.id}-interrupt-{n}", f"interrupt-declared-team-{n}", out)


async def _forked(client: Client, out: Path) -> None:
    """A run forked at its answered planning collector's question with another answer (the
    run sent on to another of its routes), and that fork forked again at its own question."""
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_COLLECTOR}))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, "recorded-forked")
        await _answer_next(client, handle, 1, "A")
        await handle.result()
        question_id = f"{handle.id}-interrupt-1"
        asked = await interrupt_status(client, question_id)
        other = answer_all(asked.request, "B").model_copy(
            update={"continue_at": AgentType.ORCHESTRATOR_COLLECTOR}
        )
        fork = await agents.fork(
            handle.id, at=question_id, resolution=other, fork_id="recorded-fork"
        )
        await client.get_workflow_handle(fork.workflow_id).result()
        again = await agents.fork(
            fork.workflow_id,
            at=fork.question_id,
            resolution=answer_all(asked.request, "A"),
            fork_id="recorded-fork-of-fork",
        )
        await client.get_workflow_handle(again.workflow_id).result()
    await _save(client, handle.id, "orchestrator-forked-parent", out)
    for name, run in (("fork", fork), ("fork-of-fork", again)):
        await _save(client, run.workflow_id, f"orchestrator-{name}", out)
        await _save(client, run.question_id, f"interrupt-{name}", out)


async def _encrypted(client: Client, out: Path) -> None:
    """Encryption on: every payload of the run and its question sealed under the recording key;
    the replays decode them with it."""
    config = client.config()
    config["data_converter"] = data_converter(RECORDING_RING)
    sealed = Client(**config)
    task_queue = f"record-{uuid.uuid4()}"
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(sealed, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(sealed, task_queue, "recorded-encrypted")
        await _answer_next(sealed, handle, 1)
        await handle.result()
    await _save(client, handle.id, "orchestrator-encrypted", out)
    await _save(client, f"{handle.id}-interrupt-1", "interrupt-encrypted", out)


async def main(version: str) -> None:
    out = HERE / version
    if out.exists():
        raise SystemExit(f"{out} exists: a landed version's histories are never re-recorded")
    out.mkdir()
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=dev_server_args(),
    ) as env:
        await _interrupt_and_event(env.client, out)
        await _concurrent_questions(env.client, out)
        await _continued_as_new(env.client, out)
        await _ignored_event_answered_in_words(env.client, out)
        await _event_on_a_dispatched_agent(env.client, out)
        await _step_budget_granted(env.client, out)
        await _question_while_a_sibling_runs(env.client, out)
        await _shadowed_then_delegated(env.client, out)
        await _model_failure_answered_untranslated(env.client, out)
        await _phase_rounds_closed(env.client, out)
        await _event_on_a_dispatch_node(env.client, out)
        await _stopped_or_sent_elsewhere(env.client, out)
        await _parts_answered_alone(env.client, out)
        await _declared_team(env.client, out)
        await _stuck_ways_out(env.client, out)
        await _forked(env.client, out)
        await _encrypted(env.client, out)
    await _question_handed_over(out)
    print("\n".join(sorted(p.name for p in out.glob("*.json"))))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
    exit_now(0)
