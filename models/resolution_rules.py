"""Pure checks of a resolution against the question it answers (used by signal and update)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, TypeVar

from pydantic import ValidationError

from agent_interrupts.models.agent_types import is_agent
from agent_interrupts.models.errors import describe_problems
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    InterruptType,
    OptionKey,
    ResolvedBy,
    StructuredChoice,
    answerer,
)
from agent_interrupts.models.limits import MAX_TEXT_CHARS, clip, echo
from agent_interrupts.models.team import Team
from agent_interrupts.models.team_spec import Role

Q = TypeVar("Q", bound=InterruptRequestBase)
"""Any team's question."""


def resolution_problems(
    request: InterruptRequestBase,
    resolution: InterruptResolution,
    *,
    free_text_decides: bool = True,
    in_parts: bool = False,
) -> list[str]:
    """Every way ``resolution`` fails to answer ``request``; empty when it is acceptable.

    With ``free_text_decides``, free text may answer the choices and confirmations it leaves
    open (US23): the translating LLM decides them. An answer with nothing in it is
    still refused. With ``in_parts``, a combined question's agents may be answered one at a
    time (``unanswered_parts``): each answered agent's part whole, the others left open."""
    if resolution.stop_run is not None:
        return [] if has_words(resolution.stop_run) else ["stopRun needs the reason to stop"]
    if request.type is InterruptType.PAUSE:
        return []
    if free_text_decides and has_words(resolution.free_text):
        left = set(left_to_text(request, resolution))
        complete = resolution.model_copy(
            update={
                "selected_choices": {
                    **resolution.selected_choices,
                    **{c.choice_id: OptionKey.A for c in request.choices if c.choice_id in left},
                },
                "confirmations": {
                    **resolution.confirmations,
                    **{
                        c.confirmation_id: True
                        for c in request.confirmation_items
                        if c.confirmation_id in left
                    },
                },
            }
        )
        return resolution_problems(request, complete, free_text_decides=False)
    left_open = unanswered_parts(request, resolution) if in_parts else {}
    may_wait = {i for ids in left_open.values() for i in ids}
    choices = {c.choice_id: c for c in request.choices}
    confirmations = {c.confirmation_id for c in request.confirmation_items}
    problems: list[str] = []
    for choice_id, option in resolution.selected_choices.items():
        choice = choices.get(choice_id)
        if choice is None:
            problems.append(f"unknown choiceId {choice_id!r} (offered: {_list(choices)})")
        elif option not in choice.offered():
            problems.append(not_offered(choice, option))
        elif option is OptionKey.CUSTOM and not resolution.custom_inputs.get(choice_id, "").strip():
            problems.append(
                f"choice {choice_id!r} is CUSTOM but customInputs[{choice_id!r}] is empty"
            )
    for choice_id in resolution.custom_inputs:
        if choice_id not in choices:
            problems.append(f"customInputs names unknown choiceId {choice_id!r}")
    for choice_id in choices:
        if choice_id not in resolution.selected_choices and choice_id not in may_wait:
            problems.append(f"choice {choice_id!r} has no answer in selectedChoices")
    for confirmation_id in resolution.confirmations:
        if confirmation_id not in confirmations:
            problems.append(
                f"unknown confirmationId {confirmation_id!r} (asked: {_list(confirmations)})"
            )
    for confirmation_id in sorted(confirmations - resolution.confirmations.keys() - may_wait):
        problems.append(f"confirmation {confirmation_id!r} has no yes/no answer in confirmations")
    return problems


def part_ids(request: InterruptRequestBase) -> dict[str, list[str]]:
    """A combined question's choice and confirmation ids by the agent they belong to
    (``ticket-agent-3/approach`` is agent ``ticket-agent-3``'s); empty for any other question."""
    keys = [q.agent_key for q in getattr(request, "agent_questions", ())]
    ids = [
        *(c.choice_id for c in request.choices),
        *(c.confirmation_id for c in request.confirmation_items),
    ]
    return {key: [i for i in ids if i.startswith(f"{key}/")] for key in keys}


def unanswered_parts(
    request: InterruptRequestBase, resolution: InterruptResolution
) -> dict[str, list[str]]:
    """The agents of a combined question that ``resolution`` leaves for later, with their ids:
    those of which it answers nothing, as long as it answers at least one agent's part (an
    agent that asked nothing to choose or confirm is answered with the first answer).
    Free text, a stop or an empty answer leave nothing for later."""
    if resolution.stop_run is not None or has_words(resolution.free_text):
        return {}
    given = resolution.selected_choices.keys() | resolution.confirmations.keys()
    return untouched_parts(request, given)


def untouched_parts(
    request: InterruptRequestBase, answered: Collection[str]
) -> dict[str, list[str]]:
    """The agents of a combined question none of whose ids are among the ``answered`` ones, with
    their ids; empty when no agent's part is answered (the whole question is still open)."""
    parts = part_ids(request)
    untouched = {key: ids for key, ids in parts.items() if not set(answered).intersection(ids)}
    asked_something = [key for key, ids in parts.items() if ids]
    if all(key in untouched for key in asked_something):
        return {}  # nothing answered: the whole question is still open
    return {key: ids for key, ids in untouched.items() if ids}


def left_to_text(request: InterruptRequestBase, resolution: InterruptResolution) -> list[str]:
    """The choice and confirmation ids an answer leaves to its free text (none without text)."""
    if not has_words(resolution.free_text):
        return []
    return [
        *(c.choice_id for c in request.choices if c.choice_id not in resolution.selected_choices),
        *(
            c.confirmation_id
            for c in request.confirmation_items
            if c.confirmation_id not in resolution.confirmations
        ),
    ]


def has_words(text: str | None) -> bool:
    """Whether free text says anything (a letter or digit): blanks and symbols answer nothing."""
    return any(c.isalnum() for c in text or "")


def recommended_resolution(request: InterruptRequestBase) -> InterruptResolution:
    """Every recommended option (else A) and every confirmation default."""
    return InterruptResolution(
        selected_choices={c.choice_id: default_option(c) for c in request.choices},
        confirmations={c.confirmation_id: c.default_value for c in request.confirmation_items},
        resolved_by=ResolvedBy.TIMEOUT_ESCALATION,
    )


def recommended_answer(request: InterruptRequestBase) -> InterruptResolution:
    """The recommendation as a person gives it (HUMAN): what a door sends for "accept the
    recommendation"; the workflow's timer alone answers ``recommended_resolution``."""
    return recommended_resolution(request).model_copy(update={"resolved_by": ResolvedBy.HUMAN})


def claims_the_workflows_own(resolution: InterruptResolution) -> str | None:
    """Why an answer from outside the workflow (any door: update or signal) claims to be the
    workflow's own (its timer's, reviewer's or controller's), or None: a person's answer says
    ``resolvedBy`` HUMAN (the default) and carries no reviewing model's ``call``."""
    if resolution.resolved_by is not ResolvedBy.HUMAN:
        return (
            f"resolvedBy {resolution.resolved_by.value} is the workflow's own (its timer, reviewer "
            "or controller); a person's answer says HUMAN or leaves resolvedBy out"
        )
    if resolution.call is not None:
        return "call is the reviewing model's own record; a person's answer leaves it out"
    return None


def answer_problems(
    question: InterruptInput,
    team: Team,
    resolution: InterruptResolution,
    *,
    free_text_decides: bool = True,
    claims: bool = True,
) -> list[str]:
    """Why ``resolution`` cannot answer ``question`` (asked by a run of ``team``): the one rule
    of every door. InterruptWorkflow's update validator and signal apply it while the question
    waits; ``agents fork`` / ``client.fork`` apply it before a fork starts, so a fork's answer
    is refused in the words the fork's own question would refuse it with. In order: an answer
    claiming to be the workflow's own (``claims``: the signal checks that itself, behind its
    patch), a person the answer rules leave out, what the question offers, where the run may
    continue (``continueAt``)."""
    if claims and (claimed := claims_the_workflows_own(resolution)):
        return [claimed]
    answerers = question.answerers
    if answerers is not None and (refusal := answerers.refusal(resolution.answered_by)):
        return [refusal]
    problems = resolution_problems(
        question.request,
        resolution,
        free_text_decides=free_text_decides,
        in_parts=question.answers_in_parts,
    )
    if redirect := redirect_problem(question.origin, resolution.continue_at, team):
        problems.append(f"continueAt {redirect}")
    return problems


def suggested_answer(request: InterruptRequestBase) -> dict[str, Any]:
    """The resolution JSON that takes the timeout rule's answer: recommendations and defaults."""
    recommended = recommended_resolution(request)
    return {
        "selectedChoices": {k: v.value for k, v in recommended.selected_choices.items()},
        "customInputs": {},
        "confirmations": recommended.confirmations,
        "freeText": "",
    }


def not_offered(choice: StructuredChoice, given: object) -> str:
    """A choice's refusal of an option it does not offer, in the question's own words: one line
    naming only the options it offers, e.g. ``choice 'approach' has no option C; "Which cache?"
    offers A (Use Redis), B (Use Memcached) or CUSTOM (your own words in customInputs)``."""
    shown = given.value if isinstance(given, OptionKey) else echo(given, 40)
    offered = [_option_words(o.key, o.description) for o in choice.options]
    listed = ", ".join(offered[:-1]) + f" or {offered[-1]}" if len(offered) > 1 else offered[0]
    return (
        f"choice {clip(choice.choice_id, 60)!r} has no option {shown}; "
        f'"{_one_line(choice.question, 100)}" offers {listed}'
    )


def _option_words(key: OptionKey, description: str) -> str:
    if key is OptionKey.CUSTOM:
        return "CUSTOM (your own words in customInputs)"
    return f"{key.value} ({_one_line(description, 60)})"


def _one_line(text: str, limit: int) -> str:
    return clip(" ".join(text.split()), limit)


def refused_in_words(request: InterruptRequestBase, raw: object, err: ValidationError) -> str:
    """Why ``raw`` is not a valid InterruptResolution, in one line, an option that is no option
    key at all (``"X"``, a number) named against the question's own options (``not_offered``)
    instead of the schema's list of every key."""
    choices = {c.choice_id: c for c in request.choices}
    picked = raw.get("selectedChoices") if isinstance(raw, dict) else None
    words: list[str] = []
    rest = []
    for problem in err.errors(include_url=False, include_input=False):
        loc = problem["loc"]
        if (
            isinstance(picked, dict)
            and len(loc) == 2
            and loc[0] in ("selectedChoices", "selected_choices")
            and loc[1] in choices
        ):
            words.append(not_offered(choices[str(loc[1])], picked.get(loc[1])))
        else:
            rest.append(problem)
    if not words:
        return f"not a valid InterruptResolution: {describe_problems(rest)}"
    return "; ".join([*words, *([describe_problems(rest)] if rest else [])])


def _list(ids: Iterable[str]) -> str:
    names = sorted(ids)
    return ", ".join(names) if names else "none"


def allowed_route(origin: str | None, reroute_to: str | None, team: Team) -> str | None:
    """The one route a translation may set: the event's target if there is one, else the
    origin's own route (the routing contract's mapping table); None when no route leads there."""
    target = reroute_to or origin
    return team.route_for(target) if target is not None else None


def redirect_targets(origin: str, team: Team) -> list[str]:
    """The agents a person may send the run on to from ``origin``'s question: the agents its own
    routing may name (the graph's edges), each with a route of the team's handler routing; not
    an agent whose role is the context manager, a detour that returns to the agent that asked."""
    node = team.nodes.get(origin)
    targets = node.output_model.route_aliases().values() if node is not None else ()
    detours = team.with_role(Role.CONTEXT_MANAGER)
    return [
        str(t)
        for t in targets
        if is_agent(t) and t != origin and t not in detours and team.route_for(t)
    ]


def redirect_problem(origin: str, continue_at: str | None, team: Team) -> str | None:
    """Why ``continue_at`` is not a way on from ``origin``'s question (None when it is)."""
    if continue_at is None or continue_at == origin:
        return None
    targets = redirect_targets(origin, team)
    if continue_at in targets:
        return None
    offered = ", ".join(targets) or "none"
    return f"{continue_at} is not a route of {origin} (offered: {offered})"


def default_option(choice: StructuredChoice) -> OptionKey:
    """The one default rule (timeouts, the CLI's Enter, the UI hint): the recommendation when it
    names an offered option other than CUSTOM, else the first offered option."""
    offered = choice.offered() - {OptionKey.CUSTOM}
    if choice.recommended in offered:
        return choice.recommended
    return min(offered, default=OptionKey.A)


def drop_invalid_recommendations(request: Q) -> tuple[Q, list[str]]:
    """The question with every recommendation that names no offered option removed, and a
    warning per removal (an invalid recommendation is never used)."""
    warnings: list[str] = []
    choices = []
    for choice in request.choices:
        offered = choice.offered() - {OptionKey.CUSTOM}
        if choice.recommended is not None and choice.recommended not in offered:
            warnings.append(
                f"choice {clip(choice.choice_id, 60)!r} recommended {choice.recommended.value}, "
                f"which is not an offered option; the recommendation was dropped"
            )
            choice = choice.model_copy(update={"recommended": None})
        choices.append(choice)
    if not warnings:
        return request, []
    return request.model_copy(update={"choices": choices}), warnings


def describe_resolution(request: InterruptRequestBase, resolution: InterruptResolution) -> str:
    """A compact account of the question and its answer, for the agent that resumes."""
    lines = [f"Question: {request.reason}", *answer_lines(request, resolution)]
    return "\n".join([*lines, *closing_lines(resolution)])


def answer_lines(
    request: InterruptRequestBase,
    resolution: InterruptResolution,
    only: Collection[str] | None = None,
) -> list[str]:
    """One line per answered choice (its question and the chosen option's text, or the CUSTOM
    write-in as typed), per confirmation (its statement, yes or no) and per id left to the
    answer's words; with ``only``, just those choice and confirmation ids."""
    lines: list[str] = []
    questions = {c.choice_id: c for c in request.choices}
    for choice_id, option in resolution.selected_choices.items():
        if only is not None and choice_id not in only:
            continue
        choice = questions.get(choice_id)
        text = {o.key: o.description for o in choice.options}.get(option, "") if choice else ""
        custom = resolution.custom_inputs.get(choice_id)
        answer = f'CUSTOM: "{custom}"' if custom else f"{option.value} ({text})"
        lines.append(f"- {choice.question if choice else choice_id} -> {answer}")
    statements = {c.confirmation_id: c.statement for c in request.confirmation_items}
    for confirmation_id, yes in resolution.confirmations.items():
        if only is not None and confirmation_id not in only:
            continue
        statement = statements.get(confirmation_id, confirmation_id)
        lines.append(f"- {statement} -> {'yes' if yes else 'no'}")
    questions_and_statements = {
        **{c.choice_id: c.question for c in request.choices},
        **statements,
    }
    for left_id in resolution.decided_by_text:
        if only is not None and left_id not in only:
            continue
        asked = questions_and_statements.get(left_id, left_id)
        lines.append(f"- {asked} -> left to the answer's own words (Note)")
    return lines


def closing_lines(resolution: InterruptResolution) -> list[str]:
    """The answer's own words (Note) and who answered."""
    note = [f"Note: {resolution.free_text}"] if resolution.free_text else []
    return [*note, f"Resolved by: {resolution.resolved_by.value}"]


def untranslated_routing(
    route: str,
    carried: dict[str, Any],
    request: InterruptRequestBase,
    answer: InterruptResolution,
    team: Team,
    asked_by: str | None = None,
) -> dict[str, Any] | None:
    """The routing of an accepted answer the translator could not write: ``route`` with the
    origin's last request (``carried``) and the person's answer added to its guidance, so the
    agent resumes with both and the run goes on; ``asked_by``: the agent that asked, when the
    answer sends the run on to another one. None when ``carried`` does not fit ``route``."""
    said = describe_resolution(request, answer)
    heading = (
        f"{answerer(answer)} answered {asked_by}'s question and sent the run on to you"
        if asked_by
        else "A person answered your question"
    )
    guidance = f"{carried.get('guidance', '')}\n\n{heading}:\n{said}"
    routing = {route: {**carried, "guidance": clip(guidance.strip(), MAX_TEXT_CHARS)}}
    try:
        return team.interrupt_routing.model_validate(routing).to_wire()
    except ValidationError:
        return None
