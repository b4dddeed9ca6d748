"""Build a worker that hosts every workflow and activity of the project."""

from __future__ import annotations

import pkgutil
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING

import httpx2
from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxRestrictions

import agent_interrupts.workflows
from agent_interrupts.activities.agents import AgentActivities
from agent_interrupts.activities.answer_rules import AnswerRuleActivities
from agent_interrupts.activities.autonomy import AutonomyActivities, AutonomySettings
from agent_interrupts.activities.code_changes import CodeChangeActivities
from agent_interrupts.activities.contributors import default_registry
from agent_interrupts.activities.llm import CONTROLLER, LlmSettings, StructuredLlm
from agent_interrupts.activities.notify import NotificationActivities, NotifySettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.resolution import TRANSLATOR, ResolutionActivities
from agent_interrupts.activities.round_trip import round_trip
from agent_interrupts.activities.search_attributes import list_keyword_search_attributes
from agent_interrupts.activities.shadow_start import ShadowStarter
from agent_interrupts.activities.teams import TeamActivities, TeamFinder
from agent_interrupts.activities.tools.loop import Toolbox
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.tools.workspace import WorkspaceActivities
from agent_interrupts.app.config import (
    OFFLINE_MAX_ACTIVITIES,
    WORKER_CACHED_WORKFLOWS,
    WORKER_STICKY_SECONDS,
    WORKER_WORKFLOW_TASKS,
)
from agent_interrupts.app.data_converter import with_checked_converter
from agent_interrupts.app.fork_check import check_fork_link
from agent_interrupts.app.sandbox_runner import QuickSandboxRunner
from agent_interrupts.app.startup_heap import freeze_startup_heap
from agent_interrupts.models.answer_rules import AnswerRules
from agent_interrupts.models.policies import HEARTBEAT_THROTTLE
from agent_interrupts.models.team_build import TeamRegistry, team_of
from agent_interrupts.models.team_spec import TeamSpec
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.notifications import NotificationWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

if TYPE_CHECKING:
    from openai import AsyncOpenAI
from agent_interrupts.workflows.shadow import ShadowAnswerWorkflow

OFFLINE_BASE_URL = "http://offline-model.invalid/v1"

WORKFLOWS = [OrchestratorWorkflow, InterruptWorkflow, NotificationWorkflow, ShadowAnswerWorkflow]

SANDBOXED_MODULES = tuple(
    f"agent_interrupts.workflows.{m}" for m in ("orchestrator", "interrupt", "notifications")
)
"""The workflow definitions: re-imported in the sandbox for every run, so its checks apply."""
PURE_WORKFLOW_MODULES = tuple(
    f"agent_interrupts.workflows.{m.name}"
    for m in pkgutil.iter_modules(agent_interrupts.workflows.__path__)
    if f"agent_interrupts.workflows.{m.name}" not in SANDBOXED_MODULES
)
"""The workflows' deterministic helpers (planner, steps, blackboard ...): imported once."""

WORKFLOW_RUNNER = QuickSandboxRunner(
    restrictions=SandboxRestrictions.default.with_passthrough_modules(
        "agent_interrupts.models", "agent_interrupts.teams", "pydantic", *PURE_WORKFLOW_MODULES
    ),
    compiled_once=SANDBOXED_MODULES,
)
"""Our pydantic models (the generic ones and the software team's, ``teams/software/``) and the
workflows' pure helpers are passed through the sandbox: imported once per worker instead of once
per run, and one class identity in and out. The sandbox is entered only to run workflow code,
and the workflow definitions it imports for every run are compiled once per process
(``app/sandbox_runner.py``)."""


def openai_client(settings: LlmSettings, offline: OfflineModel | None = None) -> AsyncOpenAI:
    """The SDK client: the real endpoint, or the offline model as its HTTP transport."""
    from openai import AsyncOpenAI  # loaded by workers only, not by every CLI command

    if settings.offline:
        transport = offline or OfflineModel()
        return AsyncOpenAI(
            api_key="offline",
            base_url=OFFLINE_BASE_URL,
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport),
        )
    return AsyncOpenAI(
        api_key=settings.api_key,
        base_url=settings.base_url,
        max_retries=0,
        timeout=settings.request_timeout.total_seconds(),
    )


def served_agents(teams: Mapping[str, TeamSpec]) -> frozenset[str]:
    """The names a worker's model calls go by: every agent of the teams it serves (the software
    team's and ``teams``') and the handler's calls (CONTROLLER, TRANSLATOR). Per-agent settings
    (``AGENT_MODEL_<AGENT>``, ``LLM_MAX_OUTPUT_TOKENS_<AGENT>``) and the autonomy policy name
    these."""
    declared = (a.name for spec in teams.values() for a in spec.agents)
    return frozenset({*team_of(None).nodes, *declared, CONTROLLER, TRANSLATOR})


def build_worker(
    client: Client,
    task_queue: str,
    settings: LlmSettings,
    *,
    offline: OfflineModel | None = None,
    scenario: OfflineScenario | None = None,
    prompts: PromptRenderer | None = None,
    notify: NotifySettings | None = None,
    tools: ToolSettings | None = None,
    autonomy_settings: AutonomySettings | None = None,
    drain: timedelta = timedelta(),
    max_activities: int | None = None,
    sticky: timedelta = timedelta(seconds=WORKER_STICKY_SECONDS),
    teams: Mapping[str, TeamSpec] | None = None,
    answer_rules: AnswerRules | None = None,
    max_cached_workflows: int = WORKER_CACHED_WORKFLOWS,
    max_workflow_tasks: int = WORKER_WORKFLOW_TASKS,
) -> Worker:
    """A worker for ``task_queue`` with all workflows and the agent activities.

    ``prompts`` defaults to a renderer with the default prompt contributors; ``notify`` to no
    notification channels (``app.config.notify_settings_from_env`` reads them); ``tools``
    (workspace cache, memory, budgets) to ``ToolSettings.from_env()``. ``drain``: how long its
    shutdown lets running activities finish before cancelling them (``worker.py`` passes
    AGENTS_WORKER_DRAIN_SECONDS; the default, none, suits in-process workers of tests and benches).
    ``max_activities``: activities it runs at once (AGENTS_WORKER_MAX_ACTIVITIES); by default
    OFFLINE_MAX_ACTIVITIES with the offline model, whose answers take the worker's event loop, and
    the SDK's default with a model endpoint. ``sticky``: how long a run's next workflow task waits
    for this worker before another may take it (AGENTS_WORKER_STICKY_SECONDS). ``teams``: the
    declared teams it serves besides the software team (AGENTS_TEAMS and those shipped in the
    package: ``models.team_files.served_teams``). ``answer_rules``: who may answer which
    questions (AGENTS_ANSWER_RULES); by default anybody may answer every question.
    ``max_cached_workflows``: workflows it holds in memory (AGENTS_WORKER_MAX_CACHED_WORKFLOWS); an
    evicted one replays its history at its next workflow task. ``max_workflow_tasks``: workflow
    tasks it runs at once (AGENTS_WORKER_MAX_WORKFLOW_TASKS).
    """
    if offline is None and settings.offline:
        offline = OfflineModel(scenario, keep_requests=False)  # a worker runs for months
    llm = StructuredLlm(openai_client(settings, offline), settings)
    tools = tools if tools is not None else ToolSettings.from_env()
    prompts = prompts if prompts is not None else PromptRenderer(registry=default_registry(tools))
    registry = TeamRegistry((teams or {}).values())  # the teams its activities build and find
    if offline is not None:
        offline.serve(registry)
    agents = AgentActivities(llm, prompts, Toolbox(tools), TeamFinder(client, registry))
    workspaces = WorkspaceActivities(tools)
    code = CodeChangeActivities(tools)
    resolution = ResolutionActivities(llm, prompts, ShadowStarter(client), registry)
    notifications = NotificationActivities(notify or NotifySettings())
    autonomy = AutonomyActivities(
        client, autonomy_settings or AutonomySettings.from_env(), settings.model_for(CONTROLLER)
    )
    freeze_startup_heap()  # the process's first worker: its heap out of the collector's passes
    return Worker(
        with_checked_converter(client),
        task_queue=task_queue,
        workflows=WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        max_heartbeat_throttle_interval=HEARTBEAT_THROTTLE,
        default_heartbeat_throttle_interval=HEARTBEAT_THROTTLE,
        graceful_shutdown_timeout=drain,
        sticky_queue_schedule_to_start_timeout=sticky,
        max_cached_workflows=max_cached_workflows,
        max_concurrent_workflow_tasks=max_workflow_tasks,
        max_concurrent_activities=max_activities
        or (OFFLINE_MAX_ACTIVITIES if offline is not None else None),
        activities=[
            agents.run_agent,
            resolution.translate_resolution,
            resolution.review_interrupt,
            autonomy.decide_autonomy,
            notifications.plan,
            notifications.notify,
            AnswerRuleActivities(answer_rules).answerers,
            workspaces.pin_workspace,
            TeamActivities(teams or {}).load_team,
            list_keyword_search_attributes,
            round_trip,
            check_fork_link,
            code.prepare_worktree,
            code.commit_ticket,
            code.review_material,
            code.merge_tickets,
            code.finish_code,
        ],
    )
