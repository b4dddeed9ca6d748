"""The offline model asks a declared team's agent a question in that team's words: built from
its declared question fields (an enum field a choice of its values, a yes/no field a
confirmation, another field a choice and a confirmation about it) or, with none, from its own
routes; never the software team's ``approach`` / ``add-tests`` question. The last test
runs the incident-response team through a real dev server and worker."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.offline_questions import declares_its_question
from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution, TeamInterruptRequest
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_build import TeamFinalResult, build_team
from agent_interrupts.models.team_files import (
    builtin_team_files,
    load_software_team,
    load_team_file,
)
from agent_interrupts.models.team_spec import TeamSpec
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import interrupt_status, start, wait_for_interrupt

GOAL = "checkout returns 502s since the deploy"
SOFTWARE_IDS = {"approach", "add-tests"}
INCIDENT = load_team_file(builtin_team_files()["incident-response"])

GRANTS = TeamSpec.model_validate(
    {
        "name": "grant-review",
        "agents": [
            {
                "name": "INTAKE",
                "role": "orchestrator",
                "routes": {"DECISION": "The application is complete.", "END": "Withdrawn."},
                "template": '{% extends "workflow/_agent_base.jinja" %}',
            },
            {
                "name": "DECISION",
                "routes": {"END": "Decided.", "INTAKE": "Ask the applicant again."},
                "question": {
                    "verdict": {"type": "enum(FUND|DECLINE|DEFER)", "description": "Its lean."},
                    "conflicted": {"type": "bool", "description": "A reviewer has a conflict."},
                    "budget": {"type": "int", "description": "Euros it would grant."},
                },
                "template": '{% extends "workflow/_agent_base.jinja" %}',
            },
        ],
    }
)


def _asked(
    team: Team, agent: str, profile: OutputProfile = OutputProfile.STANDARD
) -> TeamInterruptRequest:
    """What the offline model asks at ``agent`` (validated by its routing, as a worker does)."""
    model = team.node(agent).output_model
    offline = OfflineModel(OfflineScenario.parse(f"interrupt={agent}", list(team.nodes)))
    schema = decoder_schema(model, profile)
    body: dict[str, Any] = {
        "model": "offline",
        "response_format": {"json_schema": {"name": model.__name__, "schema": schema}},
        "messages": [{"role": "user", "content": f"Goal: {GOAL}\nNode: x-001"}],
    }
    content = json.loads(offline.completion(body)["choices"][0]["message"]["content"])
    routing = model.model_validate(content.get("routing", content))
    assert isinstance(routing, Routing)
    route, _, question = routing.chosen_route()
    assert route == "interruptRequest"
    assert not question.problems(), question.problems()
    return TeamInterruptRequest.model_validate(question.to_wire())


def _ids(question: TeamInterruptRequest) -> set[str]:
    return {c.choice_id for c in question.choices} | {
        c.confirmation_id for c in question.confirmation_items
    }


def test_an_enum_field_is_a_choice_of_its_values_and_a_yes_no_field_a_confirmation() -> None:
    asked = _asked(build_team(GRANTS), "DECISION")
    verdict, budget = asked.choices
    assert verdict.choice_id == "verdict" and verdict.context == "Its lean."
    assert [(o.key, o.description) for o in verdict.options][:3] == [
        ("A", "FUND"),
        ("B", "DECLINE"),
        ("C", "DEFER"),
    ]
    assert verdict.recommended == "A"  # the value it wrote in the field
    assert (asked.model_extra or {})["verdict"] == "FUND"
    assert budget.choice_id == "budget" and "Euros it would grant" in budget.question
    (conflict,) = asked.confirmation_items
    assert conflict.confirmation_id == "conflicted"
    assert conflict.statement == "A reviewer has a conflict."
    assert "DECISION" in asked.reason and GOAL in asked.reason
    assert not _ids(asked) & SOFTWARE_IDS


def test_every_incident_agent_asks_about_its_own_fields_or_its_own_routes() -> None:
    team = build_team(INCIDENT)
    remediation = _asked(team, "REMEDIATION")
    assert _ids(remediation) == {"risky-step", "risky-step-ok"}
    assert "the step that could make the incident worse" in remediation.reason
    investigator = _asked(team, "INVESTIGATOR")
    assert _ids(investigator) == {"access-needed", "access-needed-ok"}
    triage = _asked(team, "TRIAGE")  # no question fields: where to go, in its routes' words
    (step,) = triage.choices
    assert [o.description for o in step.options][:2] == list(
        INCIDENT.agent("TRIAGE").routes.values()
    )
    for agent in team.nodes:
        for profile in OutputProfile:
            assert not _ids(_asked(team, agent, profile)) & SOFTWARE_IDS, agent


def test_a_small_profiles_bounds_hold_the_question_to_what_its_schema_admits() -> None:
    asked = _asked(build_team(GRANTS), "DECISION", OutputProfile.SMALL)
    assert len(asked.choices) == 1 and len(asked.confirmation_items) == 1


async def test_an_incident_run_asks_in_its_teams_words_and_finishes(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario.parse("interrupt=REMEDIATION", ["REMEDIATION"]))
    teams = {INCIDENT.name: INCIDENT}
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await start(client, task_queue, workflow_id, team=INCIDENT.name)
        waiting = (await wait_for_interrupt(handle)).pending_interrupt
        assert waiting is not None and waiting.origin_agent_type == "REMEDIATION"
        asked = (await interrupt_status(client, waiting.workflow_id)).request
        assert isinstance(asked, TeamInterruptRequest)
        assert _ids(asked) == {"risky-step", "risky-step-ok"}
        assert "riskyStep" in asked.to_wire()
        answer = InterruptResolution(
            selected_choices={"risky-step": "B"},
            confirmations={"risky-step-ok": False},
            answered_by="ada",
        )
        await client.get_workflow_handle(waiting.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer
        )
        result = await asyncio.wait_for(handle.result(), 30)
    assert isinstance(result, TeamFinalResult) and result.team == INCIDENT.name
    asked_bodies = [json.dumps(b) for b in offline.received]
    assert not any('"approach"' in b or '"add-tests"' in b for b in asked_bodies)


def test_whether_an_agent_asks_in_its_teams_words_follows_from_its_teams_file() -> None:
    """Decided from the agent's own question model (declared fields, or a typed model its file
    names), never from a table of the software team's agents."""
    incident, grants = build_team(INCIDENT), build_team(GRANTS)
    for team in (incident, grants):
        for agent, node in team.nodes.items():
            assert declares_its_question(node.output_model), agent
    software = build_team(load_software_team())
    for agent, node in software.nodes.items():
        assert not declares_its_question(node.output_model), agent
