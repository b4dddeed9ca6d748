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


def test_a_cycle_with_no_exit_names_each_agent_on_it() -> None:
    team = _team(
        _orchestrator(A="go"),
        AgentSpec(name="A", routes={"B": "on"}),
        AgentSpec(name="B", routes={"A": "back"}),
    )
    problems = spec_problems(team)
    assert [p.split(":")[0] for p in problems] == ["agent A", "agent B", "agent LEAD"]
    assert all("no chain of routes from it reaches END" in p for p in problems)


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
        "the team needs exactly one agent with role orchestrator (has 0: none)"
    ]


@pytest.mark.parametrize("text", ["enum(A|A)", "enum(A|B|A|B)", "list[enum(X|Y|X)]"])
def test_an_enum_that_names_a_value_twice_is_named(text: str) -> None:
    problem = field_type_problem(text)
    assert problem is not None and repr(text) in problem and "more than once" in problem
