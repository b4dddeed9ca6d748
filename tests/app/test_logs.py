"""Log records are one readable line."""

from __future__ import annotations

import logging

from agent_interrupts.app.logs import OneLine


def test_a_multi_line_record_with_temporal_context_is_one_short_line() -> None:
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "first\nsecond", None, None)
    record.temporal_workflow = {"workflow_id": "run-1", "run_id": "abc", "attempt": 1}
    line = OneLine("%(levelname)s %(where)s%(message)s").format(record)
    assert line == "WARNING [run-1] first | second"


def test_a_record_without_context_has_no_prefix() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "plain", None, None)
    assert OneLine("%(where)s%(message)s").format(record) == "plain"
