"""Logging for the CLI and the worker: one readable line per record, quiet libraries."""

from __future__ import annotations

import logging

NOISY = ("httpx", "httpx2", "httpcore", "openai")
"""Libraries that log a line per request at INFO."""


class OneLine(logging.Formatter):
    """Collapse a record (and its traceback) into one line."""

    def format(self, record: logging.LogRecord) -> str:
        return " | ".join(line.strip() for line in super().format(record).splitlines() if line)


def configure_logging(verbose: bool = False, *, quiet: bool = False) -> None:
    """INFO (WARNING when ``quiet``) for our records; library request logs only with ``verbose``."""
    handler = logging.StreamHandler()
    handler.setFormatter(OneLine("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    level = logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO
    logging.basicConfig(level=level, handlers=[handler])
    logging.captureWarnings(True)
    for name in NOISY:
        logging.getLogger(name).setLevel(logging.DEBUG if verbose else logging.WARNING)
