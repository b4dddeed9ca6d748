"""A team declared as data: ``spec_problems`` accepts every valid shape of team (drawn by
Hypothesis) and refuses each single mutation that breaks a rule, with one line naming the agent;
a team's content hash survives its JSON round trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_interrupts.models.team_spec import (
    END,
    AgentSpec,
    FieldSpec,
    Role,
    TeamSpec,
    field_type_problem,
    spec_problems,
)
from tests.support.team_strategies import (
    MUTATIONS,
    UNEXPRESSIBLE_TYPES,
    broken_teams,
    field_types,
    valid_teams,
)


def _team(*agents: AgentSpec, **fields: object) -> TeamSpec:
    return TeamSpec(name="t", agents=list(agents), **fields)  # type: ignore[arg-type]


def _orchestrator(**routes: str) -> AgentSpec:
    return AgentSpec(name="LEAD", role=Role.ORCHESTRATOR, routes=routes or {END: "done"})


@given(valid_teams())
@settings(max_examples=100, deadline=None)
def test_every_valid_team_has_no_problems(team: TeamSpec) -> None:
    assert spec_problems(team) == []


@given(valid_teams())
@settings(max_examples=40, deadline=None)
def test_a_teams_hash_survives_its_json_round_trip(team: TeamSpec) -> None:
    again = TeamSpec.model_validate_json(json.dumps(team.to_wire()))
    assert again == team
    assert again.sha256() == team.sha256()
    assert [a.name for a in again.agents] == [a.name for a in team.agents], "order is kept"


@given(valid_teams(), st.data())
@settings(max_examples=20, deadline=None)
def test_any_change_changes_the_hash(team: TeamSpec, data: st.DataObject) -> None:
    agent = data.draw(st.sampled_from(team.agents))
    edited = agent.model_copy(update={"description": agent.description + "."})
    other = team.model_copy(update={"agents": [edited if a is agent else a for a in team.agents]})
    assert other.sha256() != team.sha256()


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
@given(data=st.data())
@settings(max_examples=10, deadline=None)
def test_each_mutation_yields_a_problem(mutation: str, data: st.DataObject) -> None:
    _, team = data.draw(broken_teams(mutation))
    problems = spec_problems(team)
    assert problems, f"{mutation} went unnoticed"
    assert all("\n" not in p for p in problems), "one line per problem"


@given(broken_teams())
@settings(max_examples=100, deadline=None)
def test_a_random_mutation_yields_a_problem(named: tuple[str, TeamSpec]) -> None:
    mutation, team = named
    assert spec_problems(team), f"{mutation} went unnoticed"


@given(field_types())
def test_every_drawn_field_type_is_expressible(text: str) -> None:
    assert field_type_problem(text) is None


@pytest.mark.parametrize("text", UNEXPRESSIBLE_TYPES)
def test_types_a_strict_schema_cannot_express_are_named(text: str) -> None:
    problem = field_type_problem(text)
    assert problem is not None and repr(text) in problem


# -- one test per kind of bad definition: the line names the agent ------------------------------


def test_a_route_to_an_unknown_agent_names_the_agent_and_the_target() -> None:
    team = _team(_orchestrator(FOO="x", END="done"))
    assert spec_problems(team) == [
        "agent LEAD: route to 'FOO', which is not an agent of the team (agents: LEAD; or END)"
    ]


def test_a_dispatcher_without_its_agent_is_named() -> None:
    team = _team(
        _orchestrator(FAN="go"),
        AgentSpec(name="FAN", role=Role.DISPATCHER, routes={END: "done"}),
    )
    (problem,) = spec_problems(team)
    assert problem.startswith("agent FAN: a dispatcher needs `dispatches`")


def test_a_dispatcher_of_an_agent_that_is_not_dispatched_is_named() -> None:
    team = _team(
        _orchestrator(FAN="go"),
        AgentSpec(name="FAN", role=Role.DISPATCHER, dispatches="LEAD", routes={END: "done"}),
    )
    assert "agent FAN: dispatches LEAD, whose role is orchestrator" in spec_problems(team)[0]


def test_a_dispatchers_own_request_and_result_fields_are_refused() -> None:
    """The agent that routes to a dispatcher writes its agents' requests, and the dispatcher
    writes a ``dispatchResult``: fields declared on the dispatcher would be silently ignored."""
    team = _team(
        _orchestrator(FAN="go"),
        AgentSpec(
            name="FAN",
            role=Role.DISPATCHER,
            dispatches="WORKER",
            routes={END: "done"},
            request={"hosts": FieldSpec(type="list[str]")},
            result={"tally": FieldSpec(type="int")},
        ),
        AgentSpec(name="WORKER", role=Role.DISPATCHED),
    )
    assert spec_problems(team) == [
        "agent FAN: a dispatcher has no request or result fields of its own (the agent that "
        "routes to it writes one request per agent it runs, `requests`, and it writes "
        "`dispatchResult`); declare them on WORKER, or on the agent before or after it"
    ]


def test_a_dispatched_agent_with_two_dispatchers_is_named() -> None:
    fan = AgentSpec(name="FAN", role=Role.DISPATCHER, dispatches="WORKER", routes={END: "d"})
    team = _team(
        _orchestrator(FAN="go", FAN2="go"),
        fan,
        fan.model_copy(update={"name": "FAN2"}),
        AgentSpec(name="WORKER", role=Role.DISPATCHED),
    )
    assert spec_problems(team) == [
        "agent FAN2: dispatches WORKER, which FAN dispatches too; a dispatched agent has one "
        "dispatcher"
    ]


def test_a_cycle_with_no_exit_is_one_line_naming_its_agents() -> None:
    team = _team(
        _orchestrator(A="go"),
        AgentSpec(name="A", routes={"B": "on"}),
        AgentSpec(name="B", routes={"A": "back"}),
    )
    assert spec_problems(team) == [
        "agents A, B: no chain of routes from them reaches END (a cycle with no exit); give one "
        "of them a route to END"
    ], "LEAD leads only into the cycle: one END on it fixes LEAD too"


def test_one_missing_end_in_a_long_cycle_is_one_line_and_two_are_two() -> None:
    team = _team(
        _orchestrator(A="go", X="go"),
        *(AgentSpec(name=n, routes={t: "on"}) for n, t in zip("ABCD", "BCDA", strict=True)),
        AgentSpec(name="X", routes={"X": "again"}),
    )
    assert spec_problems(team) == [
        "agents A, B, C, D: no chain of routes from them reaches END (a cycle with no exit); "
        "give one of them a route to END",
        "agent X: no chain of routes from it reaches END (a cycle with no exit); give it a "
        "route to END",
    ]


def test_a_cycle_with_an_exit_is_fine() -> None:
    team = _team(
        _orchestrator(A="go"),
        AgentSpec(name="A", routes={"B": "on"}),
        AgentSpec(name="B", routes={"A": "back", END: "done"}),
    )
    assert spec_problems(team) == []


def test_duplicate_agent_names_are_named_once() -> None:
    team = _team(_orchestrator(A="go"), AgentSpec(name="A", routes={END: "d"}), AgentSpec(name="A"))
    problems = spec_problems(team)
    assert problems.count("agent A: declared more than once; agent names are unique") == 1


@pytest.mark.parametrize("text", ["dict[str,int]", "any"])
def test_a_field_type_a_strict_schema_cannot_express_names_the_agent_and_field(text: str) -> None:
    lead = _orchestrator().model_copy(update={"result": {"hosts": FieldSpec(type=text)}})
    (problem,) = spec_problems(_team(lead))
    assert problem.startswith(f"agent LEAD: result field hosts: field type {text!r} cannot")


def test_a_final_field_type_is_checked_too() -> None:
    team = _team(_orchestrator(), final={"blob": FieldSpec(type="object")})
    (problem,) = spec_problems(team)
    assert problem.startswith("final result field blob: field type 'object'")


def test_two_fields_with_one_json_name_are_named() -> None:
    fields = {"x_1": FieldSpec(), "x1": FieldSpec()}
    lead = _orchestrator().model_copy(update={"result": fields})
    assert spec_problems(_team(lead)) == [
        "agent LEAD: result fields x_1 and x1 have one JSON name (x1); rename one"
    ]


def test_a_reserved_name_is_named() -> None:
    team = _team(
        _orchestrator(REVIEW_AGENT="go"), AgentSpec(name="REVIEW_AGENT", routes={END: "d"})
    )
    assert spec_problems(team)[0].startswith("agent REVIEW_AGENT: the name is reserved")


def test_a_team_without_an_orchestrator_says_so() -> None:
    team = _team(AgentSpec(name="A", routes={END: "d"}))
    assert spec_problems(team) == [
        "the team needs exactly one agent with role orchestrator (has 0: none), or "
        "`starts_at` naming the one every run starts at"
    ]


# -- code-writing agents, reviewers and mergers: capabilities by role --------------------------


def _fan_out(coder: AgentSpec, *more: AgentSpec) -> TeamSpec:
    return _team(
        _orchestrator(FAN="go"),
        AgentSpec(name="FAN", role=Role.DISPATCHER, dispatches="CODER", routes={END: "done"}),
        coder,
        *more,
    )


def test_a_dispatched_agent_may_write_code() -> None:
    coder = AgentSpec(name="CODER", role=Role.DISPATCHED, tools=["write"])
    assert spec_problems(_fan_out(coder)) == []


def test_write_on_an_agent_that_is_not_dispatched_is_named_in_one_line() -> None:
    lead = _orchestrator().model_copy(update={"tools": ["read", "write"]})
    assert spec_problems(_team(lead)) == [
        "agent LEAD: tools `write` need role dispatched (each request its dispatcher runs gets "
        "its own worktree and branch); its role is orchestrator"
    ]


def test_an_unknown_tool_group_names_the_groups() -> None:
    lead = _orchestrator().model_copy(update={"tools": ["shell"]})
    assert spec_problems(_team(lead)) == [
        "agent LEAD: unknown tool group 'shell'; teams may give agents `read` or `write`"
    ]


def test_a_field_the_workflow_fills_may_not_be_declared() -> None:
    coder = AgentSpec(
        name="CODER", role=Role.DISPATCHED, tools=["write"], result={"code_commit": FieldSpec()}
    )
    review = AgentSpec(
        name="CHECK",
        role=Role.REVIEWER,
        routes={END: "done"},
        request={"ticket_changes": FieldSpec()},
    )
    merge = AgentSpec(
        name="MERGE",
        role=Role.MERGER,
        routes={END: "done"},
        request={"merge_report": FieldSpec()},
        result={"code_change": FieldSpec()},
    )
    team = _team(
        _orchestrator(FAN="go", CHECK="check", MERGE="merge"),
        AgentSpec(name="FAN", role=Role.DISPATCHER, dispatches="CODER", routes={END: "done"}),
        coder,
        review,
        merge,
    )
    assert spec_problems(team) == [
        "agent CODER: result field code_commit is filled by the workflow for its tools; rename "
        "the field",
        "agent CHECK: request field ticket_changes is filled by the workflow for its role; "
        "rename the field",
        "agent MERGE: request field merge_report is filled by the workflow for its role; rename "
        "the field",
        "agent MERGE: result field code_change is filled by the workflow for its role; rename "
        "the field",
    ]


def _collector(**fields: object) -> AgentSpec:
    values: dict[str, object] = {
        "name": "SUM",
        "role": Role.COLLECTOR,
        "routes": {END: "d"},
        "result": {"overview": FieldSpec(type="text"), "risks": FieldSpec(type="list[str]")},
    }
    return AgentSpec.model_validate({**values, **fields})


def test_a_collectors_context_names_its_result_fields() -> None:
    fine = _team(_orchestrator(SUM="go"), _collector(context=["risks"]))
    assert spec_problems(fine) == []
    unknown = _team(_orchestrator(SUM="go"), _collector(context=["risk"]))
    assert spec_problems(unknown) == [
        "agent SUM: context names 'risk', which is not one of its result fields (overview, risks)"
    ]


def test_only_a_collector_has_a_context() -> None:
    team = _team(_orchestrator(SUM="go"), _collector(role=Role.AGENT, context=[]))
    assert spec_problems(team) == [
        "agent SUM: only a collector's result becomes a curated context (its role is agent); "
        "remove `context`"
    ]


def test_no_request_field_takes_the_curated_contexts_name() -> None:
    team = _team(_orchestrator(SUM="go"), _collector(request={"contexts": FieldSpec()}))
    assert spec_problems(team) == [
        "agent SUM: request field contexts: the name is the workflow's (the team's curated "
        "contexts arrive in it); rename the field"
    ]


def test_a_team_that_sets_no_context_keeps_its_json_and_hash() -> None:
    """Teams pinned before ``context`` existed are found again by their content hash."""
    team = _team(_orchestrator(SUM="go"), _collector())
    assert all("context" not in a for a in team.to_wire()["agents"])  # type: ignore[union-attr]
    opted_out = _team(_orchestrator(SUM="go"), _collector(context=[]))
    assert opted_out.sha256() != team.sha256()


@pytest.mark.parametrize("text", ["enum(A|A)", "enum(A|B|A|B)", "list[enum(X|Y|X)]"])
def test_an_enum_that_names_a_value_twice_is_named(text: str) -> None:
    problem = field_type_problem(text)
    assert problem is not None and repr(text) in problem and "more than once" in problem
