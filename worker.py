"""Run a worker for the agent workflows: ``python worker.py``.

Environment: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE
(default ``agents``), TEMPORAL_API_KEY / TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY; OPENAI_API_KEY,
OPENAI_BASE_URL, AGENT_MODEL, AGENT_MODEL_<AGENT_TYPE>; without OPENAI_API_KEY the offline model
answers, shaped by OFFLINE_SCENARIO (see README).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from activities.offline_model import OfflineScenario
from app.config import TemporalSettings, llm_settings_from_env
from app.connect import connect
from app.process_exit import exit_now
from app.worker_setup import build_worker

LOCAL_ADDRESS = "localhost:7233"


async def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    settings = TemporalSettings.from_env()
    llm = llm_settings_from_env()
    try:
        scenario = OfflineScenario.parse(os.environ.get("OFFLINE_SCENARIO"))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    address = settings.address or LOCAL_ADDRESS
    try:
        client = await connect(settings, address)
    except RuntimeError as err:
        print(f"error: cannot connect to Temporal at {address}: {err}", file=sys.stderr)
        return 1
    model = "offline model" if llm.offline else f"model {llm.model} at {llm.base_url or 'OpenAI'}"
    print(f"worker: {address} namespace={settings.namespace} queue={settings.task_queue}, {model}")
    worker = build_worker(client, settings.task_queue, llm, scenario=scenario)
    await worker.run()
    return 0


if __name__ == "__main__":
    try:
        code = asyncio.run(main())
    except KeyboardInterrupt:
        code = 130
    exit_now(code)
