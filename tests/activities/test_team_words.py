"""Each team speaks its own words: the shared prompt frame holds no software
team's text; a team's worked examples come from its own templates' ``examples`` block (or there
are none); a question field is described by its type (an enum by its values); the software
team's prompts are what they were before its words moved out of the frame."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from jinja2 import ChoiceLoader, DictLoader, FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from agent_interrupts.activities.prompting import PROMPTS_DIR, PromptRenderer, template_values
from agent_interrupts.activities.resolution import translation_messages
from agent_interrupts.activities.routing_info import interrupt_info
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupt_flow import TranslationInput
from agent_interrupts.models.interrupts import InterruptResolution, TeamInterruptRequest
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.models.team_spec import TeamSpec

RENDERER = PromptRenderer()
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

SOFTWARE_WORDS = (
    "software",
    "session",
    "/v1/login",
    "Postgres",
    "Redis",
    "context manager",
    "drop-legacy-endpoint",
)
"""The software team's words that the frame used to put in every team's prompts."""

BEFORE_THE_MOVE = (
    """You are one of the agents of a workflow. The rules below hold for every agent of it; your own
part (who you are, your role, your routes) follows them.

{% include "workflow/_uncertainty.jinja" %}
{% include "workflow/_interrupt_guidance.jinja" %}
{% include "workflow/_structured_choice_example.jinja" %}
{% include "workflow/_confirmation_example.jinja" %}
"""
    + (
        "{% block intro %}You are the {{ agent_type }} agent of a multi-agent software "
        "workflow.{% endblock %}\n"
    )
    + """
## Your role
{% block role %}{% endblock %}

## How to answer
Reply with one JSON object of type {{ output_name }}.
Set exactly one of these route fields and leave the others null: {{ routes | join(", ") }}.
{% block routing %}{% endblock %}
{% include "workflow/_own_question.jinja" %}
"""
)
"""One base with the software team's words in it, in the frame's order (what every agent is
told, then its own part): the team's partial over the frame renders the same."""


def _team(path: Path) -> Team:
    return build_team(load_team_file(path))


def _system(team: Team, agent: str) -> str:
    call = AgentCall(
        node_id=f"{agent.lower()}-007",
        agent_type=agent,
        result_id=f"wf-run/{agent.lower()}/7/2026-01-01T00:00:00Z",
        goal="checkout returns 502s since the deploy",
        request={"guidance": "Do the next step."},
    )
    return RENDERER.agent_messages(team.node(agent), call, team).system


def _declared(template: str) -> TeamSpec:
    base = '{% extends "workflow/_agent_base.jinja" %}'
    return TeamSpec.model_validate(
        {
            "name": "grant-review",
            "agents": [
                {
                    "name": "INTAKE",
                    "role": "orchestrator",
                    "routes": {"DECISION": "The application is complete."},
                    "template": base + "{% block role %}Read the application.{% endblock %}",
                },
                {
                    "name": "DECISION",
                    "routes": {"END": "Decided.", "INTAKE": "Ask again."},
                    "result": {"verdict": {"type": "enum(FUND|DECLINE)"}},
                    "question": {
                        "verdict": {
                            "type": "enum(FUND|DECLINE|DEFER)",
                            "description": "The verdict it leans to.",
                        },
                        "panel": {"type": "list[str]", "description": "Reviewers to ask."},
                        "amount": {"type": "int", "description": "Euros it would grant."},
                        "score": {"type": "float", "description": "The panel's mean score."},
                        "conflicted": {"type": "bool", "description": "A conflict of interest."},
                    },
                    "template": base + template,
                },
            ],
        }
    )


@pytest.mark.parametrize(
    "path",
    [builtin_team_files()["incident-response"], EXAMPLES / "tiny-team" / "team.toml"],
    ids=["incident-response", "tiny-team"],
)
def test_a_declared_teams_prompts_carry_none_of_the_software_teams_words(path: Path) -> None:
    team = _team(path)
    for agent in team.nodes:
        system = _system(team, agent)
        for words in SOFTWARE_WORDS:
            assert words not in system, f"{agent}: {words!r}"
        assert "RETURN" not in system, f"{agent}: the team has no context manager to return from"


def test_the_frame_names_the_team_when_a_template_has_no_intro() -> None:
    team = build_team(_declared("{% block role %}Decide.{% endblock %}"))
    system = _system(team, "DECISION")
    assert "\n\nYou are the DECISION agent of team grant-review.\n" in system


def test_a_teams_examples_come_from_its_own_examples_block_or_there_are_none() -> None:
    bare = _system(build_team(_declared("{% block role %}Decide.{% endblock %}")), "DECISION")
    assert "### Example" not in bare and "see the example below" not in bare
    own = (
        "{% block role %}Decide.{% endblock %}"
        "{% block examples %}### Example: a deferred grant\nDefer when the panel is split."
        "{% endblock %}"
    )
    mine = _system(build_team(_declared(own)), "DECISION")
    assert "### Example: a deferred grant\nDefer when the panel is split." in mine
    assert mine.count("### Example") == 1
    assert "(at most 5); see the example below." in mine

    incident = _team(builtin_team_files()["incident-response"])
    remediation = _system(incident, "REMEDIATION")
    assert '"choiceId": "stop-the-errors"' in remediation
    assert "see the example below" in remediation
    assert "see the example below" not in _system(incident, "TRIAGE")


def test_a_question_field_is_described_by_its_type_and_an_enum_by_its_values() -> None:
    system = _system(build_team(_declared("{% block role %}Decide.{% endblock %}")), "DECISION")
    kinds = dict(re.findall(r"^- `(\w+)` \(([^)]+)\): ", system, re.MULTILINE))
    assert kinds == {
        "verdict": "one of FUND, DECLINE, DEFER",
        "panel": "list of text, at most 16 items",
        "amount": "whole number",
        "score": "number",
        "conflicted": "yes/no",
    }


def test_an_agent_without_question_fields_gets_no_empty_heading() -> None:
    system = _system(_team(builtin_team_files()["incident-response"]), "TRIAGE")
    assert "(your agent-specific context; fill every one)" not in system
    info = interrupt_info(
        _team(builtin_team_files()["incident-response"]).node("TRIAGE").output_model
    )
    assert info is not None and not info.own_fields


def test_the_context_managers_return_is_named_only_where_a_team_has_one() -> None:
    extended = _team(EXAMPLES / "security-review" / "team.toml")
    assert "RETURN goes back to the agent that asked the context manager" in _system(
        extended, "SECURITY_AGENT"
    )
    assert "; END returns the final result.\n" in _system(
        _team(EXAMPLES / "tiny-team" / "team.toml"), "WRITER"
    )


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_the_software_teams_prompts_are_what_the_one_base_rendered(agent: Any) -> None:
    """Its intro and its worked examples moved from the frame into its own base
    (``teams/software/_software_agent.jinja``, beside its file): every agent's template renders
    as it did with the one base."""
    before = SandboxedEnvironment(
        loader=ChoiceLoader(
            [
                DictLoader({"team/software/_software_agent.jinja": BEFORE_THE_MOVE}),
                FileSystemLoader(PROMPTS_DIR),
                DictLoader(dict(SOFTWARE_TEAM.templates)),
            ]
        ),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    node = NODES[agent]
    values = template_values(node, SOFTWARE_TEAM)
    rendered = before.get_template(node.template).render(**values)
    assert RENDERER.agent_template(node, SOFTWARE_TEAM) == rendered


def test_the_translator_is_asked_for_the_runs_teams_handler_routing() -> None:
    spec = load_team_file(builtin_team_files()["incident-response"])
    team = build_team(spec)
    job = TranslationInput(
        goal="checkout returns 502s since the deploy",
        request=TeamInterruptRequest.model_validate(
            {
                "type": "HUMAN_REVIEW",
                "reason": "Which step?",
                "choices": [],
                "confirmationItems": [],
                "contextForDecision": "",
                "origin": "REMEDIATION",
            }
        ),
        resolution=InterruptResolution(free_text="roll back"),
        origin="REMEDIATION",
        origin_request={"guidance": "fix it"},
        allowed_route="remediationRequest",
        team=team.pin,
    )
    system = translation_messages(RENDERER, job)[0]["content"]
    assert f"object of type {team.interrupt_routing.__name__}." in system
    assert team.interrupt_routing.__name__ == "IncidentResponseInterruptRouting"
    software = translation_messages(RENDERER, job.model_copy(update={"team": None}))
    assert "object of type InterruptRouting." in software[0]["content"]
