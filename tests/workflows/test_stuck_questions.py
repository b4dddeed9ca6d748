"""A stuck agent's question (pure): what it offers the first time, and that a later one offers
another way out, never the same question more than twice."""

from __future__ import annotations

from agent_interrupts.models.agent_types import AgentType, Terminal
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.models.limits import MAX_OUTPUT_TOKENS_FACTOR
from agent_interrupts.workflows.stuck_questions import (
    AGAIN,
    MORE_TOKENS_ID,
    ROUTE_CHOICE_ID,
    more_tokens,
    stuck_question,
)

AGENT = AgentType.REVIEW_AGENT
MODEL = NODES[AGENT].output_model


def _offered(earlier: int) -> list[str]:
    question = stuck_question(AGENT, MODEL, "the model call failed: HTTP 503", earlier)
    (choice,) = question.choices
    assert choice.choice_id == ROUTE_CHOICE_ID and choice.recommended is OptionKey.A
    return [o.description for o in choice.options]


def test_the_first_question_offers_each_route_and_running_it_again() -> None:
    question = stuck_question(AGENT, MODEL, "the model call failed: HTTP 503")
    assert question.reason.startswith("REVIEW_AGENT could not finish its step (the model call")
    assert "stuck for the" not in question.reason
    assert _offered(0)[-2] == AGAIN and _offered(0)[-1] == "Or provide your own approach"
    assert "Other ways out: stop the run" in question.context_for_decision


def test_a_second_question_recommends_another_way_and_a_third_drops_running_it_again() -> None:
    first, second, third = _offered(0), _offered(1), _offered(2)
    assert second[0] != first[0], "another route is recommended"
    aliases = MODEL.route_aliases().values()
    routes = {f"-> {t.value})" for t in aliases if t is not Terminal.INTERRUPT}
    assert all(any(r in d for r in routes) for d in second[:2]), "routes of the agent"
    assert AGAIN not in third and third != second
    reason = stuck_question(AGENT, MODEL, "x", 1).reason
    assert "stuck for the second time in this run" in reason


def test_a_reply_cut_off_at_the_token_limit_offers_twice_the_tokens() -> None:
    cut = "the reply was cut off at the output token limit (300 tokens, LLM_MAX_OUTPUT_TOKENS)"
    [item] = stuck_question(AGENT, MODEL, cut).confirmation_items
    assert item.confirmation_id == MORE_TOKENS_ID
    assert stuck_question(AGENT, MODEL, "HTTP 503").confirmation_items == []


def test_each_yes_doubles_the_tokens_up_to_the_limit_and_no_keeps_them() -> None:
    yes = InterruptResolution(confirmations={MORE_TOKENS_ID: True})
    no = InterruptResolution(confirmations={MORE_TOKENS_ID: False})
    assert [more_tokens(yes, f) for f in (1, 2, 4, 8)] == [2, 4, 8, MAX_OUTPUT_TOKENS_FACTOR]
    assert more_tokens(no, 4) == 4 and more_tokens(None, 2) == 2
