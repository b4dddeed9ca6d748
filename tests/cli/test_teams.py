"""``agents run --team``: a shipped team by name, a team file by path, bad team files, and a
team file edited while one of its runs waits for a person (that run keeps the version it
pinned)."""

from __future__ import annotations

import json
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
