"""The client side of a declared team's run, through a real dev server and worker: ``agents
status`` shows its phases and its own picture; the inbox shows its dispatcher's question with
its agents' typed fields and answers it through the validated update; the export's examples
take their kinds from the team's roles and re-render byte for byte; ``agents stats`` counts its
questions."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path

import httpx
from markupsafe import escape
from rich.console import Console
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings, messages_sha256
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.routing_info import forward_route
from agent_interrupts.app import render
from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.export import Format, Kind, export
from agent_interrupts.app.inbox.web import create_app
from agent_interrupts.app.run_picture import mermaid, node_views, svg
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.stats import measure
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.resolution_rules import redirect_targets
from agent_interrupts.models.team_build import TeamFinalResult, build_team, team_of
from agent_interrupts.models.team_spec import Role
from tests.support.cli import client_py
from tests.support.inbox import until_listed
from tests.support.interrupts import wait_for_interrupt
from tests.workflows.test_declared_team import TINY_TEAM

BASE = "http://127.0.0.1:8300"
SAME_ORIGIN = {"Origin": BASE, "Sec-Fetch-Site": "same-origin", "X-Inbox-Fetch": "1"}
GOAL = "survey the old mill"


def _status_text(agents_status: object, entries: object, end: object = None) -> str:
    """What ``agents status`` prints, as plain text."""
    shown = Console(width=160, record=True, force_terminal=False)
    before = render.console
    render.console = shown
    try:
        render.status(agents_status, entries, end)  # type: ignore[arg-type]
    finally:
        render.console = before
    return shown.export_text()


async def test_status_and_inbox_of_a_declared_teams_question(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario.parse("interrupt=SURVEYOR#2", ["SURVEYOR"]))
    teams = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await agents.start(GOAL, workflow_id=workflow_id, team=TINY_TEAM.name)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None and pending.origin_agent_type == "SURVEY"
        interrupt_id = pending.workflow_id

        status = await agents.status(workflow_id)
        entries = await agents.blackboard(workflow_id)
        text = _status_text(status, entries)
        assert f"team: {TINY_TEAM.name} (sha256 {TINY_TEAM.sha256()[:12]})" in text
        for phase in ("PLAN", "SURVEY"):
            assert re.search(rf"^\s*{phase}\b", text, re.M), f"the rule of phase {phase}"
        assert re.search(r"PLAN\s+LEAD\s+✔ done", text), text
        assert re.search(r"SURVEY\s+SURVEY\s+\? waiting\s.*waits on " + interrupt_id, text), text
        assert re.search(r"└ N x SURVEYOR\s+\? waiting\s+2 outputs", text), "one of 2 asked"
        assert re.search(r"SUMMARY\s+SUMMARY\s+· not reached", text), text
        assert "ORCHESTRATOR" not in text, "the software team's agents are not drawn"
        followed = Console(width=160, record=True, force_terminal=False)
        render.console, before = followed, render.console
        try:  # what ``agents run`` / ``agents follow`` prints of the same steps
            render.Progress(team_of(status.team)).show(entries)
        finally:
            render.console = before
        steps = followed.export_text()
        assert re.search(r"^PLAN ─+\n  lead-\d+ LEAD → surveyRequest", steps, re.M), steps
        under = r"^SURVEY ─+\n(    survey-\d+/surveyor-\d \S+ → \w+\n){2}  survey-\d+ SURVEY → "
        assert re.search(under + "interruptRequest", steps, re.M), "its agents under its phase"

        await until_listed(agents, interrupt_id)
        app = create_app(agents, InboxSettings(), limit=100)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
            page = await http.get("/")
            assert page.status_code == 200, page.text
            card = page.text.split(f'id="q-{interrupt_id}"', 1)[1].split("</article>", 1)[0]
            assert "surveyor-2" in card and "SURVEYOR" in card
            asked = (await agents.interrupt_status(interrupt_id)).request
            own = asked.agent_questions[0].request.to_wire()  # type: ignore[attr-defined]
            assert "siteAccess" in own
            assert "<dt>siteAccess</dt>" in card, "the agent's typed field is shown"
            for key in own["siteAccess"]:
                assert str(escape(key)) in card, "shown, escaped as all model text is"

            graph = await http.get(f"/runs/{workflow_id}/graph.svg")
            assert graph.status_code == 200
            assert re.search(r">SURVEY</text><text[^>]*>\? waiting</text>", graph.text)
            assert "└ N x SURVEYOR" in graph.text and "ORCHESTRATOR" not in graph.text

            csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
            assert csrf is not None
            form = {"csrf": csrf[1], "interrupt": interrupt_id}
            wrong = await http.post(
                "/answer",
                data={**form, "text": "go on", "continue_at": "ORCHESTRATOR"},
                headers=SAME_ORIGIN,
            )
            assert wrong.status_code == 422
            assert "is not an agent of team tiny-survey" in wrong.text
            assert '<option value="SUMMARY">SUMMARY</option>' in card, "its routes, to go on at"
            answers = {
                "choice.surveyor-2/site-access": "B",
                "confirm.surveyor-2/site-access-ok": "yes",
                "continue_at": "SUMMARY",
            }
            sent = await http.post("/answer", data={**form, **answers}, headers=SAME_ORIGIN)
            assert sent.status_code == 200, sent.text
            assert 'class="card answered"' in sent.text

        result = await asyncio.wait_for(handle.result(), 30)
        assert isinstance(result, TeamFinalResult) and result.team == TINY_TEAM.name
        closed = await agents.status(workflow_id)
        end = await agents.run_end(workflow_id)
        assert end is not None and end.state == "COMPLETED"
        text = _status_text(closed, await agents.blackboard(workflow_id), end)
        assert re.search(r"SUMMARY\s+SUMMARY\s+✔ done", text), text
        assert re.search(r"SURVEY\s+SURVEY\s+↪ re-routed\s.*re-routed to SUMMARY", text), text


async def test_a_finished_declared_team_run_exports_by_role_and_counts_its_questions(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario.parse("interrupt=SURVEYOR#2", ["SURVEYOR"]))
    teams = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await agents.start(GOAL, workflow_id=workflow_id, team=TINY_TEAM.name)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        flags = [
            "--choice",
            "surveyor-2/site-access=B",
            "--confirm",
            "surveyor-2/site-access-ok=yes",
        ]
        elsewhere = await client_py(
            client, "resolve", pending.workflow_id, *flags, "--continue-at", "ORCHESTRATOR"
        )
        assert elsewhere.returncode != 0
        assert "'ORCHESTRATOR' is not an agent of team tiny-survey" in elsewhere.stderr
        resolved = await client_py(client, "resolve", pending.workflow_id, *flags)
        assert resolved.returncode == 0, resolved.stderr
        assert isinstance(await asyncio.wait_for(handle.result(), 30), TeamFinalResult)
        status = await client_py(client, "status", workflow_id)
        assert status.returncode == 0, status.stderr
        assert "team: tiny-survey" in status.stdout and "└ N x SURVEYOR" in status.stdout
        assert re.search(r"SUMMARY\s+SUMMARY\s+✔ done", status.stdout), status.stdout

        out = tmp_path / "team.jsonl"
        summary = await export(client, out, fmt=Format.NATIVE, ids=[workflow_id])
    assert not summary.skipped, summary.lines()
    examples = [
        json.loads(line)
        for line in out.read_text(encoding="utf-8").splitlines()
        if json.loads(line)["record"] == "example"
    ]
    kinds = {(e["agentType"], e["kind"]) for e in examples}
    assert ("LEAD", Kind.DELEGATION) in kinds
    assert ("SUMMARY", Kind.CONSOLIDATION) in kinds
    assert ("SURVEY", Kind.REPORT) in kinds and ("SURVEYOR", Kind.REPORT) in kinds
    assert ("SURVEYOR", Kind.INTERRUPT) in kinds
    assert ("SURVEY", Kind.TRANSLATION) in kinds
    team = build_team(TINY_TEAM)
    translation = next(e for e in examples if e["kind"] == Kind.TRANSLATION)
    assert translation["schemaName"] == team.interrupt_routing.__name__
    sent = {messages_sha256(body["messages"]) for body in offline.received}
    calls = [e for e in examples if e["kind"] != Kind.RESOLUTION]
    assert calls and all(e["messagesSha256"] in sent for e in calls), "byte for byte"
    for e in calls:
        assert messages_sha256(e["messages"][:-1]) == e["messagesSha256"]

    stats = await client_py(client, "stats", "--json", workflow_id)
    assert stats.returncode == 0, stats.stderr
    lines = {line["name"]: line for line in json.loads(stats.stdout)}
    assert lines["runs"]["value"] == "1" and lines["interrupts per run"]["value"] == "1.00"
    mine = lines[f"questions of {TINY_TEAM.name}/SURVEYOR"]  # the dispatched agent asked
    assert f"questions of {TINY_TEAM.name}/SURVEY" not in lines, "not its dispatcher"
    assert mine["value"] == "1 (HUMAN_REVIEW 1; 1 choice, 1 confirmation)"
    assert mine["figures"]["team"] == TINY_TEAM.name
    assert mine["figures"]["role"] == "dispatched"
    assert mine["figures"]["byKind"] == {"choice": 1, "confirmation": 1}
    assert lines["questions by role"]["figures"]["byRole"] == {"dispatched": 1}
    tally = await measure(client, [workflow_id])
    assert tally.asked[(TINY_TEAM.name, "SURVEYOR")].questions == 1


def test_the_picture_and_graph_of_a_declared_team_are_its_own() -> None:
    team = build_team(TINY_TEAM)
    views = node_views([], None, None, team)
    assert list(views) == ["LEAD", "SURVEY", "SURVEYOR", "SUMMARY"]
    image = svg(views, team)
    assert "└ N x SURVEYOR" in image and ">PLAN<" in image
    graph = mermaid(team)
    assert "SURVEY -->|N in parallel| SURVEYOR" in graph
    assert "SURVEYOR -.->|result| SURVEY" in graph
    assert "LEAD --> END" in graph and "CONTEXT_MANAGER" not in graph


def test_a_context_manager_is_found_by_its_role_not_its_name() -> None:
    """The graph, the loop breaker's next step, the planner's hand-back and the ways on from a
    question skip the agent whose role is the context manager, whatever its name."""
    team = build_team(TINY_TEAM)
    survey = team.node("SURVEY").output_model
    step = forward_route(survey, team)
    assert step is not None and step.target == "SUMMARY"
    helper = dataclasses.replace(team, roles={**team.roles, "SUMMARY": Role.CONTEXT_MANAGER})
    assert forward_route(survey, helper) is None, "a detour is not the next step"
    assert "SUMMARY" in helper.not_returnable() and "SUMMARY" not in team.not_returnable()
    assert redirect_targets("LEAD", team) == ["SURVEY"]
    assert redirect_targets("SURVEY", team) == ["SUMMARY"]
    assert redirect_targets("SURVEY", helper) == [], "an answer never continues at a detour"
    graph = mermaid(helper)
    assert "ANY -.->|asks for context| SUMMARY" in graph and "SUMMARY -.->|RETURN| ANY" in graph
    assert "SURVEYOR -.->|result| SURVEY" in graph and "--> SUMMARY" not in graph
