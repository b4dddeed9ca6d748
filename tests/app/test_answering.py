"""Answering from a terminal: flags and the interactive menus."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from agent_interrupts.app.answering import ask, resolution_from_flags, with_continue_at
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.models.resolution_rules import resolution_problems
from agent_interrupts.models.team_build import build_team
from tests.models.test_resolution_rules import REQUEST
from tests.support.fan_out import combined_question
from tests.workflows.test_declared_team import TINY_TEAM


def test_flags_become_a_resolution() -> None:
    resolution = resolution_from_flags(
        ["approach=custom"], ["approach=use a token bucket"], ["tests=no"], "thanks"
    )
    assert resolution.selected_choices == {"approach": OptionKey.CUSTOM}
    assert resolution.custom_inputs == {"approach": "use a token bucket"}
    assert resolution.confirmations == {"tests": False}
    assert resolution_problems(REQUEST, resolution) == []


@pytest.mark.parametrize(
    ("choice", "confirm", "message"),
    [
        (["approach"], [], "--choice takes ID=VALUE"),
        (["approach=Z"], [], "use one of A, B, C, D, CUSTOM"),
        ([], ["tests=maybe"], "use yes or no"),
    ],
)
def test_bad_flags_say_how_to_write_them(
    choice: list[str], confirm: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        resolution_from_flags(choice, [], confirm, None)


def _reader(*lines: str) -> Callable[[str], Awaitable[str]]:
    answers = iter(lines)

    async def read(_prompt: str) -> str:
        return next(answers)

    return read


async def test_interactive_menu_retries_bad_input_and_takes_defaults() -> None:
    read = _reader("Z", "custom", "", "split by route", "maybe", "", "ship it")
    resolution = await ask(REQUEST, read)
    assert resolution.selected_choices == {"approach": OptionKey.CUSTOM}
    assert resolution.custom_inputs == {"approach": "split by route"}
    assert resolution.confirmations == {"tests": True}, "Enter takes the default"
    assert resolution.free_text == "ship it"
    assert resolution_problems(REQUEST, resolution) == []


async def test_enter_takes_the_recommended_option() -> None:
    resolution = await ask(REQUEST, _reader("", "n", ""))
    assert resolution.selected_choices == {"approach": OptionKey.B}
    assert resolution.confirmations == {"tests": False}


async def test_every_menu_offers_stopping_the_run_with_a_reason() -> None:
    read = _reader("s", "", "the scope is wrong")  # no words: asked again
    resolution = await ask(REQUEST, read, "REVIEW_AGENT", ["MERGER_AGENT"])
    assert resolution == InterruptResolution(stop_run="the scope is wrong")
    assert resolution_problems(REQUEST, resolution) == []


async def test_every_menu_offers_going_on_at_one_of_the_agents_routes() -> None:
    targets = ["MERGER_AGENT", "TICKET_ORCHESTRATOR"]
    read = _reader("G", "9", "2", "A", "", "as is")
    resolution = await ask(REQUEST, read, "REVIEW_AGENT", targets)
    assert resolution.continue_at == "TICKET_ORCHESTRATOR"
    assert resolution.selected_choices == {"approach": OptionKey.A}
    assert resolution.free_text == "as is"
    without = await ask(REQUEST, _reader("G", "", "n", ""), "REVIEW_AGENT", [])
    assert without.continue_at is None, "no route to go on at: G is no key"


async def test_a_question_without_choices_offers_the_ways_out_first() -> None:
    question = REQUEST.model_copy(update={"choices": []})
    stopped = await ask(question, _reader("S", "enough"), "REVIEW_AGENT", ["MERGER_AGENT"])
    assert stopped.stop_run == "enough"
    answered = await ask(question, _reader("", "", "fine"), "REVIEW_AGENT", ["MERGER_AGENT"])
    assert (answered.stop_run, answered.continue_at, answered.free_text) == (None, None, "fine")


@pytest.mark.parametrize(
    ("choice", "custom", "confirm", "text", "message"),
    [
        (
            ["approach=C"],
            [],
            ["tests=yes"],
            None,
            r"^--choice approach=C: use one of A, B, CUSTOM$",
        ),
        (
            ["approach=CUSTOM"],
            [],
            ["tests=yes"],
            None,
            r'^--choice approach=CUSTOM needs your approach: --custom approach="..."$',
        ),
        (
            ["scope=A"],
            [],
            ["tests=yes", "docs=no"],
            None,
            r"--choice scope=A: the question has no choice 'scope' \(it asks --choice for "
            r"approach\); --confirm docs=no: the question asks no 'docs' \(it asks --confirm for "
            r"tests\); no answer yet; add --choice approach=A\|B\|CUSTOM \(or --text",
        ),
        ([], [], ["tests=maybe"], None, r"--confirm tests=maybe: use yes or no; no answer yet"),
        (
            ["approach=B"],
            [],
            [],
            "!!!",
            r"^--text '!!!' has no letter or digit: it cannot decide anything; no answer yet",
        ),
        (
            ["approach=B"],
            [],
            ["tests=yes", "tests=no"],
            None,
            r"^--confirm tests is given twice \('yes', 'no'\): keep one$",
        ),
        (["approach=B"], [], [], None, r"^no answer yet; add --confirm tests=yes\|no \(or --text"),
        (
            ["approach=B"],
            ["approach=mine"],
            ["tests=no"],
            None,
            r"^--custom approach goes with --choice approach=CUSTOM$",
        ),
    ],
)
def test_flags_are_checked_against_the_question_and_named_as_flags(
    choice: list[str], custom: list[str], confirm: list[str], text: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message) as raised:
        resolution_from_flags(choice, custom, confirm, text, request=REQUEST)
    assert "customInputs" not in str(raised.value) and "selectedChoices" not in str(raised.value)


def test_custom_alone_chooses_custom_and_text_may_leave_the_rest_open() -> None:
    resolution = resolution_from_flags(
        [], ["approach=a queue"], [], "yes to tests", request=REQUEST
    )
    assert resolution.selected_choices == {"approach": OptionKey.CUSTOM}
    assert resolution.custom_inputs == {"approach": "a queue"}
    assert resolution_problems(REQUEST, resolution) == []


def test_flags_may_answer_one_agent_of_a_combined_question() -> None:
    """FR-094: with ``in_parts`` the other agents' flags may be left out."""
    combined = combined_question("a", "b")
    flags = (["ticket-agent-1/approach=B"], [], ["ticket-agent-1/check-0=yes"], None)
    answer = resolution_from_flags(*flags, request=combined, in_parts=True)
    assert answer.selected_choices == {"ticket-agent-1/approach": OptionKey.B}
    with pytest.raises(ValueError, match=r"--choice ticket-agent-2/approach=A\|B"):
        resolution_from_flags(*flags, request=combined)


def test_the_example_answer_names_the_questions_own_ids() -> None:
    """``resolve --no-input`` prints a command to copy: the recommended answer, real ids."""
    from agent_interrupts.app.answering import example_flags

    assert example_flags(REQUEST) == "--choice approach=B --confirm tests=yes"
    free = REQUEST.model_copy(update={"choices": [], "confirmation_items": []})
    assert example_flags(free) == '--text "your answer"'


def test_continue_at_is_a_route_of_the_runs_team() -> None:

    team = build_team(TINY_TEAM)
    answer = InterruptResolution(free_text="go on")
    assert with_continue_at(answer, "SURVEY", "SUMMARY", team=team).continue_at == "SUMMARY"
    with pytest.raises(ValueError, match="--continue-at 'ORCHESTRATOR' is not an agent of team"):
        with_continue_at(answer, "SURVEY", "ORCHESTRATOR", team=team)
    with pytest.raises(ValueError, match=r"LEAD is not a route of SURVEY \(offered: SUMMARY\)"):
        with_continue_at(answer, "SURVEY", "LEAD", team=team)
    with pytest.raises(ValueError, match="'SUMMARY' is not an agent of team software"):
        with_continue_at(answer, "REVIEW_AGENT", "SUMMARY", team=SOFTWARE_TEAM)


async def test_the_menu_keeps_what_a_person_types_exactly() -> None:
    """A write-in and a note reach the agent as typed: spaces at the ends, quotes, markup."""
    approach = '  a “token” <b>bucket</b> = "per route"  '
    note = "\tindented note, trailing space "
    read = _reader("custom", "   ", approach, "", note)
    resolution = await ask(REQUEST, read)
    assert resolution.custom_inputs == {"approach": approach}, "blanks are asked again"
    assert resolution.free_text == note
