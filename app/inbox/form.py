"""The inbox's answer form: its field names, their starting values and the resolution they
make (through the same parser as ``agents resolve``'s flags)."""

from __future__ import annotations

from collections.abc import Mapping

from agent_interrupts.app.answering import resolution_from_flags, with_continue_at
from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    InterruptType,
    OptionKey,
)
from agent_interrupts.models.resolution_rules import (
    has_words,
    part_ids,
    recommended_resolution,
    untouched_parts,
)
from agent_interrupts.models.team import Team

CHOICE, CUSTOM, CONFIRM, TEXT = "choice.", "custom.", "confirm.", "text"
STOP, CONTINUE_AT = "stop", "continue_at"
ONLY, ACCEPT = "only", "accept"
"""The buttons of a combined question: answer one agent's part alone (its key), and take every
recommendation and default (``all``)."""


def starting_values(
    request: InterruptRequestBase, submitted: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Field name -> value: what was submitted, else the recommendation (or the first offered
    option) and each confirmation's default, as ``agents resolve`` and USE_RECOMMENDED take."""
    defaults = recommended_resolution(request)
    values = {f"{CHOICE}{k}": v.value for k, v in defaults.selected_choices.items()}
    values |= {f"{CONFIRM}{k}": "yes" if v else "no" for k, v in defaults.confirmations.items()}
    return values | dict(submitted or {})


def submitted_fields(request: InterruptRequestBase, fields: Mapping[str, str]) -> dict[str, str]:
    """What a submitted form answers: with **Accept the recommendations**, every recommendation
    and default (the form's other values set aside); with **Answer KEY alone**, that agent's
    choices, texts and confirmations only (the other agents' parts are left for later, and free
    text, a stop or another agent to continue at belong to a whole answer); else the form."""
    kept = {k: v for k, v in fields.items() if k not in (ONLY, ACCEPT)}
    if fields.get(ACCEPT) == "all":
        return starting_values(request)
    key = fields.get(ONLY, "")
    if not key or key not in part_ids(request):
        return kept
    prefixes = tuple(f"{kind}{key}/" for kind in (CHOICE, CUSTOM, CONFIRM))
    return {k: v for k, v in kept.items() if k.startswith(prefixes)}


def resolution_from_form(fields: Mapping[str, str], origin: str, team: Team) -> InterruptResolution:
    """The answer a submitted form gives; a CUSTOM text counts only where CUSTOM was chosen; a
    reason to stop is the whole answer; a chosen agent to continue at (one of ``origin``'s
    routes in the run's ``team``) goes with the answer.

    Raises ValueError (or pydantic's ValidationError) for a form no page of ours would send.
    """
    if has_words(fields.get(STOP, "")):
        return InterruptResolution(stop_run=fields[STOP].strip())
    resolution = _answers(fields)
    if target := fields.get(CONTINUE_AT, ""):
        resolution = with_continue_at(resolution, origin, target, "continue at", team=team)
    return resolution


def _answers(fields: Mapping[str, str]) -> InterruptResolution:
    choices = {k.removeprefix(CHOICE): v for k, v in fields.items() if k.startswith(CHOICE)}
    customs = [
        f"{choice_id}={typed(fields.get(CUSTOM + choice_id, ''))}"
        for choice_id, key in choices.items()
        if key == OptionKey.CUSTOM.value and fields.get(CUSTOM + choice_id, "").strip()
    ]
    text = typed(fields.get(TEXT, ""))
    return resolution_from_flags(
        [f"{k}={v}" for k, v in choices.items()],
        customs,
        [f"{k.removeprefix(CONFIRM)}={v}" for k, v in fields.items() if k.startswith(CONFIRM)],
        text if text.strip() else None,
    )


def typed(value: str) -> str:
    """What a person typed in a box, as they typed it: only the line breaks a browser sends as
    CR LF are read back as the LF they typed."""
    return value.replace("\r\n", "\n")


def form_problems(
    request: InterruptRequestBase, fields: Mapping[str, str], *, in_parts: bool = False
) -> list[str]:
    """What keeps a submitted form from answering ``request``, in the page's words (its
    choices, boxes and toggles, never the update's JSON names): the inbox's twin of
    ``agents resolve``'s flag check. ``in_parts``: a combined question's agents whose part the
    form leaves out wait for a later answer."""
    if has_words(fields.get(STOP, "")):
        return []  # stopping is the whole answer
    problems = [
        f"{choice.choice_id}: CUSTOM needs your own approach in its text box"
        for choice in request.choices
        if fields.get(CHOICE + choice.choice_id) == OptionKey.CUSTOM.value
        and not fields.get(CUSTOM + choice.choice_id, "").strip()
    ]
    text = fields.get(TEXT, "").strip()
    if request.type is InterruptType.PAUSE or has_words(text):
        return problems  # the text decides what the form leaves open
    given = [k.removeprefix(CHOICE) for k, v in fields.items() if k.startswith(CHOICE) and v]
    given += [k.removeprefix(CONFIRM) for k, v in fields.items() if k.startswith(CONFIRM) and v]
    later = untouched_parts(request, given) if in_parts else {}
    may_wait = {i for ids in later.values() for i in ids}
    open_items = [
        c.choice_id
        for c in request.choices
        if not fields.get(CHOICE + c.choice_id) and c.choice_id not in may_wait
    ]
    open_items += [
        i.confirmation_id
        for i in request.confirmation_items
        if not fields.get(CONFIRM + i.confirmation_id) and i.confirmation_id not in may_wait
    ]
    if open_items:
        problems.append(
            f"no answer yet for {', '.join(open_items)}: pick one each, or write what the "
            'agent should do under "Anything else"'
        )
    return problems
