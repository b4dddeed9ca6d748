"""Tools bench: what tool calls cost, and how search and recall scale.

1. **Tool call overhead.** One discovery agent step through the real workflow loop
   (``SupervisedCalls``, one ``run_agent`` activity per model call, offline model): a step that
   makes ``--calls`` tool calls (two per model call) against a step that makes none. The
   difference per tool call is what tools add to a step; a real model takes ~1-10 s per call.
2. **Search** over a generated repository of ``--files`` files: p50/p95 per query.
3. **Recall** over ``--memories`` memories in the SQLite FTS5 store: p50/p95 per query.

``python -m bench.tools [--files 50000] [--memories 100000]``
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from agent_interrupts.activities.agents import AgentActivities
from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.offline_model import OfflineModel, chat_completion
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.tools import code_tools
from agent_interrupts.activities.tools.loop import Toolbox
from agent_interrupts.activities.tools.memory import MemoryStore, SqliteMemory
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.workspace import Workspace
from agent_interrupts.app.worker_setup import openai_client
from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.tools import PinnedWorkspace
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.supervised_call import SupervisedCalls
from bench.harness import bench_parser, fresh_id, repeat, run_on_dev_server, versions

WORDS = [
    "gateway", "limit", "rate", "token", "bucket", "request", "client", "config", "store",
    "cache", "retry", "timeout", "queue", "worker", "handler", "route", "session", "user",
    "order", "payment", "invoice", "metric", "trace", "log",
]  # fmt: skip


@workflow.defn(sandboxed=False)
class ToolStep:
    """One agent step, tool rounds included, as the orchestrator runs it."""

    @workflow.run
    async def run(self, call: AgentCall) -> AgentReply:
        return await SupervisedCalls().run(call, lambda: None)


class ScriptedTools(OfflineModel):
    """The offline model, asking for ``calls`` searches, two per model call, then answering."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.calls = calls

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        done = sum(1 for m in messages if m.get("role") == "tool")
        if not body.get("tools") or done >= self.calls:
            return super().completion({**body, "tools": None})
        batch = [
            {
                "id": f"call_{done + i}",
                "type": "function",
                "function": {
                    "name": "search",
                    "arguments": json.dumps(
                        {"pattern": WORDS[(done + i) % len(WORDS)], "literal": True, "glob": None}
                    ),
                },
            }
            for i in range(min(2, self.calls - done))
        ]
        return chat_completion(body.get("model", ""), None, batch)


@dataclass(frozen=True)
class Result:
    step_without: list[float]
    step_with: list[float]
    calls: int
    tool_ms: list[float]
    search: list[float]
    recall: list[float]
    files: int
    memories: int


def step_worker(client: Client, queue: str, model: OfflineModel, settings: ToolSettings) -> Worker:
    """A worker of ``ToolStep`` and the agent activity, with the offline model ``model``."""
    llm = LlmSettings()
    agents = AgentActivities(
        StructuredLlm(openai_client(llm, model), llm), PromptRenderer(), Toolbox(settings)
    )
    return Worker(
        client,
        task_queue=queue,
        workflows=[ToolStep],
        activities=[agents.run_agent],
        workflow_runner=UnsandboxedWorkflowRunner(),
    )


def make_repository(root: Path, files: int) -> None:
    """``files`` small Python-like files in nested directories, deterministic content."""
    rng = random.Random(7)
    for n in range(files):
        folder = root / f"pkg{n % 100:02d}" / f"mod{n % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            f"def f{n}_{i}({rng.choice(WORDS)}):  # {' '.join(rng.sample(WORDS, 4))}"
            for i in range(20)
        ]
        (folder / f"file{n}.py").write_text("\n".join(lines) + "\n")


def fill_memory(store: MemoryStore, memories: int) -> None:
    rng = random.Random(11)
    for n in range(memories):
        store.retain(
            f"bench/{n}",
            "bench",
            " ".join(rng.sample(WORDS, 8)) + f" episode {n}",
            agent="DISCOVERY_AGENT",
            node_id=f"n-{n}",
            context_ids=[],
            files=[],
        )


def time_recalls(store: MemoryStore, queries: int) -> list[float]:
    """Seconds of each of ``queries`` two-word recalls over what ``fill_memory`` retained."""
    times = []
    for n in range(queries):
        started = time.perf_counter()
        store.recall("bench", f"{WORDS[n % len(WORDS)]} {WORDS[(n * 7) % len(WORDS)]}")
        times.append(time.perf_counter() - started)
    return times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(
    client: Client, *, calls: int, runs: int, files: int, memories: int, queries: int, gap: float
) -> Result:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = root / "repo"
        make_repository(repo, files)
        settings = ToolSettings(state_dir=root / "state")
        pinned = PinnedWorkspace(source=str(repo), commit="0" * 40, memory_key="bench")
        tree = settings.workspace_cache / "trees" / pinned.commit
        tree.parent.mkdir(parents=True)
        tree.symlink_to(repo)  # the generated tree stands for the extracted commit
        step_without: list[float] = []
        step_with: list[float] = []
        tool_ms: list[float] = []
        for count, times in ((0, step_without), (calls, step_with)):
            queue = fresh_id("bench-tools")
            async with step_worker(client, queue, ScriptedTools(count), settings):

                async def once(count: int = count, queue: str = queue) -> tuple[float, AgentReply]:
                    call = AgentCall(
                        node_id="discovery-agent-1",
                        agent_type=AgentType.DISCOVERY_AGENT,
                        result_id=fresh_id("r"),
                        goal="add rate limiting to the gateway",
                        request={"subdomain": "gateway", "focus": "limits"},
                        workspace=pinned if count else None,
                    )
                    started = time.perf_counter()
                    reply = await client.execute_workflow(
                        ToolStep.run, call, id=fresh_id("bench-tools"), task_queue=queue
                    )
                    return time.perf_counter() - started, reply

                for elapsed, reply in await repeat(once, runs=runs, warmups=1, gap=gap):
                    times.append(elapsed)
                    tool_ms += [t.latency_ms for t in reply.tool_trace]
        ws = Workspace(tree, pinned, settings)
        search = []
        for n in range(queries):
            started = time.perf_counter()
            code_tools.search(ws, rf"\b{WORDS[n % len(WORDS)]}\b", literal=False, glob=None)
            search.append(time.perf_counter() - started)
        store = SqliteMemory(root / "memory.sqlite3")
        fill_memory(store, memories)
        recall = time_recalls(store, queries)
        store.close()
    return Result(step_without, step_with, calls, tool_ms, search, recall, files, memories)


def report(r: Result) -> str:
    without, with_ = statistics.median(r.step_without), statistics.median(r.step_with)
    per_call = (with_ - without) / r.calls * 1000
    return "\n".join(
        [
            "Tools bench",
            versions(),
            f"step without tools: median {without * 1000:.1f} ms; with {r.calls} tool calls "
            f"({(r.calls + 1) // 2 + 1} model calls): median {with_ * 1000:.1f} ms -> "
            f"{per_call:.1f} ms per tool call in all (round trips included); the tool itself: "
            f"median {statistics.median(r.tool_ms):.2f} ms",
            f"  = {per_call / 1000 * 100:.1f}% of a 1 s model call per tool call",
            f"search over {r.files:,} files: p50 {percentile(r.search, 0.5) * 1000:.1f} ms, "
            f"p95 {percentile(r.search, 0.95) * 1000:.1f} ms ({len(r.search)} queries)",
            f"recall over {r.memories:,} memories: p50 {percentile(r.recall, 0.5) * 1000:.2f} ms, "
            f"p95 {percentile(r.recall, 0.95) * 1000:.2f} ms ({len(r.recall)} queries)",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.tools",
        "Tool call overhead, search over a large repository, recall over many memories.",
        ("--calls", 10, "tool calls of the measured step"),
        ("--runs", 5, "measured steps of each kind"),
        ("--files", 50_000, "files of the generated repository"),
        ("--memories", 100_000, "memories in the store"),
        ("--queries", 40, "search and recall queries"),
        gap=True,
    )
    args = parser.parse_args(argv)
    result = run_on_dev_server(
        measure,
        calls=args.calls,
        runs=args.runs,
        files=args.files,
        memories=args.memories,
        queries=args.queries,
        gap=args.gap,
    )
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
