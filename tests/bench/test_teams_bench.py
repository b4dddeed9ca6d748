"""Smoke test for the teams bench: the mirror is a valid team of the software team's shape, a
few steps of each side run, worker starts with 1 and 10 teams run, and the report prints the
ratios as positive numbers (never a speed)."""

from __future__ import annotations

import re
from pathlib import Path

from temporalio.client import Client

from agent_interrupts.models.graph import NODES
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import load_team_file
from bench.teams import (
    SEQUENTIAL,
    measure_starts,
    measure_steps,
    mirror_spec,
    mirrored,
    report_starts,
    report_steps,
    write_team_file,
)

RATIO = r"(\d+\.\d+)x"


def _ratio(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found is not None, f"{pattern!r} not in:\n{text}"
    return float(found.group(1))


def test_the_mirror_has_the_software_teams_shape_and_survives_a_team_file(
    tmp_path: Path,
) -> None:
    spec = mirror_spec()
    team = build_team(spec)
    assert set(team.nodes) == {mirrored(a) for a in NODES}
    for agent, node in NODES.items():
        declared = team.node(mirrored(agent))
        assert declared.phase == node.phase
        assert len(declared.output_model.route_aliases()) == len(node.output_model.route_aliases())
    assert load_team_file(write_team_file(spec, tmp_path / spec.name)) == spec


async def test_bench_measures_both_sides_and_reports_positive_ratios(client: Client) -> None:
    steps = await measure_steps(repeats=1, history=5, builds=1)
    assert [s.agent for s in steps.steps] == SEQUENTIAL
    text = report_steps(steps)
    assert _ratio(rf"declared / software {RATIO} \(aim <= 1.05x: (?:met|NOT met)\)", text) > 0
    assert _ratio(rf"run_agent alone: .*?: {RATIO};", text) > 0
    assert "building the declared team once (build_team, cold cache): median " in text

    starts = await measure_starts(client, starts=1)
    assert starts.served == (2, 11)
    text = report_starts(starts)
    assert _ratio(rf"worker start: .* 10 / 1 {RATIO}", text) > 0
    assert _ratio(rf"load_teams alone: .* 10 / 1 {RATIO}", text) > 0
