"""What a signed link or an email reply answers (pure)."""

from __future__ import annotations

import pytest

from agent_interrupts.models.door_answers import (
    from_door,
    link_answers,
    link_resolution,
    reply_resolution,
    reply_text,
)
from agent_interrupts.models.interrupts import (
    ConfirmationItem,
    Door,
    InterruptRequestBase,
    InterruptResolution,
    OptionKey,
    ResolvedBy,
)
from tests.support.interrupts import question_input


def two_part_question() -> InterruptRequestBase:
    """Which cache (B recommended) and which queue (A recommended); confirm tests (yes)."""
    request = question_input().request
    cache = request.choices[0]
    queue = cache.model_copy(update={"choice_id": "queue", "recommended": OptionKey.A})
    confirm = ConfirmationItem(
        confirmation_id="tests",
        statement="add tests",
        context="",
        default_value=True,
        impact_if_no="none",
    )
    return request.model_copy(update={"choices": [cache, queue], "confirmation_items": [confirm]})


def test_links_accept_each_option_but_custom_and_each_yes_and_no() -> None:
    links = link_answers(two_part_question())
    assert [link.answer for link in links] == [
        "accept",
        "choice:cache:A",
        "choice:cache:B",
        "choice:queue:A",
        "choice:queue:B",
        "confirm:tests:yes",
        "confirm:tests:no",
    ]
    assert links[2].label == "cache: B redis (recommended)"


def test_a_link_gives_its_part_and_the_recommendation_for_the_rest() -> None:
    question = two_part_question()
    accept = link_resolution("accept", question)
    assert accept is not None and accept.resolved_by is ResolvedBy.HUMAN
    assert accept.selected_choices == {"cache": OptionKey.B, "queue": OptionKey.A}
    one = link_resolution("choice:queue:B", question)
    assert one is not None and one.selected_choices == {"cache": "B", "queue": "B"}
    assert one.confirmations == {"tests": True}
    no = link_resolution("confirm:tests:no", question)
    assert no is not None and no.confirmations == {"tests": False}
    for gone in ("choice:queue:C", "choice:other:A", "choice:cache:CUSTOM", "confirm:x:yes", "?"):
        assert link_resolution(gone, question) is None


def test_a_reply_loses_what_it_quotes_and_its_signature() -> None:
    body = "B please\r\n\r\n> quoted\r\nmore\r\n-- \r\nAlice\r\n"
    assert reply_text(body) == "B please\n\nmore"
    assert reply_text("yes\nOn Mon, 1 Jan 2026, agents wrote:\nWhich cache?") == "yes"
    assert reply_text("no\n-----Original Message-----\nFrom: x") == "no"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("B", {"selectedChoices": {"cache": "B"}}),
        ("a.", {"selectedChoices": {"cache": "A"}}),
        ("cache = A", {"selectedChoices": {"cache": "A"}}),
        ("stop: wrong goal", {"stopRun": "wrong goal"}),
        ("Continue at planner", {"continueAt": "PLANNER", "selectedChoices": {"cache": "B"}}),
        ("use redis, but small", {"freeText": "use redis, but small\nsecond line"}),
        ("yes", {"freeText": "yes\nsecond line"}),  # no confirmation to say yes to
    ],
)
def test_a_replys_first_line_answers(line: str, expected: dict[str, object]) -> None:
    resolution = reply_resolution(f"{line}\nsecond line", question_input().request)
    assert isinstance(resolution, InterruptResolution)
    given = resolution.model_dump(by_alias=True, exclude_defaults=True)
    assert given == expected


def test_yes_and_no_answer_every_confirmation() -> None:
    answered = reply_resolution("No", two_part_question())
    assert isinstance(answered, InterruptResolution) and answered.confirmations == {"tests": False}


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("", "your reply is empty"),
        ("B", "this question has 2 choices: reply like cache=A, queue=A"),
        ("cache=C", "cache=C is not offered; cache: A, B; queue: A, B"),
        ("continue at no-such-agent!", "cannot read your reply"),
    ],
)
def test_a_reply_that_answers_nothing_says_what_to_write(line: str, problem: str) -> None:
    refused = reply_resolution(line, two_part_question())
    assert isinstance(refused, str) and refused.startswith(problem), refused


def test_a_door_signs_with_the_name_it_vouches_for() -> None:
    signed = from_door(InterruptResolution(free_text="ok"), "alice@example.test", Door.EMAIL)
    assert signed.answered_by == "alice@example.test" and signed.free_text == "ok"
    assert signed.door == "email"


def test_a_reply_in_words_reaches_the_agent_as_typed() -> None:
    typed = 'Use <b>Redis</b> & keep "quotes" = \\ ü 🙂\n\tsecond   line  {{ x }} %s'
    body = f"{typed}\n\nOn Mon, Ada wrote:\n> How should it be approached?\n"
    answer = reply_resolution(reply_text(body), two_part_question())
    assert isinstance(answer, InterruptResolution), answer
    assert answer.free_text == typed, "every character between the reply's first and last"
