"""The Slack door's Block Kit, pure: buttons and what they stand for, the answer form and the
answer its fields make (typed text exactly as typed), escaping, Slack's size limits."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from agent_interrupts.activities.slack_blocks import (
    ANSWER,
    FORM,
    answer_view,
    answered_blocks,
    clicked_answer,
    question_blocks,
    submitted_answer,
)
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey, ResolvedBy
from tests.support.interrupts import question_input, with_confirmation
from tests.support.slack import buttons

WHEN = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _question():  # type: ignore[no-untyped-def]
    return question_input().request


def test_one_choice_is_answered_by_one_click_and_the_recommendation_is_marked() -> None:
    shown = buttons(question_blocks(_question(), "q-1", "asks", [("Temporal UI", "http://ui")], ""))
    assert shown["★ B: redis"]["style"] == "primary"
    assert shown["★ B: redis"]["action_id"].startswith(f"{ANSWER}:")
    assert "style" not in shown["A: in memory"]
    assert json.loads(shown["A: in memory"]["value"]) == {"q": "q-1", "c": {"cache": "A"}}
    assert shown["Other: my own answer…"]["action_id"].startswith(f"{FORM}:")
    assert shown["Temporal UI"]["url"] == "http://ui"
    ids = [b["action_id"] for b in shown.values()]
    assert len(ids) == len(set(ids)), "action ids are unique in the message"


def test_in_a_question_of_several_a_click_opens_the_form_with_its_pick() -> None:
    question = with_confirmation(_question())
    shown = buttons(question_blocks(question, "q-1", "asks", [], ""))
    assert shown["A: in memory"]["action_id"].startswith(f"{FORM}:")
    assert shown["Yes"]["action_id"].startswith(f"{FORM}:")
    picked = clicked_answer(json.loads(shown["A: in memory"]["value"]), question)
    assert picked is not None and picked.selected_choices == {"cache": OptionKey.A}
    view = answer_view(question, "q-1", picked, ["PLANNING_ORCHESTRATOR"], {"q": "q-1"})
    by_id = {b.get("block_id"): b for b in view["blocks"]}
    assert by_id["c0"]["element"]["initial_option"]["value"] == "A"
    assert "initial_option" not in by_id["y0"]["element"], "nothing chosen for the person"
    assert [o["value"] for o in by_id["goto"]["element"]["options"]] == ["PLANNING_ORCHESTRATOR"]
    assert json.loads(view["private_metadata"]) == {"q": "q-1"}


def test_the_recommendation_is_a_persons_answer_with_every_pick() -> None:
    question = with_confirmation(_question())
    taken = clicked_answer({"q": "q-1", "r": 1}, question)
    assert taken is not None and taken.resolved_by is ResolvedBy.HUMAN
    assert taken.selected_choices == {"cache": OptionKey.B}
    assert set(taken.confirmations) == {c.confirmation_id for c in question.confirmation_items}
    assert clicked_answer({"c": "not a mapping"}, question) is None


def test_the_forms_text_is_taken_exactly_as_typed() -> None:
    typed = "  <b>x</b> & = \\ \n\t two  "
    values = {
        "c0": {"pick": {"selected_option": {"value": "A"}}},
        "w0": {"words": {"value": " mine "}},
        "free": {"words": {"value": typed}},
        "goto": {"pick": {"selected_option": {"value": "PLANNING_ORCHESTRATOR"}}},
    }
    taken = submitted_answer(_question(), values)
    assert taken.selected_choices == {"cache": OptionKey.CUSTOM}, "own words make it CUSTOM"
    assert taken.custom_inputs == {"cache": " mine "}
    assert taken.free_text == typed
    assert taken.continue_at == "PLANNING_ORCHESTRATOR"
    stopped = submitted_answer(_question(), {**values, "stop": {"words": {"value": " enough "}}})
    assert stopped == InterruptResolution(stop_run=" enough ")
    blank = submitted_answer(_question(), {"free": {"words": {"value": "   "}}, "junk": 3})
    assert blank == InterruptResolution()


def test_model_text_is_escaped_and_clipped_to_slacks_limits() -> None:
    question = _question()
    question.reason = "<!channel> & <https://evil|click> " + "x" * 5_000
    question.choices[0].options[0].description = "y" * 500
    blocks = question_blocks(question, "q-1", "t" * 400, [], "")
    text = json.dumps(blocks)
    assert "<!channel>" not in text and "&lt;!channel&gt; &amp; &lt;https://evil|click&gt;" in text
    assert all(len(b["text"]["text"]) <= 3_000 for b in blocks if b["type"] == "section")
    assert len(blocks[0]["text"]["text"]) <= 150
    assert all(len(t) <= 75 for t in buttons(blocks))
    answer = InterruptResolution(
        selected_choices={"cache": OptionKey.B}, answered_by="<@U1> Ada", free_text="<b>"
    )
    closed = json.dumps(answered_blocks(question, "done", answer, WHEN, [], "f"))
    assert "Answered by &lt;@U1&gt; Ada (HUMAN)* at 2026-03-01 12:00 UTC" in closed
    assert "&lt;b&gt;" in closed and '"button"' not in closed
    nobody = json.dumps(answered_blocks(question, "done", None, WHEN, [], "f"))
    assert "Nobody answered by the deadline" in nobody
