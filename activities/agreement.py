"""How often the controller's shadow answers agree with people's.

Pure: one question, the person's answer and the controller's -> one verdict per decision in it,
by question kind. A choice agrees when both picked the same option (two CUSTOM write-ins only
when their words are the same); a confirmation when both said the same yes or no; free text is
not comparable (its decisions would have to be translated to be compared).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.teams.software.questions import AnyInterruptRequest

Z_95 = 1.959964
"""The normal quantile of a two-sided 95% confidence interval."""


class QuestionKind(StrEnum):
    CHOICE = "choice"
    CONFIRMATION = "confirmation"
    FREE_TEXT = "free text"


def verdicts(
    request: AnyInterruptRequest, person: InterruptResolution, shadow: InterruptResolution
) -> Iterator[tuple[QuestionKind, bool | None]]:
    """Per decision of the question: its kind and whether the two answers agree (None: they
    cannot be compared)."""
    for choice in request.choices:
        mine = person.selected_choices.get(choice.choice_id)
        theirs = shadow.selected_choices.get(choice.choice_id)
        if mine is None or theirs is None:
            yield QuestionKind.CHOICE, None
        elif mine is OptionKey.CUSTOM and theirs is OptionKey.CUSTOM:
            words = [_words(a.custom_inputs.get(choice.choice_id)) for a in (person, shadow)]
            yield QuestionKind.CHOICE, True if words[0] == words[1] else None
        else:
            yield QuestionKind.CHOICE, mine is theirs
    for item in request.confirmation_items:
        mine_yes = person.confirmations.get(item.confirmation_id)
        theirs_yes = shadow.confirmations.get(item.confirmation_id)
        comparable = mine_yes is not None and theirs_yes is not None
        yield QuestionKind.CONFIRMATION, (mine_yes == theirs_yes) if comparable else None
    if person.free_text:
        yield QuestionKind.FREE_TEXT, None


def _words(text: str | None) -> list[str]:
    return (text or "").casefold().split()


@dataclass
class Agreement:
    """Verdicts of one agent type and question kind."""

    agreed: int = 0
    compared: int = 0
    not_comparable: int = 0

    def add(self, verdict: bool | None) -> None:
        if verdict is None:
            self.not_comparable += 1
        else:
            self.compared += 1
            self.agreed += verdict

    @property
    def rate(self) -> float | None:
        return self.agreed / self.compared if self.compared else None

    def interval(self) -> tuple[float, float] | None:
        """The Wilson score 95% interval of the agreement rate."""
        n = self.compared
        if not n:
            return None
        p = self.agreed / n
        centre = p + Z_95**2 / (2 * n)
        spread = Z_95 * math.sqrt(p * (1 - p) / n + Z_95**2 / (4 * n * n))
        scale = 1 + Z_95**2 / n
        return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)
