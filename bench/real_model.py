"""Bench: a whole run against a real local model, with the small-model profile.

SmolLM2-135M-Instruct behind llama.cpp's ``llama-server`` (started with
``../shared/realmodel/serve.sh``) drives an orchestrator run on a dev server, with the settings a
user sets for it (``LLM_PROFILE=small``, the context read from the server); every question is
answered at once with the first option (a person who answers instantly), until the run ends or
takes ``--steps`` agent steps. Per agent type, from the run's own history (each step's recorded
call and its activity's server event times): steps, prompt and output tokens, model seconds, wall
seconds, attempts; for the run: agent steps valid on the first attempt (aim >= 90%), the run's
wall time (aim <= 10 minutes), wall per step over the model's time per step (questions' waits
left out; aim <= 1.05x), output tokens per step against the output limit (aim: none reaches it),
and the server's own counts from its log.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus

from agent_interrupts.app.config import llm_settings_from_env
from agent_interrupts.app.model_context import with_served_context
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptStatus
from agent_interrupts.models.state import OrchestratorInput, OrchestratorStatus
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import bench_parser, run_on_dev_server, server_mode, versions, versus_aim
from bench.history_times import ACTIVITY_COMPLETED, ACTIVITY_SCHEDULED, AGENT_ACTIVITY, fetch_chain
from tests.support.interrupts import answer_offered

SERVE = Path(__file__).resolve().parents[2] / "shared" / "realmodel" / "serve.sh"
MODEL = "smollm2-135m-instruct"
AIM = 1.05
FIRST_ATTEMPT_AIM = 0.9
RUN_MINUTES_AIM = 10.0
TIMING = re.compile(
    r"(?P<what>prompt eval time|       eval time|      total time) =\s+(?P<ms>[\d.]+) ms /\s+"
    r"(?P<tokens>\d+) tokens"
)


@dataclass
class AgentSteps:
    """One agent type's steps in a run, summed."""

    steps: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    most_output_tokens: int = 0
    model_seconds: float = 0.0
    wall_seconds: float = 0.0
    attempts: int = 0
    first_attempt: int = 0
    """Steps whose first reply was valid."""


@dataclass
class RealRun:
    calls: int
    steps: int
    prompt_tokens: int
    output_tokens: int
    model_seconds: float
    wall_seconds: float
    """The run's wall time with the questions' waits for the person left out."""
    ended: str
    agents: dict[str, AgentSteps] = field(default_factory=dict)
    output_limits: dict[str, int] = field(default_factory=dict)
    """Each agent type's output token limit."""


def server_timings(log: Path, since: int = 0) -> tuple[int, int, int, float]:
    """Calls, prompt tokens, output tokens and model seconds from llama-server's log, from
    byte ``since`` on."""
    calls = prompt = output = 0
    seconds = 0.0
    with log.open("rb") as lines:
        lines.seek(since)
        text = lines.read().decode(errors="replace")
    for match in TIMING.finditer(text):
        what, ms, tokens = match["what"].strip(), float(match["ms"]), int(match["tokens"])
        if what == "prompt eval time":
            prompt += tokens
        elif what == "eval time":
            output += tokens
        else:
            calls += 1
            seconds += ms / 1000
    return calls, prompt, output, seconds


async def _waits(client: Client, interrupt_ids: set[str]) -> float:
    """Seconds the questions waited for the person (deadline timer started -> answer taken)."""
    waited = 0.0
    for interrupt_id in interrupt_ids:
        asked = answered = None
        async for event in client.get_workflow_handle(interrupt_id).fetch_history_events():
            at = event.event_time.ToDatetime().timestamp()
            if event.event_type == EventType.EVENT_TYPE_TIMER_STARTED and asked is None:
                asked = at
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
                answered = at
        if asked is not None and answered is not None:
            waited += answered - asked
    return waited


async def measure(client: Client, *, base_url: str, log: Path, steps: int) -> RealRun:
    """One run against the model at ``base_url`` (whose log is ``log``), to its end or
    ``steps`` agent steps."""
    settings = await with_served_context(
        llm_settings_from_env(
            {
                "OPENAI_API_KEY": "sk-local",
                "OPENAI_BASE_URL": base_url,
                "AGENT_MODEL": MODEL,
                "LLM_PROFILE": "small",
            }
        )
    )
    task_queue = f"real-model-{uuid.uuid4()}"
    answered: set[str] = set()
    since = log.stat().st_size if log.exists() else 0
    started = time.monotonic()
    async with build_worker(client, task_queue, settings):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="add rate limiting to the gateway", max_steps=steps + 20),
            id=f"real-model-{uuid.uuid4()}",
            task_queue=task_queue,
        )
        while True:
            status: OrchestratorStatus = await handle.query(OrchestratorWorkflow.status)
            described = await handle.describe()
            done = status.steps_taken
            if described.status is not WorkflowExecutionStatus.RUNNING:
                ended = described.status.name if described.status else "?"
                break
            if status.steps_taken > steps:
                done = status.steps_taken - 1  # the step in flight is not counted
                ended = f"RUNNING after {done} steps (stopped by the bench)"
                await handle.terminate("bench step budget reached")
                break
            waiting = status.pending_interrupt
            if waiting is not None and waiting.workflow_id not in answered:
                question: InterruptStatus = await client.get_workflow_handle(
                    waiting.workflow_id
                ).query(InterruptWorkflow.status)
                if question.state.value == "WAITING":
                    await client.get_workflow_handle(waiting.workflow_id).execute_update(
                        InterruptWorkflow.resolve_validated, answer_offered(question.request)
                    )
                    answered.add(waiting.workflow_id)
            await asyncio.sleep(0.2)
    wall = time.monotonic() - started - await _waits(client, answered)
    calls, prompt, output, model_seconds = server_timings(log, since)
    agents = await agent_steps(client, handle.id, handle.first_execution_run_id or "")
    limits = {agent: settings.max_tokens_for(agent)[0] for agent in agents}
    return RealRun(calls, done, prompt, output, model_seconds, wall, ended, agents, limits)


async def agent_steps(client: Client, workflow_id: str, first_run_id: str) -> dict[str, AgentSteps]:
    """Per agent type, the finished agent steps of a run chain: each ``run_agent`` activity's
    input (the agent) and result (its recorded call), and its scheduled -> completed time."""
    found: dict[str, AgentSteps] = defaultdict(AgentSteps)
    for events in await fetch_chain(client, workflow_id, first_run_id):
        scheduled: dict[int, tuple[str, float]] = {}
        for event in events:
            at = event.event_time.ToDatetime().timestamp()
            if event.event_type == ACTIVITY_SCHEDULED:
                asked = event.activity_task_scheduled_event_attributes
                if asked.activity_type.name == AGENT_ACTIVITY:
                    call = json.loads(asked.input.payloads[0].data)
                    scheduled[event.event_id] = (call["agentType"], at)
            elif event.event_type == ACTIVITY_COMPLETED:
                done = event.activity_task_completed_event_attributes
                if done.scheduled_event_id not in scheduled:
                    continue
                agent, since = scheduled[done.scheduled_event_id]
                record = json.loads(done.result.payloads[0].data).get("call")
                if not record:  # a round of tool calls, not a finished step
                    continue
                steps = found[agent]
                steps.steps += 1
                steps.prompt_tokens += record.get("promptTokens") or 0
                output = record.get("completionTokens") or 0
                steps.output_tokens += output
                steps.most_output_tokens = max(steps.most_output_tokens, output)
                steps.model_seconds += (record.get("latencyMs") or 0) / 1000
                steps.wall_seconds += at - since
                steps.attempts += record.get("attempts") or 1
                steps.first_attempt += (record.get("attempts") or 1) == 1
    return dict(found)


def report(run: RealRun, mode: str) -> str:
    steps = max(run.steps, 1)
    share = run.wall_seconds / run.model_seconds if run.model_seconds else float("inf")
    finished = sum(a.steps for a in run.agents.values())
    first = sum(a.first_attempt for a in run.agents.values()) / max(finished, 1)
    capped = [a for a, s in run.agents.items() if s.most_output_tokens >= run.output_limits[a]]
    rows = [
        f"{'agent':<24}{'steps':>6}{'prompt tok':>11}{'out tok':>9}{'most out':>9}{'limit':>7}"
        f"{'model s':>9}{'wall s':>8}{'attempts':>9}"
    ]
    for agent, s in sorted(run.agents.items()):
        n = max(s.steps, 1)
        rows.append(
            f"{agent:<24}{s.steps:>6}{s.prompt_tokens / n:>11.0f}{s.output_tokens / n:>9.0f}"
            f"{s.most_output_tokens:>9}{run.output_limits[agent]:>7}{s.model_seconds / n:>9.1f}"
            f"{s.wall_seconds / n:>8.1f}{s.attempts / n:>9.2f}"
        )
    return "\n".join(
        [
            f"a whole run against {MODEL} on llama-server ({mode}; {versions()})",
            "per agent type, means per step (tokens as the server reported them):",
            *rows,
            f"agent steps valid on the first attempt: {first:.0%} of {finished} "
            f"({versus_aim(first * 100, FIRST_ATTEMPT_AIM * 100, at_least=True, unit='%')}); "
            f"steps at their output limit: {', '.join(capped) or 'none'}",
            f"the run's wall time {run.wall_seconds / 60:.1f} min ("
            + (
                versus_aim(run.wall_seconds / 60, RUN_MINUTES_AIM, unit=" min")
                if run.ended == "COMPLETED"
                else f"aim <= {RUN_MINUTES_AIM:g} min for a whole run: NOT met, it did not end"
            )
            + ")",
            f"agent steps {run.steps}, LLM calls {run.calls} ({run.calls / steps:.2f} per step), "
            f"tokens in {run.prompt_tokens} (evaluated; the server reuses a cached prefix), "
            f"out {run.output_tokens}",
            f"wall per step {run.wall_seconds / steps:.1f} s / model time per step "
            f"{run.model_seconds / steps:.1f} s: {versus_aim(share, AIM)}",
            f"the run ended: {run.ended}",
        ]
    )


def main() -> None:
    parser = bench_parser(
        "python -m bench.real_model",
        __doc__.splitlines()[0],
        ("--steps", 6, "agent steps before the bench stops the run"),
        db_file=True,
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHON": sys.executable, "RUN_DIR": tmp, "LLM_CTX": "8192"}
        started = subprocess.run(
            ["bash", str(SERVE), "start"], env=env, capture_output=True, text=True, check=False
        )
        if started.returncode != 0:
            raise SystemExit(f"llama-server did not start: {started.stderr.strip()}")
        try:
            run = run_on_dev_server(
                measure,
                db_file=args.db_file,
                base_url=started.stdout.strip().splitlines()[-1],
                log=Path(tmp) / "llama-server.log",
                steps=args.steps,
            )
        finally:
            subprocess.run(["bash", str(SERVE), "stop"], env=env, check=False)
    print(report(run, server_mode(args.db_file)))


if __name__ == "__main__":
    main()
