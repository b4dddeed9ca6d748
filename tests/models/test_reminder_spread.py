"""Reminders of questions raised together are spread over a window fixed by each question's id."""

from __future__ import annotations

from datetime import timedelta

from agent_interrupts.models.notifications import reminder_delay
from agent_interrupts.models.policies import REMINDER_SPREAD, REMINDER_SPREAD_MAX

HOUR = timedelta(hours=1)


def test_a_reminder_is_moved_later_within_a_tenth_of_its_time_by_the_question_id() -> None:
    delays = [reminder_delay(f"run-{n}-interrupt-1", HOUR, HOUR) for n in range(1000)]
    assert all(timedelta(0) <= d < HOUR * REMINDER_SPREAD for d in delays)
    assert len(set(delays)) > 900, "questions raised together are reminded apart"
    spread = max(delays) - min(delays)
    assert spread > HOUR * REMINDER_SPREAD * 0.9, "over the whole window"
    assert reminder_delay("run-1-interrupt-1", HOUR, HOUR) == delays[1], "the same each time"


def test_the_spread_stays_before_the_deadline_and_under_its_cap() -> None:
    question = "run-x-interrupt-2"
    assert reminder_delay(question, 10 * HOUR, timedelta(minutes=5)) < timedelta(seconds=30)
    assert reminder_delay(question, 1000 * HOUR, 1000 * HOUR) < REMINDER_SPREAD_MAX
    assert reminder_delay(question, timedelta(0), HOUR) == timedelta(0)
    assert reminder_delay(question, HOUR, timedelta(0)) == timedelta(0)
