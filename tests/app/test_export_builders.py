"""The export's pure builders and the stats' arithmetic, without Temporal."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_interrupts.activities.llm import messages_sha256
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.output_schema import REPLY_KEY, decoder_schema
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.result_decorators import decorate
from agent_interrupts.app.export import (
    KIND_BY_ROLE,
    ExportSummary,
    Kind,
    Unverifiable,
    agent_example,
    decision_of,
    in_train,
    kind_of,
    project,
    resolution_example,
    run_examples,
    split_paths,
)
from agent_interrupts.app.history import RecordedCall, RecordedInterrupt, RecordedRun
from agent_interrupts.app.stats import Tally
from agent_interrupts.app.success_criteria import words
from agent_interrupts.models.agent_call import AgentCall, AgentReply, CallRecord
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupt_flow import InterruptInput, ReviewInput, TranslationInput
from agent_interrupts.models.interrupts import InterruptResolution, ResolvedBy
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_spec import Role
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.requests import OrchestratorRequest
from agent_interrupts.teams.software.results import DiscoveryAgentResult
from tests.support.interrupts import GOAL
from tests.workflows.test_declared_team import TINY_TEAM

PROMPTS = PromptRenderer()
RUN_ID = "0190aaaa-0000-7000-8000-000000000001"
AT = datetime(2026, 1, 19, 10, 30, tzinfo=UTC)


def _recorded(agent: AgentType, **record: object) -> tuple[RecordedRun, RecordedCall]:
    """One agent call as the activity would have made and recorded it."""
    node = NODES[agent]
    call = AgentCall(
        node_id=f"{agent.slug}-001",
        agent_type=agent,
        result_id=f"wf-{RUN_ID}/{agent.slug}/002/2026-01-19T10:30:00Z",
        goal="add caching",
        request=OrchestratorRequest(guidance="Plan it.", phase="DISCOVERY").to_wire()
        if agent is AgentType.ORCHESTRATOR
        else {"subdomain": "cache", "guidance": "look"},
        upstream_context_ids=[f"wf-{RUN_ID}/{agent.slug}/001/2026-01-19T10:30:00Z"],
    )
    messages = PROMPTS.agent_messages(node, call, team=SOFTWARE_TEAM).messages
    schema = decoder_schema(node.output_model)
    output = node.output_model.model_validate_json(
        OfflineModel().answer(node.output_model.__name__, schema, messages)
    )
    decorate(output, call)
    fields = {
        "model": "m",
        "attempts": 1,
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "latency_ms": 3,
        "schema_name": node.output_model.__name__,
        "schema_version": "1.0",
        "messages_sha256": messages_sha256(messages),
        "template_version": PROMPTS.template_version,
        **record,
    }
    reply = AgentReply(output=output.to_wire(), route=None, call=CallRecord.model_validate(fields))
    recorded = RecordedCall(RUN_ID, (0, 5), call, reply)
    return RecordedRun("wf-1", [RUN_ID], "add caching", [recorded], []), recorded


def test_every_role_has_one_kind_and_the_software_teams_agents_keep_the_spec_groups() -> None:
    assert set(KIND_BY_ROLE) == set(Role)
    kinds = {a: kind_of(a, SOFTWARE_TEAM) for a in AgentType}
    delegating = {a for a, k in kinds.items() if k is Kind.DELEGATION}
    consolidating = {a for a, k in kinds.items() if k is Kind.CONSOLIDATION}
    assert {a.value for a in delegating} == {
        "ORCHESTRATOR",
        "DISCOVERY_ORCHESTRATOR",
        "PLANNING_ORCHESTRATOR",
        "TICKET_ORCHESTRATOR",
    }
    assert {a.value for a in consolidating} == {
        "DISCOVERY_COLLECTOR",
        "PLANNING_COLLECTOR",
        "TICKET_COLLECTOR",
        "ORCHESTRATOR_COLLECTOR",
    }


def test_an_agent_example_is_the_exact_prompt_and_the_output_the_model_wrote() -> None:
    run, recorded = _recorded(AgentType.DISCOVERY_AGENT)
    example = agent_example(run, recorded, PROMPTS)
    assert example.kind is Kind.REPORT
    assert (
        example.prompt
        == PROMPTS.agent_messages(
            NODES[AgentType.DISCOVERY_AGENT], recorded.call, team=SOFTWARE_TEAM
        ).messages
    )
    answer = json.loads(example.answer)[REPLY_KEY]["result"]  # the reply's shape: its variant
    assert "resultId" not in answer and "upstreamContextIds" not in answer, "stamped, not written"
    assert recorded.reply.output["result"]["resultId"] == recorded.call.result_id
    DiscoveryAgentResult.model_validate(answer)
    assert example.consumed == recorded.call.upstream_context_ids
    assert example.produced == [recorded.call.result_id]


def test_a_prompt_that_does_not_match_its_fingerprint_is_not_exported() -> None:
    run, recorded = _recorded(AgentType.ORCHESTRATOR, messages_sha256="0" * 64)
    with pytest.raises(Unverifiable, match="differ from the fingerprint"):
        agent_example(run, recorded, PROMPTS)
    run, recorded = _recorded(
        AgentType.ORCHESTRATOR, messages_sha256="0" * 64, template_version="old"
    )
    with pytest.raises(Unverifiable, match="template set old, not the current"):
        agent_example(run, recorded, PROMPTS)
    skipped: dict[str, list[str]] = {}
    assert list(run_examples(run, PROMPTS, frozenset(Kind), skipped)) == []
    assert list(skipped.values()) == [[f"{run.workflow_id}/{recorded.call.node_id}"]]


def test_project_keeps_what_the_schema_describes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}]},
            "b": {"type": "array", "items": {"$ref": "#/$defs/X"}},
        },
        "required": ["a", "b"],
        "$defs": {
            "X": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
        },
    }
    value = {"a": {"x": "1", "id": "stamped"}, "b": [{"x": "2", "id": "s"}], "c": 3}
    assert project(value, schema, schema) == {"a": {"x": "1"}, "b": [{"x": "2"}]}
    assert project({"a": None, "b": []}, schema, schema) == {"a": None, "b": []}


def test_the_split_is_a_stable_hash_of_the_run() -> None:
    ids = [f"run-{i}" for i in range(2000)]
    train = [i for i in ids if in_train(i, 0.9)]
    assert 0.87 < len(train) / len(ids) < 0.93
    assert train == [i for i in ids if in_train(i, 0.9)]
    assert set(train) >= {i for i in ids if in_train(i, 0.5)}


def _interrupt(resolution: InterruptResolution, *, reviewed: bool) -> RecordedInterrupt:
    request = {
        "origin": "REVIEW_AGENT",
        "type": "HUMAN_REVIEW",
        "reason": "unsure",
        "choices": [
            {
                "choiceId": "approach",
                "question": "Which?",
                "context": "",
                "options": [{"key": "A", "description": "a"}, {"key": "B", "description": "b"}],
                "recommended": "A",
            }
        ],
        "confirmationItems": [
            {
                "confirmationId": "tests",
                "statement": "Add tests?",
                "defaultValue": True,
                "impactIfNo": "x",
                "context": "",
            }
        ],
        "contextForDecision": "",
        "reviewCriteria": ["the cache is invalidated on writes"],
        "assessmentFindings": [],
        "approvalRecommendation": "CHANGES_REQUESTED",
    }
    asked = InterruptInput.model_validate(
        {
            "orchestratorId": "wf-1",
            "goal": GOAL,
            "request": request,
            "origin": "REVIEW_AGENT",
            "originNodeId": "review-agent-009",
            "originRequest": {"guidance": "review"},
        }
    )
    translation = TranslationInput(
        goal=GOAL,
        request=asked.request,
        resolution=resolution,
        origin=AgentType.REVIEW_AGENT,
        origin_request=asked.origin_request,
        allowed_route="reviewRequest",
    )
    review = ReviewInput(goal=GOAL, request=asked.request, origin_request=asked.origin_request)
    return RecordedInterrupt(
        run_id=RUN_ID,
        position=(0, 9),
        interrupt_id="wf-1-interrupt-1",
        asked=asked,
        outcome=None,
        asked_at=AT,
        review=review if reviewed else None,
        reviewed=resolution if reviewed else None,
        translation=translation,
    )


def test_a_persons_answer_becomes_the_controllers_example() -> None:
    answer = InterruptResolution.model_validate(
        {
            "selectedChoices": {"approach": "CUSTOM"},
            "customInputs": {"approach": "reuse the queue"},
            "confirmations": {"tests": False},
            "freeText": "small",
        }
    )
    it = _interrupt(answer, reviewed=False)
    run = RecordedRun("wf-1", [RUN_ID], "g", [], [it])
    example = resolution_example(run, it, PROMPTS)
    assert example.kind is Kind.RESOLUTION and example.resolved_by is ResolvedBy.HUMAN
    assert example.call is None
    assert json.loads(example.answer) == {
        "decisions": [
            {"choiceId": "approach", "option": "CUSTOM", "customInput": "reuse the queue"}
        ],
        "confirmations": [{"confirmationId": "tests", "answer": False}],
        "rationale": "small",
    }
    assert decision_of(ReviewInput(goal="g", request=it.asked.request, origin_request={}), answer)


def test_the_default_taken_at_the_deadline_is_nobodys_decision() -> None:
    default = InterruptResolution.model_validate(
        {"selectedChoices": {"approach": "A"}, "resolvedBy": "TIMEOUT_ESCALATION"}
    )
    it = _interrupt(default, reviewed=False)
    run = RecordedRun("wf-1", [RUN_ID], "g", [], [it])
    with pytest.raises(Unverifiable, match="default was taken at the deadline"):
        resolution_example(run, it, PROMPTS)


def test_tally_counts_reports_tickets_and_chains() -> None:
    run, recorded = _recorded(AgentType.DISCOVERY_AGENT)
    tally = Tally()
    tally.add(run)
    lines = {line.name: line for line in tally.lines()}
    output = recorded.reply.output["result"]
    for field, least in (("tags", 5), ("generatedQueries", 3), ("fileReferences", 10)):
        name = f"discovery reports with >= {least} {words(field)} (SC-011)"
        assert lines[name].value == ("100% (1/1)" if len(output[field]) >= least else "0% (0/1)")
    assert lines["interrupts with a structured choice (SC-021)"].value == "n/a (none)"
    assert lines["LLM calls, mean attempts"].value == "1, 1.00"
    assert lines["tokens (prompt / completion)"].value == "10 / 5"


def test_a_split_that_leaves_a_file_empty_says_so(tmp_path: Path) -> None:
    """Seven runs that all hash to train leave the validation file empty."""
    train, valid = split_paths(tmp_path / "data.jsonl")
    lines = ExportSummary(files=[train, valid], runs=7, train_runs=7).lines()
    assert lines[1] == "split: 7 runs train, 0 valid"
    assert lines[2].startswith(f"warning: {valid} is empty: ")
    assert not any(
        "warning" in line for line in ExportSummary([train, valid], runs=7, train_runs=5).lines()
    )


def test_a_declared_teams_agents_take_the_kind_of_their_role() -> None:

    team = build_team(TINY_TEAM)
    assert {a: kind_of(a, team) for a in team.nodes} == {
        "LEAD": Kind.DELEGATION,
        "SURVEY": Kind.REPORT,
        "SURVEYOR": Kind.REPORT,
        "SUMMARY": Kind.CONSOLIDATION,
    }
    assert kind_of("NOT_IN_THE_TEAM", team) is Kind.REPORT
    roles = {**team.roles, "SUMMARY": Role.REVIEWER, "SURVEY": Role.MERGER}
    reviewed = dataclasses.replace(team, roles={**roles, "SURVEYOR": Role.CONTEXT_MANAGER})
    assert {kind_of(a, reviewed) for a in ("SUMMARY", "SURVEY", "SURVEYOR")} == {Kind.REPORT}
