"""Logging for the CLI and the worker: one readable line per record, quiet libraries."""

from __future__ import annotations

import logging

from temporalio import activity, workflow

NOISY = ("httpx", "httpx2", "httpcore", "openai")
"""Libraries that log a line per request at INFO."""


class OneLine(logging.Formatter):
    """One line per record: ``time LEVEL [workflow id] message``, tracebacks folded in.

    Temporal's workflow and activity loggers attach their context as record attributes; only
    the workflow id is shown (the SDK's dict of every field is turned off by
    ``configure_logging``).
    """

    def format(self, record: logging.LogRecord) -> str:
        context = getattr(record, "temporal_workflow", None) or getattr(
            record, "temporal_activity", None
        )
        where = f"[{context.get('workflow_id')}] " if isinstance(context, dict) else ""
        record.where = where
        return " | ".join(line.strip() for line in super().format(record).splitlines() if line)


def configure_logging(verbose: bool = False, *, quiet: bool = False) -> None:
    """INFO (WARNING when ``quiet``) for our records; library request logs only with ``verbose``."""
    handler = logging.StreamHandler()
    handler.setFormatter(OneLine("%(asctime)s %(levelname)s %(where)s%(message)s"))
    level = logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO
    logging.basicConfig(level=level, handlers=[handler])
    logging.captureWarnings(True)
    workflow.logger.workflow_info_on_message = False
    activity.logger.activity_info_on_message = False
    for name in NOISY:
        logging.getLogger(name).setLevel(logging.DEBUG if verbose else logging.WARNING)
