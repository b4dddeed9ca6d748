"""A declared team's collector gets a curated context, as the software team's collectors do
(agents US3): through a real dev server and worker, the shipped incident-response
team's FINDINGS_COLLECTOR's result becomes a CONTEXT entry with its own id; every later request
carries it in ``contexts``, the later agents' prompts show it, their results name it upstream,
and the native export's lineage closes over it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.export import Format, export
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.lineage_records import check_file
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import EntryKind, HistoryEntry
from agent_interrupts.models.team_build import TeamFinalResult
from agent_interrupts.models.team_files import configured_teams
from agent_interrupts.models.team_spec import TeamSpec
from tests.support.interrupts import start

TEAM = "incident-response"


def _system_prompts(offline: OfflineModel, routing: str) -> list[str]:
    """The system prompts the model was sent for the agent whose reply is ``routing``."""
    return [
        str(body["messages"][0]["content"])
        for body in offline.received
        if body["response_format"]["json_schema"]["name"] == routing
    ]


def _entries(entries: list[HistoryEntry], agent: str, kind: EntryKind) -> list[HistoryEntry]:
    return [e for e in entries if e.agent_type == agent and e.kind is kind]


async def _run(
    client: Client, task_queue: str, workflow_id: str, spec: TeamSpec
) -> tuple[OfflineModel, list[HistoryEntry]]:
    offline = OfflineModel(OfflineScenario())
    teams = {spec.name: spec}
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await start(client, task_queue, workflow_id, team=spec.name)
        result = await asyncio.wait_for(handle.result(), 60)
        entries = await read_blackboard(client, workflow_id, payloads=True)
    assert isinstance(result, TeamFinalResult) and result.team == spec.name
    return offline, entries


async def test_a_declared_collectors_result_is_a_curated_context_later_agents_carry_and_see(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    spec = configured_teams({})[TEAM]
    offline, entries = await _run(client, task_queue, workflow_id, spec)

    [output] = _entries(entries, "FINDINGS_COLLECTOR", EntryKind.OUTPUT)
    [context] = _entries(entries, "FINDINGS_COLLECTOR", EntryKind.CONTEXT)
    assert context.upstream_context_ids == [output.context_id]
    assert context.context_id.split("/")[1] == "findings-collector", "an id like the software's"
    curated: dict[str, Any] = context.payload or {}
    result = (output.payload or {})["result"]
    assert curated["sourceResultId"] == result["resultId"] == output.context_id
    assert curated["agentType"] == "FINDINGS_COLLECTOR"
    assert curated["curation"] == {
        "rootCause": result["rootCause"],
        "confidence": result["confidence"],
    }, "the collector's result fields, never its ids"

    assert all("contexts" not in (e.payload or {}) for e in entries[: entries.index(output)]), (
        "no request before the collector carries one"
    )
    for agent in ("REMEDIATION", "REMEDIATION_REVIEW"):
        [request] = _entries(entries, agent, EntryKind.REQUEST)[:1]
        assert (request.payload or {})["contexts"] == [curated], f"{agent}'s request carries it"
        assert context.context_id in request.upstream_context_ids
        [later] = _entries(entries, agent, EntryKind.OUTPUT)[:1]
        assert context.context_id in (later.payload or {})["result"]["upstreamContextIds"]

    [prompt, *_] = _system_prompts(offline, "IncidentResponseRemediationRouting")
    section = prompt.split("## Curated contexts\n", 1)[1].split("\n## ", 1)[0]
    assert f"[{context.context_id}] from FINDINGS_COLLECTOR:" in section
    assert f"- rootCause: {result['rootCause']}" in section
    assert f"- confidence: {result['confidence']}" in section
    [triage, *_] = _system_prompts(offline, "IncidentResponseTriageRouting")
    assert "## Curated contexts" not in triage, "nothing curated before the collector ran"

    out = tmp_path / "team.jsonl"
    summary = await export(client, out, fmt=Format.NATIVE, ids=[workflow_id])
    assert not summary.skipped, summary.lines()
    assert check_file(out).unresolved == {}, "the export's lineage closes"
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    [defined] = [r for r in records if r.get("contextId") == context.context_id]
    assert defined["record"] == "context" and defined["kind"] == "curated"
    assert defined["upstreamContextIds"] == [output.context_id]
    assert defined["payload"] == curated
    later = [
        r
        for r in records
        if r["record"] == "example" and context.context_id in r.get("consumedContextIds", [])
    ]
    assert {r["agentType"] for r in later} >= {"REMEDIATION", "REMEDIATION_REVIEW"}


async def test_a_team_names_its_collectors_context_fields_or_opts_out(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    shipped = configured_teams({})[TEAM]
    agents = [
        a.model_copy(update={"context": ["root_cause"]}) if a.name == "FINDINGS_COLLECTOR" else a
        for a in shipped.agents
    ]
    named = shipped.model_copy(update={"name": "incident-named", "agents": agents})
    _, entries = await _run(client, task_queue, workflow_id, named)
    [context] = _entries(entries, "FINDINGS_COLLECTOR", EntryKind.CONTEXT)
    assert list((context.payload or {})["curation"]) == ["rootCause"]

    opted_out = shipped.model_copy(
        update={
            "name": "incident-quiet",
            "agents": [
                a.model_copy(update={"context": []}) if a.name == "FINDINGS_COLLECTOR" else a
                for a in shipped.agents
            ],
        }
    )
    _, entries = await _run(client, f"{task_queue}-2", f"{workflow_id}-2", opted_out)
    assert not [e for e in entries if e.kind is EntryKind.CONTEXT]
    assert all("contexts" not in (e.payload or {}) for e in entries)
