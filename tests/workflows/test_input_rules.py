"""The pure rules behind the hardening (arity and size checks, clipping, the bounded
event log, the resume merge, the one default-option rule)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from agent_interrupts.models.errors import describe_validation_error
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey, StructuredChoice
from agent_interrupts.models.limits import MAX_EVENT_LOG_BYTES, MAX_EVENTS, MAX_PAYLOAD_BYTES, clip
from agent_interrupts.models.resolution_rules import default_option, drop_invalid_recommendations
from agent_interrupts.models.state import EventKind, GraphEvent, OrchestratorInput
from agent_interrupts.teams.software.questions import ReviewInterruptRequest
from agent_interrupts.teams.software.requests import DiscoveryCollectorRequest, TicketAgentRequests
from agent_interrupts.teams.software.results import DiscoveryAgentResult
from agent_interrupts.workflows.event_log import record_event
from agent_interrupts.workflows.handler_args import parse_values
from agent_interrupts.workflows.resume import resumed_request


@pytest.mark.parametrize(
    "args, problem",
    [
        ((), "takes one OrchestratorInput JSON argument, got 0"),
        (({"goal": "a"}, {"goal": "b"}), "got 2"),
        (({"goal": "x" * (MAX_PAYLOAD_BYTES + 1)},), "byte limit"),
        (("just a string",), "not a valid OrchestratorInput"),
    ],
)
def test_parse_values_names_the_problem(args: tuple[object, ...], problem: str) -> None:
    parsed = parse_values("start input", args, OrchestratorInput)
    assert parsed.value is None and parsed.problem is not None
    assert problem in parsed.problem and len(parsed.problem) < 1_000


def test_parse_values_takes_one_valid_value() -> None:
    assert parse_values("x", ({"goal": "g"},), OrchestratorInput).value == OrchestratorInput(
        goal="g"
    )


def test_validation_errors_never_echo_a_huge_key() -> None:
    with pytest.raises(ValidationError) as info:
        InterruptResolution.model_validate({"selectedChoices": {"k" * 1_000_000: "Z"}})
    text = describe_validation_error(info.value)
    assert len(text) < 500 and "more characters" in text


def test_clip_says_how_much_was_cut() -> None:
    assert clip("abc", 5) == "abc"
    assert clip("a" * 10, 4) == "aaaa… (6 more characters)"


def test_the_event_log_is_bounded_and_counts_everything() -> None:
    events: list[GraphEvent] = []
    total = 0
    for i in range(MAX_EVENTS + 50):
        event = GraphEvent(kind=EventKind.INFO, message=f"{i} " + "m" * 10_000, at=_NOW)
        total = record_event(events, total, event)
    assert total == MAX_EVENTS + 50
    assert all(len(e.message) < 2_100 for e in events)
    assert sum(len(e.model_dump_json()) for e in events) <= MAX_EVENT_LOG_BYTES
    assert events[-1].message.startswith(f"{MAX_EVENTS + 49} "), "the newest are kept"
    small: list[GraphEvent] = []
    for i in range(MAX_EVENTS + 50):
        record_event(small, 0, GraphEvent(kind=EventKind.INFO, message=f"{i}", at=_NOW))
    assert len(small) == MAX_EVENTS and small[0].message == "50"


def test_resume_keeps_system_inputs_and_empty_translations() -> None:
    """Item 8: the translated side's defaults never overwrite carried inputs."""
    results = [
        DiscoveryAgentResult.model_validate(_discovery_result()).to_wire(),
    ]
    carried = DiscoveryCollectorRequest(
        goal="g", guidance="merge the reports", agent_results=results
    ).to_wire()
    translated = DiscoveryCollectorRequest(guidance="merge, keeping module A separate")
    merged = resumed_request(DiscoveryCollectorRequest, carried, translated)
    assert merged["agentResults"] == results
    assert merged["guidance"] == "merge, keeping module A separate"
    empty = DiscoveryCollectorRequest(guidance="")
    assert resumed_request(DiscoveryCollectorRequest, carried, empty)["guidance"] == (
        "merge the reports"
    )


def test_resume_takes_deliberate_changes() -> None:
    carried = {"goal": "g", "guidance": "old", "requests": [{"ticketId": "T-1"}]}
    translated = TicketAgentRequests.model_validate(
        {"guidance": "new", "requests": [{"guidance": "do", "ticketId": "T-2", "title": "t"}]}
    )
    merged = resumed_request(TicketAgentRequests, carried, translated)
    assert merged["requests"][0]["ticketId"] == "T-2" and merged["guidance"] == "new"


def test_one_default_rule() -> None:
    """Item 10: the recommendation when offered, else the first offered option."""
    assert default_option(_choice(OptionKey.B)) is OptionKey.B
    assert default_option(_choice(None)) is OptionKey.A
    assert default_option(_choice(OptionKey.CUSTOM)) is OptionKey.A
    assert default_option(_choice(OptionKey.C)) is OptionKey.A, "C is not offered"


def test_invalid_recommendations_are_dropped_with_a_warning() -> None:
    request = ReviewInterruptRequest(
        type="HUMAN_REVIEW",
        reason="r",
        choices=[_choice(OptionKey.C), _choice(OptionKey.B)],
        confirmation_items=[],
        context_for_decision="",
        review_criteria=[],
        assessment_findings=[],
        approval_recommendation="APPROVED",
    )
    cleaned, warnings = drop_invalid_recommendations(request)
    assert [c.recommended for c in cleaned.choices] == [None, OptionKey.B]
    assert len(warnings) == 1 and "recommended C" in warnings[0]
    assert drop_invalid_recommendations(cleaned) == (cleaned, [])


def test_repeated_option_keys_move_to_free_keys_and_nothing_is_lost() -> None:
    choice = StructuredChoice.model_validate(
        {
            "choiceId": "c",
            "question": "q",
            "context": "",
            "options": [
                {"key": "A", "description": "x"},
                {"key": "A", "description": "y"},
                {"key": "CUSTOM", "description": "z"},
                {"key": "CUSTOM", "description": "w"},
            ],
            "recommended": "A",
        }
    )
    assert [(o.key.value, o.description) for o in choice.options] == [
        ("A", "x"),
        ("B", "y"),
        ("CUSTOM", "z"),
        ("C", "w"),
    ]
    assert choice.recommended is OptionKey.A
    six = [{"key": "A", "description": str(i)} for i in range(6)]
    with pytest.raises(ValidationError, match="offer at most four"):
        StructuredChoice.model_validate(
            {"choiceId": "c", "question": "q", "context": "", "options": six, "recommended": None}
        )


_NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _choice(recommended: OptionKey | None) -> StructuredChoice:
    return StructuredChoice(
        choice_id="c",
        question="q",
        context="",
        options=[
            {"key": "A", "description": "a"},  # type: ignore[list-item]
            {"key": "B", "description": "b"},  # type: ignore[list-item]
        ],
        recommended=recommended,
    )


def _discovery_result() -> dict[str, object]:
    return {
        "resultId": "wf-1/DISCOVERY_AGENT/1/t",
        "subdomain": "gateway",
        "summary": "the gateway routes requests",
        "findings": ["one entry point"],
        "fileReferences": [],
        "crossLinks": [],
        "tags": ["gateway"],
        "generatedQueries": [],
        "diagrams": [],
    }
