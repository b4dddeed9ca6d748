"""``agents run --team``: a shipped team by name, a team file by path, bad team files, and a
team file edited while one of its runs waits for a person (that run keeps the version it
pinned)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.cli.support import ROOT, agents

INCIDENT = ROOT / "teams" / "incident-response"


def test_a_shipped_team_asks_at_a_dispatched_agent_and_finishes_once_answered(
    stack: dict[str, str],
) -> None:
    run = agents(
        stack,
        "run",
        "--team",
        "incident-response",
        "--scenario",
        "interrupt=INVESTIGATOR#2",
        "--id",
        "team-cli-1",
        "--stop-at-question",
        "checkout returns 502s",
    )
    assert run.returncode == 0, run.stderr
    assert "investigator-2 (INVESTIGATOR) asks" in run.stdout
    assert "accessNeeded" in run.stdout  # the agent's own typed question field
    answer = agents(
        stack,
        "resolve",
        "team-cli-1-interrupt-1",
        "--choice",
        "investigator-2/access-needed=B",
        "--confirm",
        "investigator-2/access-needed-ok=yes",
        "--as",
        "ada",
    )
    assert answer.returncode == 0, answer.stderr
    followed = agents(stack, "follow", "team-cli-1", "--json")
    assert followed.returncode == 0, followed.stderr
    final = json.loads(followed.stdout)
    assert final["team"] == "incident-response" and final["result"]["summary"]
    status = agents(stack, "status", "team-cli-1")
    assert "team: incident-response" in status.stdout
    assert "└ N x INVESTIGATOR" in status.stdout


def test_an_edited_team_file_changes_new_runs_never_a_waiting_one(
    stack: dict[str, str], tmp_path: Path
) -> None:
    team = tmp_path / "my-team"
    shutil.copytree(INCIDENT, team)
    toml = team / "team.toml"
    toml.write_text(toml.read_text().replace('name = "incident-response"', 'name = "my-incident"'))
    first = agents(
        stack,
        "run",
        "--team",
        str(team),
        "--scenario",
        "interrupt=REMEDIATION",
        "--id",
        "team-cli-2",
        "--stop-at-question",
        "disk full on db-1",
    )
    assert first.returncode == 0, first.stderr
    pinned = _team_hash(stack, "team-cli-2")
    text = toml.read_text()  # the file changes while team-cli-2 waits for its answer
    toml.write_text(text.replace("Triage a production incident", "Triage an incident", 1))
    second = agents(
        stack,
        "run",
        "--team",
        str(team),
        "--scenario",
        "interrupt=REMEDIATION",
        "--id",
        "team-cli-3",
        "--stop-at-question",
        "disk full on db-2",
    )
    assert second.returncode == 0, second.stderr
    assert "serves team my-incident" in second.stdout + second.stderr  # the worker restarted
    assert _team_hash(stack, "team-cli-3") != pinned
    answer = agents(
        stack,
        "resolve",
        "team-cli-2-interrupt-1",
        "--choice",
        "risky-step=A",
        "--confirm",
        "risky-step-ok=no",
    )
    assert answer.returncode == 0, answer.stderr
    followed = agents(stack, "follow", "team-cli-2", "--json")
    assert followed.returncode == 0, followed.stderr
    assert json.loads(followed.stdout)["teamSha256"].startswith(pinned)


def _team_hash(env: dict[str, str], run_id: str) -> str:
    status = agents(env, "status", run_id)
    line = next(x for x in status.stdout.splitlines() if x.startswith("team:"))
    return line.split("sha256 ")[1].rstrip(")")


def test_bad_team_files_are_refused_in_one_line_each_naming_file_and_agent(
    stack: dict[str, str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'name = "bad"\n'
        '[agents.LEAD]\nrole = "orchestrator"\ntemplate = "lead.jinja"\n'
        '[agents.LEAD.routes]\nNOWHERE = "go"\n'
        '[agents.LEAD.result]\nscores = "dict[str,int]"\n'
    )
    (tmp_path / "lead.jinja").write_text("Lead.")
    run = agents(stack, "run", "--team", str(bad), "x")
    assert run.returncode == 2
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert any("NOWHERE" in line and "agent LEAD" in line and str(bad) in line for line in lines)
    assert any("dict[str,int]" in line and "agent LEAD" in line for line in lines)
    unknown = agents(stack, "run", "--team", "no-such-team", "x")
    assert unknown.returncode == 2
    assert "no-such-team" in unknown.stderr and "AGENTS_TEAMS" in unknown.stderr


TINY = ROOT / "docs" / "examples" / "tiny-team"


def test_a_team_of_the_commands_agents_teams_is_served_by_a_stack_started_without_it(
    stack: dict[str, str], tmp_path: Path
) -> None:
    """``AGENTS_TEAMS`` counts wherever it is set: the stack (started without it) serves the
    team ``agents run --team NAME`` names, as it serves a ``--team PATH``."""
    shutil.copytree(TINY, tmp_path / "notes")
    env = {**stack, "AGENTS_TEAMS": str(tmp_path)}
    run = agents(env, "run", "--team", "release-notes", "--id", "team-cli-4", "notes of 2.0")
    assert run.returncode == 0, run.stderr
    assert "serves team release-notes" in run.stderr
    assert "Final result of team-cli-4" in run.stdout


def test_dispatched_agents_steps_print_under_their_own_phase(stack: dict[str, str]) -> None:
    run = agents(stack, "run", "--team", "incident-response", "--id", "team-cli-5", "502s")
    assert run.returncode == 0, run.stderr
    heading: str | None = None
    under: dict[str, set[str | None]] = {}
    for line in run.stdout.splitlines():
        if re.match(r"^[A-Z_]+ ─+$", line):
            heading = line.split()[0]
        elif (step := re.match(r"^\s+\S+ ([A-Z_]+) ", line)) is not None:
            under.setdefault(step[1], set()).add(heading)
    assert under["TRIAGE"] == {"TRIAGE"}
    assert under["INVESTIGATOR"] == {"INVESTIGATION"}, run.stdout
    assert under["INVESTIGATION_DISPATCH"] == {"INVESTIGATION"}


def test_the_stack_keeps_its_team_files_across_down_and_up(
    fresh_env: dict[str, str], tmp_path: Path
) -> None:
    """A run waiting on a question of a ``--team PATH`` team is answered, shown and followed
    after ``down`` and ``up``; once the file is gone, its worker's absence is one line naming
    the team and how to serve it again."""
    env, team = fresh_env, tmp_path / "notes"
    shutil.copytree(TINY, team)
    scenario = ("--scenario", "interrupt=EDITOR", "--stop-at-question")
    first = agents(env, "run", "--team", str(team), *scenario, "--id", "keep-1", "notes of 2.0")
    assert first.returncode == 0, first.stderr
    assert agents(env, "down").returncode == 0
    up = agents(env, "up")
    assert up.returncode == 0 and "warning" not in up.stderr, up.stderr
    status = agents(env, "status", "keep-1")
    assert status.returncode == 0, status.stderr
    assert "team: release-notes" in status.stdout and "waiting on interrupt" in status.stdout
    answer = ("--choice", "next-step=A")  # EDITOR declares no question fields: where next
    resolved = agents(env, "resolve", "keep-1-interrupt-1", *answer)
    assert resolved.returncode == 0, resolved.stderr
    followed = agents(env, "follow", "keep-1", "--json")
    assert followed.returncode == 0, followed.stderr
    assert json.loads(followed.stdout)["team"] == "release-notes"

    second = agents(env, "run", "--team", str(team), *scenario, "--id", "keep-2", "notes of 2.1")
    assert second.returncode == 0, second.stderr
    assert agents(env, "down").returncode == 0
    shutil.rmtree(team)
    up = agents(env, "up")
    assert up.returncode == 0, up.stderr
    warned = [line for line in up.stderr.splitlines() if line.startswith("warning")]
    assert len(warned) == 1 and "team release-notes" in warned[0], up.stderr
    assert f"{team / 'team.toml'} is gone" in warned[0]
    status = agents(env, "status", "keep-2")
    assert status.returncode == 1
    (line,) = [x for x in status.stderr.splitlines() if x.strip()]
    assert "team release-notes" in line and "AGENTS_TEAMS" in line, line
    assert "unknown agent type" not in line
    shutil.copytree(TINY, team)  # as the line says: the file put back, then agents up
    up = agents(env, "up")
    assert up.returncode == 0 and "warning" not in up.stderr, up.stderr
    assert "worker for queue 'agents/scenario/interrupt=EDITOR': pid" in up.stdout
    assert agents(env, "status", "keep-2").returncode == 0
