"""How an interrupt reads in the Temporal UI and the terminal: a summary line and markdown."""

from __future__ import annotations

from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.team import Team
from agent_interrupts.workflows.visibility import answer_markdown, fit_details, question_markdown


def summary_line(origin: str, request: InterruptRequestBase) -> str:
    text = f"{origin} asks ({request.type}): {request.reason}"
    return text if len(text) <= 200 else text[:197] + "..."


def details_markdown(child_id: str, origin: str, request: InterruptRequestBase, team: Team) -> str:
    """Everything a person needs to answer, and how to send the answer."""
    question = question_markdown(origin, request)
    return fit_details(question + "\n\n" + answer_markdown(child_id, origin, request, team))
