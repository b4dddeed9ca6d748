"""Which attempts follow a lost one (its worker died without a counted failure)."""

from __future__ import annotations

from agent_interrupts.activities.heartbeat import follows_a_lost_attempt


def test_a_first_attempt_follows_nothing() -> None:
    assert not follows_a_lost_attempt(1, 0)


def test_an_attempt_after_counted_failures_only_follows_no_lost_one() -> None:
    assert not follows_a_lost_attempt(3, 2)


def test_an_attempt_after_an_uncounted_end_follows_a_lost_one() -> None:
    assert follows_a_lost_attempt(2, 0)
    assert follows_a_lost_attempt(4, 2)
