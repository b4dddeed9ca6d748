"""What a signed link or an email reply answers, for the question it is about (pure).

A link stands for one answer (``models/signing.Grant.answer``): ``accept`` (every recommendation
and confirmation default), ``choice:ID:KEY`` or ``confirm:ID:yes|no`` (that one part, the rest as
recommended). An email reply's first line, after the quoted text is stripped, is an option
(``B``, or ``ID=KEY`` pairs for a question of several choices), ``yes``/``no`` (every
confirmation), ``stop: reason``, ``continue at AGENT``, or else the whole reply is free text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import ValidationError

from agent_interrupts.models.errors import describe_validation_error
from agent_interrupts.models.interrupts import (
    Door,
    InterruptRequestBase,
    InterruptResolution,
    OptionKey,
    ResolvedBy,
)
from agent_interrupts.models.limits import MAX_TEXT_CHARS, clip
from agent_interrupts.models.resolution_rules import recommended_resolution
from agent_interrupts.models.signing import ACCEPT

MAX_LINKS = 40
"""Answer links one notice carries (the rest: the inbox)."""
MAX_REPLY_CHARS = MAX_TEXT_CHARS
"""The part of a reply read as free text."""
CHOICE, CONFIRM = "choice", "confirm"
_QUOTE_HEADER = re.compile(r"^(On .+ wrote:|-+ ?Original Message ?-+|From: .+)$", re.IGNORECASE)
_PAIR = re.compile(r"([^\s=,;]+)\s*=\s*([A-Za-z]+)")
_STOP = re.compile(r"stop\s*:\s*(.+)", re.IGNORECASE)
_CONTINUE = re.compile(r"continue\s+at\s+(\S+)", re.IGNORECASE)
_YES, _NO = frozenset({"yes", "y"}), frozenset({"no", "n"})


@dataclass(frozen=True)
class AnswerLink:
    """One link's answer and how a notice labels it."""

    label: str
    answer: str


def link_answers(question: InterruptRequestBase) -> list[AnswerLink]:
    """Accept the recommendation, each option of each choice (CUSTOM needs words: the inbox),
    yes and no of each confirmation; at most ``MAX_LINKS``."""
    links = [AnswerLink("Accept the recommendation", ACCEPT)]
    for choice in question.choices:
        for option in choice.options:
            if option.key is not OptionKey.CUSTOM:
                mark = " (recommended)" if option.key == choice.recommended else ""
                label = f"{choice.choice_id}: {option.key} {clip(option.description, 80)}{mark}"
                links.append(AnswerLink(label, f"{CHOICE}:{choice.choice_id}:{option.key}"))
    for item in question.confirmation_items:
        for word in ("yes", "no"):
            label = f"{item.confirmation_id}: {word}"
            links.append(AnswerLink(label, f"{CONFIRM}:{item.confirmation_id}:{word}"))
    return links[:MAX_LINKS]


def link_resolution(answer: str, question: InterruptRequestBase) -> InterruptResolution | None:
    """The resolution a link's ``answer`` gives ``question``; None when the question (asked
    again since) no longer offers it."""
    base = _recommended(question)
    if answer == ACCEPT:
        return base
    kind, _, rest = answer.partition(":")
    part, _, value = rest.rpartition(":")
    if kind == CHOICE:
        offered = {c.choice_id: {o.key.value for o in c.options} for c in question.choices}
        if value not in offered.get(part, set()) or value == OptionKey.CUSTOM:
            return None
        choices = {**base.selected_choices, part: OptionKey(value)}
        return base.model_copy(update={"selected_choices": choices})
    if kind == CONFIRM and value in ("yes", "no"):
        if part not in {c.confirmation_id for c in question.confirmation_items}:
            return None
        confirmations = {**base.confirmations, part: value == "yes"}
        return base.model_copy(update={"confirmations": confirmations})
    return None


def reply_text(body: str) -> str:
    """A reply without what it quotes: lines from ``On ... wrote:`` (or an ``Original
    Message`` line, or a signature's ``-- ``) on are dropped, and every ``>`` line."""
    kept: list[str] = []
    for line in body.replace("\r\n", "\n").split("\n"):
        if _QUOTE_HEADER.match(line.strip()) or line.rstrip() == "--":
            break
        if not line.lstrip().startswith(">"):
            kept.append(line)
    return "\n".join(kept).strip()


def reply_resolution(text: str, question: InterruptRequestBase) -> InterruptResolution | str:
    """The resolution an email reply (without its quotes) gives ``question``, or why it gives
    none, in one line saying what to reply."""
    first = text.strip().split("\n", 1)[0].strip() if text.strip() else ""
    if not first:
        return "your reply is empty: write your answer on its first line (e.g. B, yes, stop: why)"
    base = _recommended(question)
    if stop := _STOP.fullmatch(first):
        return _human(stop_run=clip(stop[1].strip(), MAX_TEXT_CHARS))
    if go_on := _CONTINUE.fullmatch(first):
        return _checked(base, continue_at=go_on[1].upper())
    word = first.lower().rstrip(".!")
    if question.confirmation_items and word in _YES | _NO:
        confirmations = {c: word in _YES for c in base.confirmations}
        return base.model_copy(update={"confirmations": confirmations})
    picks = _option_picks(first, question)
    if isinstance(picks, str):
        return picks
    if picks:
        return base.model_copy(update={"selected_choices": {**base.selected_choices, **picks}})
    return _human(free_text=text.strip()[:MAX_REPLY_CHARS])


def _option_picks(first: str, question: InterruptRequestBase) -> dict[str, OptionKey] | str:
    """``B`` (the question's one choice) or ``ID=KEY`` pairs; empty when the line is neither."""
    offered = {c.choice_id: {o.key.value for o in c.options} for c in question.choices}
    key = first.upper().rstrip(".")
    if len(key) == 1 and key in "ABCD" and offered:
        fits = [c for c, keys in offered.items() if key in keys]
        if len(offered) == 1 and fits:
            return {fits[0]: OptionKey(key)}
        if len(offered) > 1:
            shown = ", ".join(f"{c}=A" for c in list(offered)[:3])
            return f"this question has {len(offered)} choices: reply like {shown}"
        return f"this question offers no option {key}; reply with one of {_keys(offered)}"
    pairs = _PAIR.findall(first)
    if not pairs or _PAIR.sub("", first).strip(" ,;"):
        return {}
    picks: dict[str, OptionKey] = {}
    for choice_id, given in pairs:
        if given.upper() not in offered.get(choice_id, set()) - {OptionKey.CUSTOM.value}:
            return f"{clip(choice_id, 60)}={clip(given, 20)} is not offered; {_keys(offered)}"
        picks[choice_id] = OptionKey(given.upper())
    return picks


def _keys(offered: dict[str, set[str]]) -> str:
    return "; ".join(
        f"{c}: {', '.join(sorted(k - {OptionKey.CUSTOM.value}))}" for c, k in offered.items()
    )


def _recommended(question: InterruptRequestBase) -> InterruptResolution:
    return recommended_resolution(question).model_copy(update={"resolved_by": ResolvedBy.HUMAN})


def _human(**fields: object) -> InterruptResolution:
    return InterruptResolution.model_validate({"resolvedBy": "HUMAN", **_camel(fields)})


def _checked(base: InterruptResolution, **fields: object) -> InterruptResolution | str:
    """``base`` with ``fields`` (checked: an agent's name, say)."""
    try:
        return InterruptResolution.model_validate(
            {**base.model_dump(by_alias=True), **_camel(fields)}
        )
    except ValidationError as err:
        return f"cannot read your reply: {describe_validation_error(err)}"


def _camel(fields: dict[str, object]) -> dict[str, object]:
    return {re.sub(r"_(\w)", lambda m: m[1].upper(), k): v for k, v in fields.items()}


def from_door(resolution: InterruptResolution, name: str, door: Door) -> InterruptResolution:
    """``resolution`` signed with the name a door vouches for, and the door it came through;
    ValidationError for a name that is not one."""
    fields = {**resolution.model_dump(by_alias=True), "answeredBy": name, "door": door}
    return InterruptResolution.model_validate(fields)
