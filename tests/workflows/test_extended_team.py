"""Adding an agent to the software team is one declaration and one template (handler SC-005):
``docs/examples/security-review`` puts a SECURITY_AGENT between review and merge without
changing the package; a run of it asks the new agent's typed question and merges."""

from __future__ import annotations

from pathlib import Path

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupts import TeamInterruptRequest
from agent_interrupts.models.state import EntryKind
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import answer_offered, interrupt_status, start, wait_for_interrupt

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "security-review"


def test_one_declaration_adds_one_agent_and_one_route() -> None:
    spec = load_team_file(EXAMPLE)
    team = build_team(spec)
    assert len(spec.agents) == 1 and len(team.nodes) == len(SOFTWARE_TEAM.nodes) + 1
    review = team.node("REVIEW_AGENT").output_model.route_aliases()
    software = SOFTWARE_TEAM.node("REVIEW_AGENT").output_model.route_aliases()
    assert set(review) - set(software) == {"securityAgentRequest"}
    assert team.route_for("SECURITY_AGENT") == "securityAgentRequest"
    assert set(team.route_targets()) == set(SOFTWARE_TEAM.route_targets()) | {"SECURITY_AGENT"}
    assert sorted(p.name for p in EXAMPLE.iterdir()) == ["security-agent.jinja", "team.toml"]


async def test_the_added_agent_asks_its_typed_question_and_the_run_merges(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    spec = load_team_file(EXAMPLE)
    scenario = OfflineScenario.parse(
        "route=REVIEW_AGENT:securityAgentRequest;interrupt=SECURITY_AGENT", ["SECURITY_AGENT"]
    )
    offline = OfflineModel(scenario)
    async with build_worker(
        client, task_queue, LlmSettings(), offline=offline, teams={spec.name: spec}
    ):
        handle = await start(client, task_queue, workflow_id, team=spec.name)
        waiting = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
        assert waiting is not None and waiting.origin_agent_type == "SECURITY_AGENT"
        asked = (await interrupt_status(client, waiting.workflow_id)).request
        assert isinstance(asked, TeamInterruptRequest) and "acceptedRisks" in asked.to_wire()
        await client.get_workflow_handle(waiting.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated,
            answer_offered(asked),
        )
        result = await handle.result()
        entries = await read_blackboard(client, workflow_id)
    assert isinstance(result, OrchestratorCollectorResult)
    ran = [e.agent_type for e in entries if e.kind is EntryKind.OUTPUT and "/" not in e.node_id]
    at = ran.index("SECURITY_AGENT")
    assert ran[at - 1] == "REVIEW_AGENT" and "MERGER_AGENT" in ran[at + 1 :]
    translations = [
        b
        for b in offline.received
        if b["response_format"]["json_schema"]["name"] == "SoftwareSecureInterruptRouting"
    ]
    assert len(translations) == 1
    assert "securityAgentRequest" in str(translations[0]["response_format"]["json_schema"])
    assert "mergerRequest" not in str(translations[0]["response_format"]["json_schema"])
