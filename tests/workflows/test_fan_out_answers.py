"""FR-094 (questions asked at once reach the person together): whether a fan-out's question
waits one more round trip for the replies arriving with its agent's (``waits_again``), a pure
decision."""

from __future__ import annotations

import pytest

from agent_interrupts.models.policies import QUESTION_MAX_ROUND_TRIPS, QUESTION_QUIET_ROUND_TRIPS
from agent_interrupts.workflows.fan_out_answers import waits_again


@pytest.mark.parametrize(
    ("round_trips", "quiet", "expected"),
    [
        pytest.param(0, 0, True, id="an-agent-asks-while-others-run-a-round-trip"),
        pytest.param(1, 1, QUESTION_QUIET_ROUND_TRIPS > 1, id="one-quiet-round-trip"),
        pytest.param(
            QUESTION_QUIET_ROUND_TRIPS,
            QUESTION_QUIET_ROUND_TRIPS,
            False,
            id="nothing-arrived-for-the-quiet-round-trips-ask-now",
        ),
        pytest.param(4, 0, True, id="a-reply-arrived-wait-again"),
        pytest.param(QUESTION_MAX_ROUND_TRIPS, 0, False, id="replies-that-keep-coming-stop"),
    ],
)
def test_a_question_waits_for_the_replies_arriving_with_its_own(
    round_trips: int, quiet: int, expected: bool
) -> None:
    assert waits_again(round_trips, quiet) is expected
