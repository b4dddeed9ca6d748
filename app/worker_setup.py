"""Build a worker that hosts every workflow and activity of the project."""

from __future__ import annotations

import httpx2
from openai import AsyncOpenAI
from temporalio.client import Client
from temporalio.worker import Worker

from activities.agents import AgentActivities
from activities.llm import LlmSettings, StructuredLlm
from activities.offline_model import OfflineModel, OfflineScenario
from activities.prompting import PromptRenderer
from workflows.orchestrator import OrchestratorWorkflow

OFFLINE_BASE_URL = "http://offline-model.invalid/v1"


def openai_client(settings: LlmSettings, offline: OfflineModel | None = None) -> AsyncOpenAI:
    """The SDK client: the real endpoint, or the offline model as its HTTP transport."""
    if settings.offline:
        transport = offline or OfflineModel()
        return AsyncOpenAI(
            api_key="offline",
            base_url=OFFLINE_BASE_URL,
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport),
        )
    return AsyncOpenAI(api_key=settings.api_key, base_url=settings.base_url, max_retries=0)


def build_worker(
    client: Client,
    task_queue: str,
    settings: LlmSettings,
    *,
    offline: OfflineModel | None = None,
    scenario: OfflineScenario | None = None,
) -> Worker:
    """A worker for ``task_queue`` with all workflows and the agent activities."""
    if offline is None and settings.offline:
        offline = OfflineModel(scenario)
    llm = StructuredLlm(openai_client(settings, offline), settings)
    agents = AgentActivities(llm, PromptRenderer())
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[OrchestratorWorkflow],
        activities=[agents.run_agent],
    )
