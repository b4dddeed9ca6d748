"""A stuck agent's question (pure): what it offers the first time, and that a later one offers
another way out, never the same question more than twice; with ways out (runs started since),
stopping, continuing at the next agent and answering in its place are options, and what an
answer chose (``workflows/ways_out.py``)."""

from __future__ import annotations

from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    OptionKey,
)
from agent_interrupts.models.limits import MAX_OUTPUT_TOKENS_FACTOR
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.stuck_questions import (
    AGAIN,
    MORE_TOKENS_ID,
    ROUTE_CHOICE_ID,
    STOP,
    continue_text,
    in_place_text,
    more_tokens,
    stuck_question,
)
from agent_interrupts.workflows.ways_out import ContinueAt, Stop, chosen_way, request_for

AGENT = AgentType.REVIEW_AGENT
MODEL = NODES[AGENT].output_model


def _offered(earlier: int) -> list[str]:
    question = stuck_question(
        AGENT, MODEL, "the model call failed: HTTP 503", earlier, team=SOFTWARE_TEAM
    )
    (choice,) = question.choices
    assert choice.choice_id == ROUTE_CHOICE_ID and choice.recommended is OptionKey.A
    return [o.description for o in choice.options]


def test_the_first_question_offers_each_route_and_running_it_again() -> None:
    question = stuck_question(AGENT, MODEL, "the model call failed: HTTP 503", team=SOFTWARE_TEAM)
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
    reason = stuck_question(AGENT, MODEL, "x", 1, team=SOFTWARE_TEAM).reason
    assert "stuck for the second time in this run" in reason


def test_a_reply_cut_off_at_the_token_limit_offers_twice_the_tokens() -> None:
    cut = "the reply was cut off at the output token limit (300 tokens, LLM_MAX_OUTPUT_TOKENS)"
    [item] = stuck_question(AGENT, MODEL, cut, team=SOFTWARE_TEAM).confirmation_items
    assert item.confirmation_id == MORE_TOKENS_ID
    assert stuck_question(AGENT, MODEL, "HTTP 503", team=SOFTWARE_TEAM).confirmation_items == []


def test_each_yes_doubles_the_tokens_up_to_the_limit_and_no_keeps_them() -> None:
    yes = InterruptResolution(confirmations={MORE_TOKENS_ID: True})
    no = InterruptResolution(confirmations={MORE_TOKENS_ID: False})
    assert [more_tokens(yes, f) for f in (1, 2, 4, 8)] == [2, 4, 8, MAX_OUTPUT_TOKENS_FACTOR]
    assert more_tokens(no, 4) == 4 and more_tokens(None, 2) == 2


NEXT = [AgentType.MERGER_AGENT.value, AgentType.TICKET_ORCHESTRATOR.value]


def _ways(earlier: int, targets: list[str] = NEXT) -> tuple[list[str], OptionKey | None, str]:
    question = stuck_question(
        AGENT, MODEL, "HTTP 503", earlier, ways_out=targets, team=SOFTWARE_TEAM
    )
    (choice,) = question.choices
    texts = [o.description for o in choice.options]
    recommended = {o.key: o.description for o in choice.options}[choice.recommended]
    return texts, choice.recommended, recommended


def test_with_ways_out_stopping_continuing_and_answering_in_place_are_options() -> None:
    texts, key, recommended = _ways(0)
    assert key is OptionKey.A and recommended.startswith("Run it again, told to take")
    assert STOP in texts and continue_text("MERGER_AGENT") in texts
    assert texts[-1] == in_place_text(AGENT, "MERGER_AGENT"), "CUSTOM answers in its place"
    assert len(texts) == 5, "four options and CUSTOM"


def test_later_questions_with_ways_out_recommend_going_on_then_stopping() -> None:
    assert _ways(1)[2] == continue_text("MERGER_AGENT"), "the second recommends going on"
    for earlier in (2, 5):
        texts, _, recommended = _ways(earlier)
        assert recommended == STOP, "stuck again after going on: looping, stop is recommended"
        assert continue_text("MERGER_AGENT") in texts
    for earlier in (1, 2, 5):
        _, _, alone = _ways(earlier, [])
        assert alone == STOP, "no agent to continue at: stop is recommended"
    texts, _, _ = _ways(0, [])
    assert texts[-1] == "Or provide your own approach", "no agent to answer for: CUSTOM as before"


def _answer(question: InterruptRequestBase, text: str, **fields: object) -> InterruptResolution:
    (choice,) = question.choices
    key = next(o.key for o in choice.options if o.description == text)
    return InterruptResolution.model_validate(
        {"selectedChoices": {ROUTE_CHOICE_ID: key.value}, **fields}
    )


def test_the_way_an_answer_takes() -> None:
    question = stuck_question(AGENT, MODEL, "HTTP 503", 0, ways_out=NEXT, team=SOFTWARE_TEAM)
    stop = _answer(question, STOP, freeText="broken model", answeredBy="ada")
    assert chosen_way(AGENT, question, stop, NEXT) == Stop("ada (HUMAN)", "broken model")
    on = chosen_way(AGENT, question, _answer(question, continue_text("MERGER_AGENT")), NEXT)
    assert isinstance(on, ContinueAt) and (on.target, on.in_place) == ("MERGER_AGENT", False)
    words = ' "merge it" — ü\n  as is '
    custom = InterruptResolution(
        selected_choices={ROUTE_CHOICE_ID: OptionKey.CUSTOM},
        custom_inputs={ROUTE_CHOICE_ID: words},
    )
    assert chosen_way(AGENT, question, custom, NEXT) == ContinueAt("MERGER_AGENT", words, True)
    again = _answer(question, question.choices[0].options[0].description)
    assert chosen_way(AGENT, question, again, NEXT) is None, "runs it again"
    assert chosen_way(AGENT, question, InterruptResolution(free_text="try"), NEXT) is None
    assert chosen_way(AGENT, question, None, NEXT) is None
    old = stuck_question(AGENT, MODEL, "HTTP 503", 0, team=SOFTWARE_TEAM)
    assert chosen_way(AGENT, old, answer_all_a(old), NEXT) is None, "old questions: no way out"


def answer_all_a(question: InterruptRequestBase) -> InterruptResolution:
    return InterruptResolution(
        selected_choices={c.choice_id: OptionKey.A for c in question.choices}
    )


def test_the_request_of_the_agent_the_run_continues_at() -> None:
    model = NODES[AgentType.DISCOVERY_ORCHESTRATOR].request_model
    assert request_for(model, None, "go") == {"goal": "", "guidance": "go", "scope": ""}
    kept = request_for(model, {"guidance": "old", "scope": "the gateway"}, "new")
    assert kept is not None and (kept["scope"], kept["guidance"]) == ("the gateway", "new")
    dispatch = NODES[AgentType.DISCOVERY_DISPATCH].request_model
    assert request_for(dispatch, None, "go") is not None
