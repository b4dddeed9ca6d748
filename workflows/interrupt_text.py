"""How an interrupt reads in the Temporal UI: a one-line summary and markdown details."""

from __future__ import annotations

import json

from models.agent_types import AgentType
from models.interrupts import InterruptRequestBase
from workflows.resolution_rules import default_option


def summary_line(origin: AgentType, request: InterruptRequestBase) -> str:
    text = f"{origin} asks ({request.type}): {request.reason}"
    return text if len(text) <= 200 else text[:197] + "..."


def details_markdown(child_id: str, origin: AgentType, request: InterruptRequestBase) -> str:
    """Everything a person needs to answer, and how to send the answer."""
    lines = [f"## {origin} needs a decision ({request.type})", "", f"**Reason:** {request.reason}"]
    if request.context_for_decision:
        lines += ["", f"**Context:** {request.context_for_decision}"]
    for choice in request.choices:
        lines += ["", f"### Choice `{choice.choice_id}`: {choice.question}"]
        if choice.context:
            lines.append(f"_{choice.context}_")
        for option in choice.options:
            mark = " **(recommended)**" if option.key == choice.recommended else ""
            lines.append(f"- **{option.key}**: {option.description}{mark}")
    for item in request.confirmation_items:
        default = "yes" if item.default_value else "no"
        lines += [
            "",
            f"### Confirm `{item.confirmation_id}`: {item.statement}",
            f"- default: **{default}**; if no: {item.impact_if_no}",
        ]
    flags = [f"--choice {c.choice_id}={default_option(c)}" for c in request.choices]
    flags += [
        f"--confirm {c.confirmation_id}={'yes' if c.default_value else 'no'}"
        for c in request.confirmation_items
    ]
    lines += [
        "",
        "### Answer",
        "Signal `resolve` with the resolution JSON (here: the recommended answers):",
        "```",
        signal_command(child_id, request),
        "```",
        f"or: `python client.py resolve {child_id} {' '.join(flags)}`",
    ]
    return "\n".join(lines)


def signal_command(interrupt_id: str, request: InterruptRequestBase) -> str:
    """The ``temporal workflow signal`` command that answers with the recommendations."""
    example = {
        "selectedChoices": {c.choice_id: default_option(c) for c in request.choices},
        "confirmations": {c.confirmation_id: c.default_value for c in request.confirmation_items},
    }
    return (
        f"temporal workflow signal --workflow-id {interrupt_id} --name resolve "
        f"--input '{json.dumps(example)}'"
    )
