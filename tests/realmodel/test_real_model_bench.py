"""Smoke test of ``bench.real_model``: one agent step against the real local model."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from bench.real_model import measure, report
from tests.realmodel.conftest import RealModel

pytestmark = pytest.mark.realmodel


async def test_the_bench_measures_a_run_against_the_real_model(
    client: Client, real_model_server: RealModel
) -> None:
    run = await measure(
        client, base_url=real_model_server.base_url, log=real_model_server.log, steps=1
    )
    assert run.calls >= 1 and run.prompt_tokens > 0 and run.output_tokens > 0
    assert run.model_seconds > 0 and run.wall_seconds >= run.model_seconds * 0.5
    assert "FAILED" not in run.ended
    assert "wall per step" in report(run, "test")
