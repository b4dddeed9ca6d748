"""Every per-agent interrupt type carries its typed, described fields (US24-US41,
FR-104..FR-108), and a question is well formed before a person sees it
(FR-088..091, SC-025, SC-027)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_interrupts.models import interrupts
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupts import (
    MAX_CHOICES,
    MAX_CONFIRMATIONS,
    MAX_QUESTION_ID_CHARS,
    InterruptRequestBase,
)
from agent_interrupts.teams.software import questions
from agent_interrupts.teams.software.questions import TicketAgentInterruptRequest

REQUESTS: list[type[InterruptRequestBase]] = list(SOFTWARE_TEAM.questions.values())

SPEC_FIELDS = {
    "PlanningAgentInterruptRequest": {  # FR-104
        "proposedTickets": "list of {ticketId, title, description, dependencies, discoveryLinks}",
        "architectureDecisions": "list of {decision, alternatives, implications}",
        "discoveryReferences": "list of text",
    },
    "DiscoveryCollectorInterruptRequest": {  # FR-105
        "codeReferences": "list of {path, startLine, endLine, relevance, note}",
        "subdomainBoundaries": "list of {subdomain, paths, rationale}",
        "recommendations": "list of {priority, action, rationale}",
    },
    "TicketAgentInterruptRequest": {  # FR-106
        "filesToModify": "list of {path, change}",
        "testStrategies": "list of {test, covers}",
        "implementationApproaches": "list of {approach, tradeOffs}",
    },
    "OrchestratorInterruptRequest": {  # FR-107
        "phase": "text",
        "goal": "text",
        "workflowContext": "text",
    },
    **{  # FR-108
        name: {
            "routingDecisions": "list of {agent, assignment, rationale}",
            "targetAgentContext": "text",
        }
        for name in (
            "DiscoveryAgentDispatchInterruptRequest",
            "PlanningAgentDispatchInterruptRequest",
            "TicketAgentDispatchInterruptRequest",
        )
    },
    "OrchestratorCollectorInterruptRequest": {  # US25
        "phaseDecision": "one of ADVANCE_PHASE, ROUTE_BACK, STOP",
    },
    "DiscoveryAgentInterruptRequest": {
        "codeFindings": "list of {path, startLine, endLine, relevance, note}"
    },  # US27
    "ReviewInterruptRequest": {"assessmentFindings": "list of {finding, severity}"},  # US38
    "MergerInterruptRequest": {"conflictFiles": "list of {path, diffSummary}"},  # US39
    "ContextManagerInterruptRequest": {
        "contextFindings": "list of {finding, source, relevance}"
    },  # US41
}


def _written(model: type[Any]) -> dict[str, Any]:
    """The properties the model writes (system-set fields are not in its schema)."""
    return dict(model.model_json_schema(by_alias=True)["properties"])


def test_seventeen_types_one_per_agent() -> None:
    """FR-081, FR-103, SC-018."""
    assert len(REQUESTS) == len(SOFTWARE_TEAM.nodes) == 17
    assert {r.model_fields["origin"].default for r in REQUESTS} == set(SOFTWARE_TEAM.nodes)


@pytest.mark.parametrize("model", REQUESTS, ids=lambda m: m.__name__)
def test_every_field_the_model_writes_says_what_to_put_there(model: type[Any]) -> None:
    """Item 4: the prompt guidance is generated from these descriptions."""
    own = set(_written(model)) - set(_written(InterruptRequestBase))
    assert len(own) >= 2, "agent-specific context beyond the base fields"
    for name, prop in _written(model).items():
        assert len(prop.get("description", "")) > 15, f"{model.__name__}.{name}"


def test_the_agent_specific_fields_are_typed() -> None:
    from agent_interrupts.activities.routing_info import _field_docs

    for name, fields in SPEC_FIELDS.items():
        docs = {d.name: d.kind for d in _field_docs(getattr(questions, name))}
        for field, kind in fields.items():
            assert docs.get(field) == kind, f"{name}.{field}"


# -- well-formed questions (item 5) -------------------------------------------------------------


def _choice(**overrides: Any) -> dict[str, Any]:
    choice = {
        "choiceId": "approach",
        "question": "How?",
        "context": "c",
        "options": [{"key": "A", "description": "small"}, {"key": "B", "description": "big"}],
        "recommended": "A",
    }
    return {**choice, **overrides}


def _confirmation(confirmation_id: str = "tests") -> dict[str, Any]:
    return {
        "confirmationId": confirmation_id,
        "statement": "Add tests",
        "context": "c",
        "defaultValue": True,
        "impactIfNo": "none",
    }


def _question(**overrides: Any) -> TicketAgentInterruptRequest:
    wire: dict[str, Any] = {
        "type": "HUMAN_REVIEW",
        "reason": "two approaches",
        "contextForDecision": "ctx",
        "choices": [_choice()],
        "confirmationItems": [_confirmation()],
        "filesToModify": [],
        "testStrategies": [],
        "implementationApproaches": [],
    }
    return TicketAgentInterruptRequest.model_validate({**wire, **overrides})


ONE = [{"key": "A", "description": "only"}]
FOUR = [{"key": k, "description": f"option {k}"} for k in "ABCD"]


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({}, None),
        ({"choices": [_choice(options=FOUR, recommended="D")]}, None),
        ({"choices": [_choice(options=ONE, recommended=None)]}, "offers 1 real option(s)"),
        ({"choices": [_choice(recommended="C")]}, "recommends C, which is not one of its"),
        ({"choices": [_choice(recommended="CUSTOM")]}, "recommends CUSTOM"),
        (
            {
                "choices": [
                    _choice(
                        options=[
                            {"key": "A", "description": "x"},
                            {"key": "B", "description": " X"},
                        ]
                    )
                ]
            },
            "empty or repeated option",
        ),
        ({"choices": [_choice(), _choice()]}, "choiceId 'approach' is used more than once"),
        ({"confirmationItems": [_confirmation(), _confirmation()]}, "confirmationId 'tests' is"),
        ({"choices": [_choice(choiceId="x" * (MAX_QUESTION_ID_CHARS + 1))]}, "must be 1 to 80"),
        ({"choices": [_choice(choiceId=" ")]}, "must be 1 to 80"),
        ({"reason": "  "}, "the reason is empty"),
        (
            {"choices": [_choice(choiceId=f"c{n}") for n in range(MAX_CHOICES + 1)]},
            f"ask at most {MAX_CHOICES}",
        ),
        (
            {"confirmationItems": [_confirmation(f"t{n}") for n in range(MAX_CONFIRMATIONS + 1)]},
            f"ask at most {MAX_CONFIRMATIONS}",
        ),
    ],
)
def test_a_question_a_person_cannot_answer_as_asked_is_named(
    overrides: dict[str, Any], problem: str | None
) -> None:
    problems = _question(**overrides).problems()
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_custom_is_always_offered_and_never_counted_as_an_alternative() -> None:
    """FR-090, SC-027: CUSTOM is added when missing; it does not make a second option."""
    question = _question(choices=[_choice(options=ONE, recommended=None)])
    assert [o.key.value for o in question.choices[0].options] == ["A", "CUSTOM"]
    assert question.problems()


def test_a_malformed_question_is_made_answerable_keeping_what_the_model_wrote() -> None:
    """What a small model writes on its last attempt: the question is asked, repaired."""
    question = _question(
        reason=" ",
        choices=[
            _choice(
                options=[
                    {"key": "A", "description": "same"},
                    {"key": "B", "description": " Same"},
                    {"key": "C", "description": ""},
                ],
                recommended="D",
            ),
            _choice(),
            _choice(choiceId="x" * (MAX_QUESTION_ID_CHARS + 1)),
        ],
        confirmationItems=[_confirmation(""), _confirmation("tests"), _confirmation("tests")],
    )
    fixed = question.answerable()
    assert [c.choice_id for c in fixed.choices] == ["approach", "choice-2", "choice-3"]
    assert [c.confirmation_id for c in fixed.confirmation_items] == [
        "confirmation-1",
        "tests",
        "confirmation-3",
    ]
    first = fixed.choices[0]
    assert [(o.key.value, o.description) for o in first.options] == [
        ("A", "same"),
        ("C", interrupts.NO_OPTION_TEXT),
        ("CUSTOM", interrupts.CUSTOM_OPTION_TEXT),
    ]
    assert first.recommended is None and fixed.reason.strip()
    assert fixed.problems() == [], "a person can answer it as asked"
    assert _question().answerable() == _question(), "a well-formed question is unchanged"
