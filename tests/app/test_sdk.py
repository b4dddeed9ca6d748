"""What the SDK tells every answering client: the ack after a re-route names where
the run goes (the terminal, the follow prompt and the inbox all print it)."""

from __future__ import annotations

from agent_interrupts.app.sdk import accepted
from agent_interrupts.models.interrupt_flow import InterruptState, InterruptStatus
from agent_interrupts.teams.software.agents import AgentType
from tests.models.test_resolution_rules import REQUEST


def _status(reroute_to: AgentType | None) -> InterruptStatus:
    return InterruptStatus(
        workflow_id="run-interrupt-1",
        state=InterruptState.WAITING,
        origin=AgentType.PLANNING_ORCHESTRATOR,
        reroute_to=reroute_to,
        request=REQUEST,
        resolution=None,
        deadline=None,
        hooks_applied=[],
        events=[],
    )


def test_the_ack_names_the_agent_the_run_continues_at() -> None:
    said = "PLANNING_ORCHESTRATOR resumes"
    assert accepted(said, _status(None)) == said
    assert accepted(said, _status(AgentType.PLANNING_ORCHESTRATOR)) == said
    assert accepted(said, _status(AgentType.DISCOVERY_ORCHESTRATOR)) == (
        "the run continues at DISCOVERY_ORCHESTRATOR (re-routed from PLANNING_ORCHESTRATOR)"
    )
    overruled = "your answer overrules the controller's; PLANNING_ORCHESTRATOR resumes"
    assert accepted(overruled, _status(AgentType.DISCOVERY_ORCHESTRATOR)).endswith(
        "; the run continues at DISCOVERY_ORCHESTRATOR (re-routed from PLANNING_ORCHESTRATOR)"
    )


def test_an_ack_that_names_the_target_already_is_kept() -> None:
    """The current interrupt names where the chosen option leads, which may not be the event's
    own target: the ack is not rewritten to the event's."""
    said = "the run continues at TICKET_ORCHESTRATOR (re-routed from PLANNING_ORCHESTRATOR)"
    assert accepted(said, _status(AgentType.DISCOVERY_ORCHESTRATOR)) == said


def test_the_workflow_types_by_name_are_the_classes_names() -> None:
    """The SDK names the workflow types without loading their classes (fast commands)."""
    from agent_interrupts.app.sdk import INTERRUPT_TYPE, ORCHESTRATOR_TYPE
    from agent_interrupts.workflows.interrupt import InterruptWorkflow
    from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

    assert OrchestratorWorkflow.__name__ == ORCHESTRATOR_TYPE
    assert InterruptWorkflow.__name__ == INTERRUPT_TYPE
