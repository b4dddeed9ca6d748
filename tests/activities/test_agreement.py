"""Agreement between the controller's shadow answers and people's."""

from __future__ import annotations

import pytest

from agent_interrupts.activities.agreement import Agreement, QuestionKind, verdicts
from agent_interrupts.models.interrupts import InterruptResolution
from tests.support.interrupts import question_input, with_confirmation


def _answer(
    option: str, confirm: bool, custom: str = "", free: str | None = None
) -> InterruptResolution:
    return InterruptResolution.model_validate(
        {
            "selectedChoices": {"cache": option},
            "customInputs": {"cache": custom} if custom else {},
            "confirmations": {"tests": confirm},
            "freeText": free,
        }
    )


def test_each_decision_is_compared_by_its_kind() -> None:
    request = with_confirmation(question_input().request)
    same = list(verdicts(request, _answer("B", True), _answer("B", True)))
    assert same == [(QuestionKind.CHOICE, True), (QuestionKind.CONFIRMATION, True)]
    other = list(verdicts(request, _answer("A", True, free="why"), _answer("B", False)))
    assert other == [
        (QuestionKind.CHOICE, False),
        (QuestionKind.CONFIRMATION, False),
        (QuestionKind.FREE_TEXT, None),
    ]
    custom = verdicts(
        request, _answer("CUSTOM", True, "use Redis"), _answer("CUSTOM", True, "use  redis")
    )
    assert next(custom) == (QuestionKind.CHOICE, True)
    differ = verdicts(
        request, _answer("CUSTOM", True, "Redis"), _answer("CUSTOM", True, "memcached")
    )
    assert next(differ) == (QuestionKind.CHOICE, None)


def test_the_rate_has_a_wilson_interval() -> None:
    counts = Agreement()
    for verdict in [True] * 8 + [False] * 2 + [None]:
        counts.add(verdict)
    assert (counts.agreed, counts.compared, counts.not_comparable) == (8, 10, 1)
    assert counts.rate == 0.8
    low, high = counts.interval() or (0, 0)
    assert low == pytest.approx(0.4902, abs=1e-3) and high == pytest.approx(0.9433, abs=1e-3)
    assert Agreement().interval() is None
    everything = Agreement(agreed=5, compared=5)
    assert everything.interval() == (pytest.approx(0.5655, abs=1e-3), 1.0)
