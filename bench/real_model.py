"""Bench: a whole run against a real local model (issue 19).

SmolLM2-135M-Instruct behind llama.cpp's ``llama-server`` (started with
``../shared/realmodel/serve.sh``) drives an orchestrator run on a dev server; every question is
answered at once with the first option (a person who answers instantly), until the run ends or
takes ``--steps`` agent steps. It prints the LLM calls, calls per agent step, tokens in and out
(the server's own counts from its log), the wall time per agent step over the model's time per
step (the workflow's share of the wall time, questions' waits left out; aim <= 1.05x) and how the
run ended.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus

from activities.llm import LlmSettings
from app.worker_setup import build_worker
from bench.harness import bench_parser, run_on_dev_server, server_mode, versions, versus_aim
from models.interrupt_flow import InterruptStatus
from models.state import OrchestratorInput, OrchestratorStatus
from tests.support.interrupts import answer_all
from workflows.interrupt import InterruptWorkflow
from workflows.orchestrator import OrchestratorWorkflow

SERVE = Path(__file__).resolve().parents[2] / "shared" / "realmodel" / "serve.sh"
MODEL = "smollm2-135m-instruct"
AIM = 1.05
TIMING = re.compile(
    r"(?P<what>prompt eval time|       eval time|      total time) =\s+(?P<ms>[\d.]+) ms /\s+"
    r"(?P<tokens>\d+) tokens"
)


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
    settings = LlmSettings(
        api_key="sk-local",
        base_url=base_url,
        model=MODEL,
        max_output_tokens=300,
        validation_attempts=2,
        request_timeout=timedelta(seconds=600),
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
                        InterruptWorkflow.resolve_validated, answer_all(question.request, "A")
                    )
                    answered.add(waiting.workflow_id)
            await asyncio.sleep(0.2)
    wall = time.monotonic() - started - await _waits(client, answered)
    calls, prompt, output, model_seconds = server_timings(log, since)
    return RealRun(calls, done, prompt, output, model_seconds, wall, ended)


def report(run: RealRun, mode: str) -> str:
    steps = max(run.steps, 1)
    share = run.wall_seconds / run.model_seconds if run.model_seconds else float("inf")
    return "\n".join(
        [
            f"a whole run against {MODEL} on llama-server ({mode}; {versions()})",
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
        env = {**os.environ, "PYTHON": sys.executable, "RUN_DIR": tmp, "LLM_CTX": "4096"}
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
