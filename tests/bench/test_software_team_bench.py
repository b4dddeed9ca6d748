"""Smoke test for the software team's file bench: both sides render the same prompts, the
figures are positive ratios, and a fresh interpreter reports the file's part of its start."""

from __future__ import annotations

import re

from bench.software_team import (
    measure_file_starts,
    measure_file_steps,
    report_file,
)
from bench.teams import SEQUENTIAL


def test_the_file_built_and_the_hand_built_team_are_timed_and_compared() -> None:
    steps = measure_file_steps(SEQUENTIAL[:3], repeats=2, history=5)
    assert steps.ratio > 0 and all(len(s) == 2 for s in steps.by_hand_us.values())
    starts = measure_file_starts(1)
    assert 0 < starts.team_ms[0] < starts.start_ms[0]
    text = report_file(steps, starts, f"{steps.ratio:.2f}x")
    assert re.search(r"file / hand \d+\.\d+x", text)
    assert re.search(r"start / \(start without it\) \d+\.\d+x", text)
