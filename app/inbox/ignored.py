"""The questions a person chose to ignore in this inbox, with why, when and who: hidden from
the list (shown again on asking), kept in ``<AGENTS_STATE_DIR>/inbox-ignored.json`` so they stay
ignored after a restart. Ignoring changes nothing in Temporal: the question still waits, its
deadline and reminders still run, and any other inbox, the CLI or the UI still shows it."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent_interrupts.models.resolution_rules import has_words

FILE_NAME = "inbox-ignored.json"
MAX_REASON_CHARS = 500

log = logging.getLogger("agents.inbox")


@dataclass(frozen=True)
class Ignored:
    reason: str
    at: str
    who: str


class IgnoredQuestions:
    """Ignored question ids and their records; written whole (atomically) on every change."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.records: dict[str, Ignored] = self._load()

    def ignore(self, interrupt_id: str, reason: str, who: str) -> Ignored:
        """Records ``interrupt_id`` as ignored. Raises ValueError without a reason."""
        if not has_words(reason):
            raise ValueError("say why you ignore this question (it is recorded)")
        record = Ignored(reason.strip()[:MAX_REASON_CHARS], datetime.now(UTC).isoformat(), who)
        self.records[interrupt_id] = record
        self._save()
        return record

    def restore(self, interrupt_id: str) -> None:
        if self.records.pop(interrupt_id, None) is not None:
            self._save()

    def forget_except(self, waiting: set[str]) -> None:
        """Drops the records of questions that no longer wait (answered, timed out, closed),
        once the full list of waiting ids is known."""
        if gone := self.records.keys() - waiting:
            for interrupt_id in gone:
                del self.records[interrupt_id]
            self._save()

    def _load(self) -> dict[str, Ignored]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            raw = json.loads(self.path.read_text())
            return {i: Ignored(**r) for i, r in raw.items()}
        except (OSError, ValueError, TypeError) as err:
            log.warning("cannot read %s (%s): no question is ignored", self.path, err)
            return {}

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(".partial")
            partial.write_text(json.dumps({i: asdict(r) for i, r in self.records.items()}))
            os.replace(partial, self.path)
        except OSError as err:
            log.warning("cannot write %s (%s): ignored for this session only", self.path, err)
