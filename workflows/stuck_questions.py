"""The question a person gets when an agent's model keeps answering invalid replies, or its
prompt does not fit the model even with all optional context dropped.

This product exists to ask a person when an agent is stuck: after the validation attempts (or
the context trimming), the activity reports the last problem instead of failing (unless the
run's start input says ``failOnInvalidReplies``), and the workflow asks a HUMAN_REVIEW question
at that node, typed as the agent's own interrupt, with what the model answered and why it was
refused, and the routes the agent may take as choices (and, when its reply was cut off at the
output token limit, whether its re-run gets twice the tokens). The answer runs the agent again
through the filtered resume schema, with the person's decision in its guidance and the refusal in
its prompt (the question's reason, which the resumed prompt quotes).

Runs started since ``ways_out`` existed offer the ways that end the loop as real options beside
running it again: stop the run, continue at the agent's next agent (one of its routes), and, in
CUSTOM, answer in the agent's place (the words are taken as its answer and the run goes on at
that next agent with them as its guidance); a second question for the same agent recommends
continuing at the next agent (stopping when it has none), never running it again, and a third
one stopping (``chosen_way``, ``workflows/ways_out.py``). Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.interrupts import (
    CUSTOM_OPTION_TEXT,
    ChoiceOption,
    ConfirmationItem,
    InterruptRequestBase,
    InterruptResolution,
    OptionKey,
    StructuredChoice,
)
from agent_interrupts.models.limits import MAX_OUTPUT_TOKENS_FACTOR, MAX_TEXT_CHARS, clip
from agent_interrupts.models.resolution_rules import redirect_targets
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team import Team
from agent_interrupts.workflows.question_types import empty_fields

ROUTE_CHOICE_ID = "next-step"
MORE_TOKENS_ID = "more-output-tokens"
"""The confirmation a stuck agent's question carries when its reply was cut off at the output
token limit: yes doubles the tokens of its re-run (up to ``MAX_OUTPUT_TOKENS_FACTOR``)."""
CUT_OFF = "output token limit"
"""What the activity's problem says when the model's reply was cut off (``activities/llm.py``)."""
AGAIN = "Run the agent again with the guidance you write in CUSTOM (or none)"
_KEYS = (OptionKey.A, OptionKey.B, OptionKey.C)
_ALL_KEYS = (OptionKey.A, OptionKey.B, OptionKey.C, OptionKey.D)
CUSTOM = ChoiceOption(key=OptionKey.CUSTOM, description=CUSTOM_OPTION_TEXT)
STOP = "Stop the run here (it ends, naming who stopped it)"
"""The way out that ends the run (``StoppedByPerson``)."""
RUN_AS_IS = "Run it again as it is (your free text, if any, is its guidance)"


def continue_text(target: str) -> str:
    """The way out that skips the stuck agent: ``target`` runs next."""
    return f"Continue at {target}: skip this agent, {target} runs next"


def in_place_text(agent: str, target: str) -> str:
    """CUSTOM of a question with ways out: the words are the agent's answer."""
    return (
        f"Answer in {agent}'s place: your words are taken as its answer, word for word, and "
        f"{target} runs next with them as its guidance"
    )


def stuck_question(
    agent: str,
    output_model: type[Routing],
    problem: str,
    earlier: int = 0,
    *,
    team: Team,
    ways_out: Sequence[str] | None = None,
) -> InterruptRequestBase:
    """``agent``'s typed HUMAN_REVIEW question about the step it could not finish; ``earlier``:
    how often it was stuck before in this run. A second question offers the routes in another
    order (another recommended way out); from the third on, running it again as before is no
    longer offered, so the same question is never asked more than twice. With ``ways_out``
    (runs started since: the agents the run may continue at, the next one first), stopping and
    continuing at the next agent are options, CUSTOM answers in the agent's place, the second
    question recommends going on and the third stopping."""
    if ways_out is not None:
        return _with_ways_out(agent, output_model, problem, earlier, team, list(ways_out))
    cls = team.questions[agent]
    routes = _routes_in_turn(output_model, earlier)[: len(_KEYS) - 1]
    descriptions = [f"Run it again, told to take {alias} (-> {target})" for alias, target in routes]
    again = [AGAIN] if earlier < 2 else []
    options = [
        ChoiceOption(key=key, description=text)
        for key, text in zip(_KEYS, [*descriptions, *again], strict=False)
    ]
    before = (
        f" It is stuck for the {_ordinal(earlier + 1)} time in this run: the earlier answers did "
        "not help, so another way out is offered first."
        if earlier
        else ""
    )
    return cls.model_validate(
        {
            **empty_fields(cls),
            "type": "HUMAN_REVIEW",
            "reason": f"{agent} could not finish its step ({clip(problem, 300)}), so the "
            f"run asks you instead of failing. Your answer runs {agent} again with your "
            "decision and this reason in its prompt, unless you stop the run or send it on."
            + before,
            "choices": [
                StructuredChoice(
                    choice_id=ROUTE_CHOICE_ID,
                    question=f"How should {agent} go on?",
                    context="The routes this agent may take; your choice and your words are "
                    "given to it as guidance when it runs again.",
                    options=[
                        *options,
                        ChoiceOption(key=OptionKey.CUSTOM, description=CUSTOM_OPTION_TEXT),
                    ],
                    recommended=OptionKey.A,
                ).to_wire()
            ],
            **_closing_fields(agent, problem, team),
        }
    )


def _with_ways_out(
    agent: str,
    output_model: type[Routing],
    problem: str,
    earlier: int,
    team: Team,
    targets: list[str],
) -> InterruptRequestBase:
    """The question of ``stuck_question`` with its ways out as options (A-D and CUSTOM)."""
    cls = team.questions[agent]
    routes = _routes_in_turn(output_model, earlier)
    retry = [f"Run it again, told to take {alias} (-> {target})" for alias, target in routes]
    ways = [*([continue_text(targets[0])] if targets else []), STOP]
    if earlier == 0:  # running it again is recommended once
        texts = [*retry[:1], *ways, *retry[1:2], RUN_AS_IS]
    elif earlier == 1:  # then going on
        texts = [*ways, *retry[:1], RUN_AS_IS]
    else:  # stuck again after going on: the run is looping, stopping is recommended
        texts = [*ways[::-1], *retry[:1], RUN_AS_IS]
    texts = texts[: len(_ALL_KEYS)]
    options = [
        ChoiceOption(key=key, description=text) for key, text in zip(_ALL_KEYS, texts, strict=False)
    ]
    custom = in_place_text(agent, targets[0]) if targets else CUSTOM_OPTION_TEXT
    before = (
        f" It is stuck for the {_ordinal(earlier + 1)} time in this run: running it again did "
        "not help, so a way out is recommended."
        if earlier
        else ""
    )
    return cls.model_validate(
        {
            **empty_fields(cls),
            "type": "HUMAN_REVIEW",
            "reason": f"{agent} could not finish its step ({clip(problem, 300)}), so the "
            f"run asks you instead of failing. Run {agent} again (your decision and this reason "
            "in its prompt), stop the run, continue at another agent, or answer in its place."
            + before,
            "choices": [
                StructuredChoice(
                    choice_id=ROUTE_CHOICE_ID,
                    question=f"How should the run go on from {agent}?",
                    context="Running it again gives it your choice and words as guidance; "
                    "stopping ends the run; continuing skips it; CUSTOM is its answer, in your "
                    "words.",
                    options=[*options, ChoiceOption(key=OptionKey.CUSTOM, description=custom)],
                    recommended=OptionKey.A,
                ).to_wire()
            ],
            **_closing_fields(agent, problem, team),
        }
    )


def _routes_in_turn(output_model: type[Routing], earlier: int) -> list[tuple[str, str]]:
    """The agent's routes but its question, as (alias, target), turned by ``earlier`` questions
    so each stuck question leads with another one."""
    every = [
        (alias, target)
        for alias, target in output_model.route_aliases().items()
        if target is not Terminal.INTERRUPT
    ]
    turn = earlier % len(every) if every else 0
    return [*every[turn:], *every[:turn]]


def _closing_fields(agent: str, problem: str, team: Team) -> dict[str, object]:
    """A stuck question's confirmation (twice the tokens, when cut off) and its context."""
    return {
        "confirmationItems": [_more_tokens()] if CUT_OFF in problem else [],
        "contextForDecision": clip(
            f"{_ways_out(agent, team)}\n\nWhat the model answered and why it was "
            f"refused: {problem}",
            MAX_TEXT_CHARS,
        ),
    }


def _more_tokens() -> dict[str, object]:
    return ConfirmationItem(
        confirmation_id=MORE_TOKENS_ID,
        statement="Give the model twice the output tokens when it runs again",
        context="Its reply was cut off at the output token limit before its JSON was complete.",
        default_value=True,
        impact_if_no="It runs again with the same limit (LLM_MAX_OUTPUT_TOKENS).",
    ).to_wire()


def more_tokens(resolution: InterruptResolution | None, factor: int) -> int:
    """The output tokens factor of a stuck agent's re-run: doubled when the answer said yes to
    ``MORE_TOKENS_ID`` (at most ``MAX_OUTPUT_TOKENS_FACTOR``), else ``factor`` unchanged."""
    if resolution is None or not resolution.confirmations.get(MORE_TOKENS_ID):
        return factor
    return min(factor * 2, MAX_OUTPUT_TOKENS_FACTOR)


def _ways_out(agent: str, team: Team) -> str:
    """What else the person may do than run the agent again: stop, or send the run on."""
    targets = ", ".join(str(t) for t in redirect_targets(agent, team))
    on = (
        f" or, with your answer, send the run on to {targets} instead (continueAt; "
        "agents resolve --continue-at)"
        if targets
        else ""
    )
    return f"Other ways out: stop the run (stopRun with your reason; agents resolve --stop){on}."


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")
