"""A team with record fields runs through a real dev server and worker: its orchestrator's
result is a list of records (each holding a list of records, as many as ``min_items`` asks),
its question carries a record and a list of them, shown field by field in the terminal's and
the inbox's words, and the run ends with records in the team's final result."""

from __future__ import annotations

from pathlib import Path

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.output_schema import OutputProfile
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import TeamInterruptRequest
from agent_interrupts.models.state import EntryKind
from agent_interrupts.models.team_build import TeamFinalResult
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.visibility import question_markdown, typed_values
from tests.support.interrupts import answer_offered, interrupt_status, start, wait_for_interrupt
from tests.support.record_team import record_team


async def test_a_team_with_record_fields_asks_and_finishes(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    spec = record_team(tmp_path)
    offline = OfflineModel(OfflineScenario.parse("interrupt=SURVEYOR", ["SURVEYOR", "MAPPER"]))
    settings = LlmSettings(profile=OutputProfile.SMALL)  # lists of one item, but for min_items
    teams = {spec.name: spec}
    async with build_worker(client, task_queue, settings, offline=offline, teams=teams):
        handle = await start(client, task_queue, workflow_id, team=spec.name)
        waiting = (await wait_for_interrupt(handle)).pending_interrupt
        assert waiting is not None and waiting.origin_agent_type == "SURVEYOR"
        asked = (await interrupt_status(client, waiting.workflow_id)).request
        where = asked.to_wire()["where"]
        assert isinstance(where, dict) and where["checked"] is True
        shown = dict(typed_values(asked))  # what the inbox lists
        assert shown["where"] == (f"path: {where['path']}; line: {where['line']}; checked: True")
        candidates = shown["candidates"]
        assert isinstance(candidates, list) and candidates[0].startswith("path: ")
        text = question_markdown("SURVEYOR", asked)  # what the terminal prints
        assert "**where:** path: " in text and "**candidates:**" in text
        await client.get_workflow_handle(waiting.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_offered(asked)
        )
        result = await handle.result()
        entries = await read_blackboard(client, workflow_id, payloads=True)

    assert isinstance(result, TeamFinalResult) and result.team == spec.name
    diagrams = result.result["diagrams"]
    assert diagrams and all(
        d["edges"] and set(d["edges"][0]) == {"source", "target", "label"} for d in diagrams
    )
    surveyed = [
        e.payload for e in entries if e.kind is EntryKind.OUTPUT and e.agent_type == "SURVEYOR"
    ]
    final_survey = surveyed[-1]
    assert final_survey is not None
    assert len(final_survey["result"]["diagrams"]) == 3  # min_items, in the small profile too
    assert final_survey["result"]["place"]["checked"] is True


def test_a_record_inside_a_record_reads_as_one_item_each() -> None:
    """A question's record holding a list of records: each inner record in parentheses."""
    asked = TeamInterruptRequest.model_validate(
        {
            "type": "HUMAN_REVIEW",
            "reason": "Which map?",
            "contextForDecision": "",
            "choices": [],
            "confirmationItems": [],
            "origin": "SURVEYOR",
            "map": {
                "title": "calls",
                "nodes": ["a", "b"],
                "edges": [
                    {"source": "a", "target": "b", "label": "calls"},
                    {"source": "b", "target": "a", "label": "answers"},
                ],
                "tags": [],
            },
        }
    )
    assert dict(typed_values(asked))["map"] == (
        "title: calls; nodes: a, b; edges: (source: a; target: b; label: calls), "
        "(source: b; target: a; label: answers); tags: none"
    )
