"""The software team built from its team file against the same team built by hand (the way the
package built it before it had a file), for ``python -m bench.teams``.

1. **The team-dependent part of a step.** What of an agent's step depends on how its team was
   built: its prompt (``PromptRenderer.agent_messages``: the agent's template, rendered once per
   worker, then the contributors' sections and the request) and the schema its reply is held to
   (``decoder_schema`` of its routing). The file-built side is ``SOFTWARE_TEAM`` (templates from
   ``teams/software/``, served from the team as any team's are); the hand-built side is a ``Team``
   made directly from the same classes with its templates as files under a prompts folder
   (``workflow/<agent>.jinja``, a copy of the package's ``prompts/`` with the software team's
   templates beside the partials). Both sides render the same text (checked), are interleaved
   (which goes first swaps each repeat), and the medians over the eleven sequential agents are
   summed per side: file / hand (aim <= 1.02x).
2. **Worker start.** In a fresh interpreter, the import of the worker's modules (which builds
   the software team from its file), then in that process ``load_software_team`` + ``build_team`` of
   the software team on a cold cache: what the file adds to a start. Today's start is that import
   without it; the ratio is start / (start - the file's part) (report; aim <= 1.2x).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from agent_interrupts.activities.output_schema import decoder_schema
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.models.agent_types import slug
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_files import PROMPTS_DIR
from bench.prompt_assembly import realistic_call

STEP_AIM = 1.02
START_AIM = 1.2

START_SCRIPT = """
import json, time
start = time.perf_counter()
import agent_interrupts.app.worker_setup
whole = time.perf_counter() - start
from agent_interrupts.models.team_build import TEAMS, build_team
from agent_interrupts.models.team_files import load_software_team
TEAMS.clear()
start = time.perf_counter()
build_team(load_software_team())
team = time.perf_counter() - start
print(json.dumps({"start": whole * 1000, "team": team * 1000}))
"""


def hand_built(prompts: Path) -> Team:
    """The software team made directly from its classes, its templates as files in ``prompts``
    (``workflow/<agent>.jinja`` beside the partials), as the package built it before its file."""
    shutil.copytree(PROMPTS_DIR, prompts, dirs_exist_ok=True)
    nodes = {}
    for agent, node in SOFTWARE_TEAM.nodes.items():
        name = f"workflow/{slug(agent)}.jinja"
        (prompts / name).write_text(SOFTWARE_TEAM.templates[node.template], encoding="utf-8")
        nodes[agent] = replace(node, template_name=name)
    return replace(SOFTWARE_TEAM, nodes=nodes, templates={})


@dataclass(frozen=True)
class FileStepResult:
    """Per agent: the team-dependent part of a step (us), file-built and hand-built."""

    from_file_us: dict[str, list[float]]
    by_hand_us: dict[str, list[float]]

    @property
    def ratio(self) -> float:
        return self.total(self.from_file_us) / self.total(self.by_hand_us)

    @staticmethod
    def total(samples: dict[str, list[float]]) -> float:
        return sum(statistics.median(s) for s in samples.values())


def _timed_us(renderer: PromptRenderer, team: Team, agent: str, history: int) -> float:
    node = team.node(agent)
    call = realistic_call(agent, history)
    start = time.perf_counter_ns()
    renderer.agent_messages(node, call, team)
    decoder_schema(node.output_model)
    return (time.perf_counter_ns() - start) / 1000


def measure_file_steps(agents: list[str], *, repeats: int, history: int) -> FileStepResult:
    """The team-dependent part of each agent's step, file-built vs hand-built, interleaved."""
    with tempfile.TemporaryDirectory(prefix="bench-software-team-") as folder:
        prompts = Path(folder) / "prompts"
        by_hand = hand_built(prompts)
        sides = (
            (PromptRenderer(), SOFTWARE_TEAM),
            (PromptRenderer(prompts_dir=prompts), by_hand),
        )
        for agent in agents:  # warm-up; both sides render the same prompt
            texts = {
                json.dumps(
                    renderer.agent_messages(
                        team.node(agent), realistic_call(agent, history), team
                    ).messages
                )
                for renderer, team in sides
            }
            if len(texts) != 1:
                raise AssertionError(f"{agent}: the two teams render different prompts")
        samples: list[dict[str, list[float]]] = [{a: [] for a in agents}, {a: [] for a in agents}]
        for i in range(repeats):
            order = (0, 1) if i % 2 == 0 else (1, 0)
            for agent in agents:
                for side in order:
                    renderer, team = sides[side]
                    samples[side][agent].append(_timed_us(renderer, team, agent, history))
    return FileStepResult(from_file_us=samples[0], by_hand_us=samples[1])


@dataclass(frozen=True)
class FileStartResult:
    """Fresh-interpreter starts (ms): the worker's imports, and the software team's file's part."""

    start_ms: list[float]
    team_ms: list[float]

    @property
    def ratio(self) -> float:
        start = statistics.median(self.start_ms)
        return start / (start - statistics.median(self.team_ms))


def measure_file_starts(starts: int) -> FileStartResult:
    """``starts`` fresh interpreters, each importing the worker's modules."""
    start_ms: list[float] = []
    team_ms: list[float] = []
    for _ in range(starts):
        out = subprocess.run(
            [sys.executable, "-c", START_SCRIPT], capture_output=True, text=True, check=True
        )
        found = json.loads(out.stdout.strip().splitlines()[-1])
        start_ms.append(found["start"])
        team_ms.append(found["team"])
    return FileStartResult(start_ms=start_ms, team_ms=team_ms)


def report_file(steps: FileStepResult, starts: FileStartResult, versus: str) -> str:
    m = statistics.median
    repeats = len(next(iter(steps.from_file_us.values())))
    return "\n".join(
        [
            "== the software team from its team file vs built by hand from the same classes ==",
            "the team-dependent part of a step (the prompt: template, contributors, request; "
            "the reply's schema), file-built vs hand-built (templates as files under prompts/), "
            f"the same prompt text; interleaved, median of {repeats} per agent, summed over "
            f"{len(steps.from_file_us)} sequential agents: from the file "
            f"{steps.total(steps.from_file_us) / 1000:.2f} ms vs by hand "
            f"{steps.total(steps.by_hand_us) / 1000:.2f} ms: file / hand {versus}",
            f"worker start (fresh interpreter, importing the worker's modules, median of "
            f"{len(starts.start_ms)}): {m(starts.start_ms):.0f} ms, of which loading and building "
            f"the software team from its file {m(starts.team_ms):.1f} ms: start / (start without "
            f"it) {starts.ratio:.3f}x (report; aim <= {START_AIM}x)",
        ]
    )
