"""The offline model never answers in place of a configured endpoint (docs/models.md): a
``python worker.py`` with ``OPENAI_BASE_URL`` and no ``OPENAI_API_KEY`` refuses to start in one
line naming both; one whose endpoint does not list its model, or does not answer, starts with a
loud warning naming ``AGENT_MODEL`` or ``OPENAI_BASE_URL``, and its start line names the model.
Real worker processes on the suite's dev server; the endpoint is the real OpenAI-compatible test
server."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.model_check import model_problems
from bench.harness import worker_env
from tests.cli.support import free_port
from tests.support.openai_server import ScriptedOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
START_CEILING = 120.0


def _until_started(env: dict[str, str]) -> str:
    """Start ``python worker.py``, read its output until its start line; kill it; the output."""
    process = subprocess.Popen(
        [sys.executable, "worker.py"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen = ""
    deadline = time.monotonic() + START_CEILING
    try:
        assert process.stdout is not None
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            seen += line
            if not line or line.startswith("worker: "):
                break
    finally:
        process.kill()
        process.wait(timeout=30)
    assert "worker: " in seen, seen
    return seen


def test_a_base_url_without_a_key_refuses_to_start(client: Client, tmp_path: Path) -> None:
    env = worker_env(client, "refused") | {
        "AGENTS_STATE_DIR": str(tmp_path),
        "OPENAI_BASE_URL": "https://api.openai.com/v1",
    }
    done = subprocess.run(
        [sys.executable, "worker.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "OPENAI_BASE_URL is https://api.openai.com/v1 but OPENAI_API_KEY is unset" in lines[0]
    assert "the offline model would answer in place of that endpoint" in lines[0]


def test_a_model_the_endpoint_does_not_serve_is_a_loud_warning(
    client: Client, tmp_path: Path
) -> None:
    models = {"/v1/models": {"object": "list", "data": [{"id": "smollm2", "object": "model"}]}}
    with ScriptedOpenAIServer(pages=models) as endpoint:
        env = worker_env(client, "unserved-model") | {
            "AGENTS_STATE_DIR": str(tmp_path),
            "AGENTS_STUCK_CHECK_SECONDS": "0",
            "OPENAI_API_KEY": "local",
            "OPENAI_BASE_URL": endpoint.base_url,
            "AGENT_MODEL": "gpt-4o-mini",
        }
        said = _until_started(env)
        asked = [r.path for r in endpoint.received]
        base = endpoint.base_url
    assert "/v1/models" in asked
    assert (
        f"WARNING: the model endpoint OPENAI_BASE_URL={base} does not serve "
        "AGENT_MODEL=gpt-4o-mini (it serves: smollm2)" in said
    ), said
    assert f"model gpt-4o-mini at {base}" in said, "the start line names the model"

    env["AGENT_MODEL"] = "smollm2"
    with ScriptedOpenAIServer(pages=models) as endpoint:
        env["OPENAI_BASE_URL"] = endpoint.base_url
        assert "WARNING" not in _until_started(env)


def test_an_endpoint_that_does_not_answer_is_a_loud_warning(client: Client, tmp_path: Path) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    env = worker_env(client, "no-endpoint") | {
        "AGENTS_STATE_DIR": str(tmp_path),
        "AGENTS_STUCK_CHECK_SECONDS": "0",
        "OPENAI_API_KEY": "local",
        "OPENAI_BASE_URL": nowhere,
    }
    said = _until_started(env)
    assert f"WARNING: the model endpoint OPENAI_BASE_URL={nowhere} does not answer" in said, said
    assert "Check OPENAI_BASE_URL" in said


async def test_a_malformed_base_url_is_a_warning_with_its_password_redacted() -> None:
    settings = LlmSettings(api_key="local", base_url="http://ada:s3cret-pass@host:abc/v1")
    (problem,) = await model_problems(settings)
    assert "does not answer" in problem and "Check OPENAI_BASE_URL" in problem
    assert "s3cret-pass" not in problem


def test_per_agent_settings_for_an_agent_no_served_team_has_are_named_at_start(
    client: Client, tmp_path: Path
) -> None:
    """A declared team's agent is a name a per-agent setting may use; a typo is a warning line,
    and an autonomy policy naming no served agent refuses to start in one line."""
    env = worker_env(client, "per-agent") | {
        "AGENTS_STATE_DIR": str(tmp_path),
        "AGENTS_STUCK_CHECK_SECONDS": "0",
        "LLM_MAX_OUTPUT_TOKENS_TRIAGE": "900",  # incident-response's, shipped
        "AGENT_MODEL_TRIAGEE": "gpt-4o",
    }
    said = _until_started(env)
    assert said.count("warning: ") == 1, said
    assert "warning: AGENT_MODEL_TRIAGEE names no agent of the teams this worker serves" in said
    policy = tmp_path / "policy.json"
    policy.write_text('{"kinds": [{"agentType": "TRIAGE", "questionKind": "choice"}]}')
    env = env | {"AGENT_AUTONOMY_POLICY": str(policy)}
    assert "warning: AGENT_MODEL_TRIAGEE" in _until_started(env), "TRIAGE is served: it starts"
    policy.write_text('{"kinds": [{"agentType": "TRIAGEE", "questionKind": "choice"}]}')
    done = subprocess.run(
        [sys.executable, "worker.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "names TRIAGEE, no agent of the teams this worker serves" in line
