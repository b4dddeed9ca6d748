"""SC-011, SC-013 and SC-014 follow from a team's declarations and roles, never its agents'
names: the software team's lines are the ones it always had, and a declared team that declares
the same things (a dispatched agent's ``min_items``, records with links, a code-writing agent
with reference fields) gets the same lines, counted over its own runs."""

from __future__ import annotations

from typing import Any

from agent_interrupts.app.history import RecordedCall, RecordedRun
from agent_interrupts.app.stats import Tally
from agent_interrupts.app.success_criteria import criteria_of, singular, words
from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.team_build import build_team, software_team
from agent_interrupts.models.team_spec import Role, TeamPin, TeamSpec

RUN = "0f0e0d0c-0000-4000-8000-000000000001"
BASE = '{% extends "workflow/_agent_base.jinja" %}'
SURVEY = TeamSpec.model_validate(
    {
        "name": "survey",
        "types": {"Step": {"what": {"type": "text"}, "source_links": {"type": "list[str]"}}},
        "agents": [
            {
                "name": "LEAD",
                "role": "orchestrator",
                "phase": "SCOPE",
                "routes": {"SCOUTS": "Send the scouts."},
                "template": BASE,
            },
            {
                "name": "SCOUTS",
                "role": "dispatcher",
                "phase": "SCOUTING",
                "dispatches": "SCOUT",
                "routes": {"GATHER": "Every scout is back."},
                "template": BASE,
            },
            {
                "name": "SCOUT",
                "role": "dispatched",
                "phase": "SCOUTING",
                "result": {"sightings": {"type": "list[str]", "min_items": 2}},
                "template": BASE,
            },
            {
                "name": "GATHER",
                "role": "collector",
                "phase": "SCOUTING",
                "routes": {"PLANNER": "Plan the work."},
                "template": BASE,
            },
            {
                "name": "PLANNER",
                "phase": "PLANS",
                "routes": {"BUILDS": "Build it."},
                "result": {"steps": {"type": "list[Step]"}},
                "template": BASE,
            },
            {
                "name": "BUILDS",
                "role": "dispatcher",
                "phase": "BUILDS",
                "dispatches": "BUILDER",
                "routes": {"BUILT": "Every builder is done."},
                "template": BASE,
            },
            {
                "name": "BUILDER",
                "role": "dispatched",
                "phase": "BUILDS",
                "tools": ["write"],
                "result": {"gather_reference": {"type": "str"}},
                "template": BASE,
            },
            {
                "name": "BUILT",
                "role": "collector",
                "phase": "BUILDS",
                "routes": {"END": "Done."},
                "template": BASE,
            },
        ],
    }
)
NAMES = [
    "scouting reports with >= 2 sightings (SC-011)",
    "plans steps with a scouting link (SC-013)",
    "build results with the full upstream chain (SC-014)",
]


def test_the_software_teams_lines_follow_from_its_declarations() -> None:
    criteria = criteria_of(software_team())
    assert sorted(name for name, _ in criteria.lines()) == sorted(
        [
            "discovery reports with >= 5 tags (SC-011)",
            "discovery reports with >= 3 generated queries (SC-011)",
            "discovery reports with >= 10 file references (SC-011)",
            "planning tickets with a discovery link (SC-013)",
            "ticket results with the full upstream chain (SC-014)",
        ]
    )
    (chained,) = criteria.chained
    team = software_team()
    assert chained.agent in team.write_tools
    assert len(chained.upstream) == 2  # the collectors of the two phases before its own
    assert all(team.role(c) is Role.COLLECTOR for c in chained.upstream)


def test_a_declared_team_that_declares_the_same_things_gets_the_same_lines() -> None:
    criteria = criteria_of(build_team(SURVEY))
    assert [name for name, _ in criteria.lines()] == NAMES
    assert [c.agent for c in criteria.minimums] == ["SCOUT"]
    assert [(c.agent, c.links) for c in criteria.planned] == [("PLANNER", "sourceLinks")]
    assert [(c.agent, set(c.upstream)) for c in criteria.chained] == [("BUILDER", {"GATHER"})]


def test_words_and_singulars() -> None:
    assert words("generatedQueries") == "generated queries"
    assert words("TICKETS") == "tickets"
    assert (singular("tickets"), singular("process"), singular("review")) == (
        "ticket",
        "process",
        "review",
    )


def _call(agent: str, seq: int, output: dict[str, Any]) -> RecordedCall:
    slug = agent.lower()
    call = AgentCall(
        node_id=f"{slug}-{seq:03}",
        agent_type=agent,
        result_id=_context("x", seq),
        goal="survey the site",
        request={},
        team=TeamPin(name=SURVEY.name, sha256=SURVEY.sha256(), spec=SURVEY),
    )
    return RecordedCall(RUN, (0, seq), call, AgentReply(output=output, route=None))


def _context(agent: str, seq: int) -> str:
    return f"wf-{RUN}/{agent}/{seq:03}/2026-01-19T10:30:00Z"


def test_stats_count_a_declared_teams_runs_against_its_own_criteria() -> None:
    gathered = _context("gather", 3)
    calls = [
        _call("SCOUT", 1, {"result": {"sightings": ["a", "b"]}, "interruptRequest": None}),
        _call("SCOUT", 2, {"result": {"sightings": ["a"]}, "interruptRequest": None}),
        _call("SCOUT", 9, {"result": None, "interruptRequest": {"reason": "a question"}}),
        _call(
            "PLANNER",
            4,
            {
                "result": {
                    "steps": [
                        {"what": "dig", "sourceLinks": [gathered]},
                        {"what": "fill", "sourceLinks": [_context("lead", 1)]},
                    ]
                },
                "buildsRequest": {"steps": [{"what": "dig", "sourceLinks": []}]},
            },
        ),
        _call("BUILDER", 5, {"result": {"gatherReference": gathered}}),
        _call("BUILDER", 6, {"result": {"gatherReference": None}}),
    ]
    tally = Tally()
    tally.add(RecordedRun("wf-survey", [RUN], "survey the site", calls, []))
    lines = {line.name: line for line in tally.lines()}
    assert [lines[name].value for name in NAMES] == ["50% (1/2)"] * 3
    for name in NAMES:
        assert lines[name].meaning and lines[name].short == 1
    # the software team's lines are there too, with nothing of its own counted
    assert lines["discovery reports with >= 5 tags (SC-011)"].value == "n/a (none)"
    names = list(lines)
    assert names.index("ticket results with the full upstream chain (SC-014)") < names.index(
        NAMES[0]
    )  # the software team's first, then the teams of the runs counted
