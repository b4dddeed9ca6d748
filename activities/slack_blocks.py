"""The Slack door's Block Kit, pure: the interactive question, the message once answered, the
answer modal, and the answers its buttons and the modal's fields stand for.

A button's ``action_id`` says what a click does (``answer:N`` answers at once, ``form:N`` opens
the modal, ``link:N`` only opens a page); its ``value`` is compact JSON: ``q`` the interrupt id,
``c`` choice id -> option, ``y`` confirmation id -> yes/no, ``r`` the recommendation. A question
of one choice (or one confirmation) is answered by one click; in a question of several, a click
opens the modal with that pick made. Everything a model wrote is escaped for mrkdwn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    OptionKey,
    answerer,
)
from agent_interrupts.models.resolution_rules import answer_lines, recommended_resolution

ANSWER, FORM, LINK = "answer", "form", "link"
"""What a click does: answer now, open the modal, open a page (nothing to do)."""
VIEW = "agents-answer"
"""The modal's ``callback_id``."""
TEXT_CHARS = 2_900
"""Slack refuses a section text over 3,000 characters."""
BUTTON_CHARS = 75
"""Slack's limit of a button's (and a select option's) text."""
VALUE_CHARS = 2_000
"""Slack's limit of a button's value."""
INPUT_CHARS = 3_000
"""Slack's limit of a plain-text input's ``max_length``."""
FREE, STOP, GOTO = "free", "stop", "goto"
"""The modal's block ids besides ``c<N>`` (a choice's pick), ``w<N>`` (its own words) and ``y<N>``
(a confirmation)."""
PICK, WORDS = "pick", "words"


def fit(text: str, limit: int) -> str:
    """``text`` cut to Slack's ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mrkdwn(text: str) -> str:
    """``text`` with Slack's three control characters escaped (a model's ``<!channel>`` stays
    text)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": fit(text, TEXT_CHARS)}}


def plain(text: str, limit: int = BUTTON_CHARS) -> dict[str, Any]:
    return {"type": "plain_text", "text": fit(text, limit) or " ", "emoji": False}


def button(
    label: str, action: str, value: dict[str, Any] | None = None, *, style: str | None = None
) -> dict[str, Any]:
    made: dict[str, Any] = {"type": "button", "text": plain(label), "action_id": action}
    if value is not None:
        made["value"] = fit(json.dumps(value, separators=(",", ":")), VALUE_CHARS)
    if style is not None:
        made["style"] = style
    return made


def link_button(label: str, url: str, action: str) -> dict[str, Any]:
    return {"type": "button", "text": plain(label), "action_id": action, "url": url}


def single_item(question: InterruptRequestBase) -> bool:
    """Whether one click answers the whole question (one choice, or one confirmation)."""
    return len(question.choices) + len(question.confirmation_items) == 1


def question_blocks(
    question: InterruptRequestBase,
    interrupt_id: str,
    title: str,
    links: Sequence[tuple[str, str]],
    footer: str,
) -> list[dict[str, Any]]:
    """The interactive question: each choice's options and each confirmation as buttons (the
    recommendation marked), the recommendation, the modal, and ``links`` (label, URL)."""
    one = single_item(question)
    counter = iter(range(1_000))

    def action(kind: str) -> str:
        return f"{kind}:{next(counter)}"

    blocks: list[dict[str, Any]] = [{"type": "header", "text": plain(title, 150)}]
    blocks.append(section(_question_text(question)))
    for choice in question.choices:
        lines = [f"*{mrkdwn(choice.choice_id)}*: {mrkdwn(choice.question)}"]
        lines += [
            f"• *{o.key}*: {mrkdwn(o.description)}"
            + (" _(recommended)_" if o.key == choice.recommended else "")
            for o in choice.options
            if o.key is not OptionKey.CUSTOM
        ]
        blocks.append(section("\n".join(lines)))
        buttons = []
        for option in choice.options:
            pick = {"q": interrupt_id, "c": {choice.choice_id: option.key.value}}
            if option.key is OptionKey.CUSTOM:
                buttons.append(button("Other: my own answer…", action(FORM), pick))
                continue
            recommended = option.key == choice.recommended
            label = f"{option.key}: {option.description}"
            buttons.append(
                button(
                    ("★ " if recommended else "") + label,
                    action(ANSWER if one else FORM),
                    pick,
                    style="primary" if recommended else None,
                )
            )
        blocks.append({"type": "actions", "elements": buttons})
    for item in question.confirmation_items:
        default = "yes" if item.default_value else "no"
        blocks.append(
            section(
                f"*Confirm {mrkdwn(item.confirmation_id)}*: {mrkdwn(item.statement)} "
                f"(suggested: {default})"
            )
        )
        kind = ANSWER if one else FORM
        yes = {"q": interrupt_id, "y": {item.confirmation_id: True}}
        no = {"q": interrupt_id, "y": {item.confirmation_id: False}}
        blocks.append(
            {
                "type": "actions",
                "elements": [
                    button(
                        "Yes", action(kind), yes, style="primary" if item.default_value else None
                    ),
                    button("No", action(kind), no, style=None if item.default_value else "primary"),
                ],
            }
        )
    row: list[dict[str, Any]] = []
    if question.choices or question.confirmation_items:
        row.append(button("Accept the recommendation", action(ANSWER), {"q": interrupt_id, "r": 1}))
    row.append(button("Answer in my own words…", action(FORM), {"q": interrupt_id}))
    row.append(button("Stop the run or continue elsewhere…", action(FORM), {"q": interrupt_id}))
    row += [link_button(label, url, action(LINK)) for label, url in links]
    blocks.append({"type": "actions", "elements": row})
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": fit(footer, 300)}]})
    return blocks


def answered_blocks(
    question: InterruptRequestBase,
    title: str,
    resolution: InterruptResolution | None,
    when: datetime,
    links: Sequence[tuple[str, str]],
    footer: str,
) -> list[dict[str, Any]]:
    """The message once the question is closed: who answered, what and when (no buttons); a
    question nobody answered (``resolution`` None) says so."""
    blocks: list[dict[str, Any]] = [{"type": "header", "text": plain(title, 150)}]
    blocks.append(section(_question_text(question)))
    if resolution is None:
        blocks.append(section(f"*Nobody answered by the deadline* ({when:%Y-%m-%d %H:%M} UTC)."))
    else:
        said = [f"• {mrkdwn(line.lstrip('- '))}" for line in answer_summary(question, resolution)]
        who = mrkdwn(answerer(resolution))
        blocks.append(
            section(
                "\n".join(
                    [f":white_check_mark: *Answered by {who}* at {when:%Y-%m-%d %H:%M} UTC", *said]
                )
            )
        )
    if links:
        row = [link_button(label, url, f"{LINK}:{n}") for n, (label, url) in enumerate(links)]
        blocks.append({"type": "actions", "elements": row})
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": fit(footer, 300)}]})
    return blocks


def answer_summary(question: InterruptRequestBase, resolution: InterruptResolution) -> list[str]:
    """What the answer said, one line per decision."""
    if resolution.stop_run is not None:
        return [f"Stop the run: {fit(resolution.stop_run, 300)}"]
    lines = [fit(line, 300) for line in answer_lines(question, resolution)]
    if resolution.free_text:
        lines.append(f"In their words: {fit(resolution.free_text, 300)}")
    if resolution.continue_at:
        lines.append(f"Continue at: {resolution.continue_at}")
    return lines or ["(an empty answer)"]


def _question_text(question: InterruptRequestBase) -> str:
    text = [f"*{mrkdwn(fit(question.reason, 1_200))}*"]
    if question.context_for_decision:
        text.append(f"_{mrkdwn(fit(question.context_for_decision, 500))}_")
    return "\n".join(text)


def answer_view(
    question: InterruptRequestBase,
    interrupt_id: str,
    picked: InterruptResolution,
    targets: Sequence[str],
    metadata: Mapping[str, str],
) -> dict[str, Any]:
    """The modal: every choice (a pick and its own words), every confirmation, free text, stop
    the run, continue at one of ``targets``; ``picked`` preselects the clicked button's answer;
    ``metadata`` (the interrupt id, the message) comes back with the submission."""
    blocks: list[dict[str, Any]] = [section(_question_text(question))]
    for n, choice in enumerate(question.choices):
        options = [
            {"text": plain(f"{o.key}: {o.description}"), "value": o.key.value}
            if o.key is not OptionKey.CUSTOM
            else {"text": plain("Other: my own answer (below)"), "value": o.key.value}
            for o in choice.options
        ]
        select: dict[str, Any] = {"type": "static_select", "action_id": PICK, "options": options}
        chosen = picked.selected_choices.get(choice.choice_id)
        initial = next((o for o in options if o["value"] == chosen), None)
        if initial is not None:
            select["initial_option"] = initial
        blocks.append(_input(f"c{n}", f"{choice.choice_id}: {choice.question}", select))
        words = {"type": "plain_text_input", "action_id": WORDS, "max_length": INPUT_CHARS}
        blocks.append(_input(f"w{n}", f"{choice.choice_id}: my own answer", words))
    for n, item in enumerate(question.confirmation_items):
        answers = [
            {"text": plain("Yes"), "value": "yes"},
            {"text": plain("No"), "value": "no"},
        ]
        radio: dict[str, Any] = {"type": "radio_buttons", "action_id": PICK, "options": answers}
        given = picked.confirmations.get(item.confirmation_id)
        if given is not None:
            radio["initial_option"] = answers[0 if given else 1]
        blocks.append(_input(f"y{n}", f"{item.confirmation_id}: {item.statement}", radio))
    text = {
        "type": "plain_text_input",
        "action_id": WORDS,
        "multiline": True,
        "max_length": INPUT_CHARS,
    }
    blocks.append(_input(FREE, "Or answer in your own words", text))
    if targets:
        go = {
            "type": "static_select",
            "action_id": PICK,
            "options": [{"text": plain(t), "value": t} for t in targets],
        }
        blocks.append(_input(GOTO, "Continue at another agent", go))
    stop = {"type": "plain_text_input", "action_id": WORDS, "max_length": INPUT_CHARS}
    blocks.append(_input(STOP, "Stop the run, because…", stop))
    return {
        "type": "modal",
        "callback_id": VIEW,
        "title": plain("Answer the question", 24),
        "submit": plain("Answer", 24),
        "close": plain("Cancel", 24),
        "private_metadata": fit(json.dumps(dict(metadata), separators=(",", ":")), 3_000),
        "blocks": blocks,
    }


def _input(block_id: str, label: str, element: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block_id,
        "optional": True,
        "label": plain(label, 2_000),
        "element": element,
    }


def clicked_answer(
    value: Mapping[str, Any], question: InterruptRequestBase
) -> InterruptResolution | None:
    """The answer a button's value stands for (``r``: the recommendation); None for a value
    that is not one."""
    try:
        if value.get("r"):  # the picks alone: a person's answer, not the timeout rule's
            recommended = recommended_resolution(question)
            return InterruptResolution(
                selected_choices=recommended.selected_choices,
                confirmations=recommended.confirmations,
            )
        return InterruptResolution(
            selected_choices=value.get("c") or {}, confirmations=value.get("y") or {}
        )
    except (ValidationError, TypeError, AttributeError):
        return None


def submitted_answer(
    question: InterruptRequestBase, values: Mapping[str, Any]
) -> InterruptResolution:
    """The modal's fields as an answer, every typed text exactly as typed: a stop reason stops
    the run; a choice's own words make it CUSTOM. Raises ValidationError for an answer too large."""
    stop = _typed(values, STOP)
    if stop is not None and stop.strip():
        return InterruptResolution(stop_run=stop)
    picks: dict[str, str] = {}
    words: dict[str, str] = {}
    for n, choice in enumerate(question.choices):
        own = _typed(values, f"w{n}")
        pick = _picked(values, f"c{n}")
        if own is not None and own.strip():
            picks[choice.choice_id], words[choice.choice_id] = OptionKey.CUSTOM.value, own
        elif pick is not None:
            picks[choice.choice_id] = pick
    confirmations = {
        item.confirmation_id: given == "yes"
        for n, item in enumerate(question.confirmation_items)
        if (given := _picked(values, f"y{n}")) is not None
    }
    free = _typed(values, FREE)
    return InterruptResolution.model_validate(
        {
            "selectedChoices": picks,
            "customInputs": words,
            "confirmations": confirmations,
            "freeText": free if free is not None and free.strip() else None,
            "continueAt": _picked(values, GOTO),
        }
    )


def _field(values: Mapping[str, Any], block: str) -> Mapping[str, Any]:
    fields = values.get(block)
    if not isinstance(fields, Mapping):
        return {}
    found = next(iter(fields.values()), None)
    return found if isinstance(found, Mapping) else {}


def _typed(values: Mapping[str, Any], block: str) -> str | None:
    value = _field(values, block).get("value")
    return value if isinstance(value, str) else None


def _picked(values: Mapping[str, Any], block: str) -> str | None:
    option = _field(values, block).get("selected_option")
    value = option.get("value") if isinstance(option, Mapping) else None
    return value if isinstance(value, str) else None
