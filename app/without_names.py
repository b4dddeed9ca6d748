"""People's names out of exported records: ``agents export --without-names``.

A record carries a person's name as a field (``answeredBy``: who answered; ``forkedBy``: who
forked a run) and, verbatim, inside texts: an answer's free text, a stop's reason, the line an
agent is sent on with (``alice (HUMAN) answered ...``), a prompt rendered from them. Every name a
run records as a field is taken out of every record of its chain (and of the chains written after
it): the field becomes null, and each whole-word occurrence in a text (any case) becomes
``PERSON``. Ids are left as they are (fields named ``...Id``, ``...Ids``, ``...Links``): they are
the lineage, so ``--check`` closes as before.

A record whose messages held a name no longer has the messages the model received: its
``messagesSha256`` (which proves those) becomes null, since a name could be guessed back from
it, and its ``exampleId`` is the fingerprint of the messages as written, here and in every record
that names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent_interrupts.activities.llm import messages_sha256
from agent_interrupts.app.history import RecordedRun

NAME_FIELDS = frozenset({"answeredBy", "forkedBy"})
"""The fields that hold a person's name, wherever they are in a record."""
ID_FIELDS = ("Id", "Ids", "Links")
"""Field endings of ids, kept as they are (the lineage)."""
PERSON = "a person"
"""What a name becomes inside a text."""


def recorded_names(value: Any, key: str = "") -> set[str]:
    """The names a record (or any payload) holds in its name fields, at any depth."""
    if isinstance(value, dict):
        return {n for k, v in value.items() for n in recorded_names(v, k)}
    if isinstance(value, list):
        return {n for item in value for n in recorded_names(item, key)}
    if key in NAME_FIELDS and isinstance(value, str) and value.strip():
        return {value.strip()}
    return set()


def names_of_run(run: RecordedRun) -> set[str]:
    """The names a run chain's answers carry (every answer, also of a kind not exported)."""
    names: set[str] = set()
    for it in run.interrupts:
        answers = [
            it.outcome.resolution if it.outcome else None,
            it.translation.resolution if it.translation else None,
        ]
        names.update(a.answered_by.strip() for a in answers if a and a.answered_by)
    return {n for n in names if n}


@dataclass
class NameScrubber:
    """Takes the names it has learned out of records; one per export (the names of the chains
    written before stay learned, and so does each example's new id)."""

    names: set[str] = field(default_factory=set)
    example_ids: dict[str, str] = field(default_factory=dict)
    """An example's id as built -> its id as written."""
    _pattern: re.Pattern[str] | None = None

    def learn(self, names: Iterable[str]) -> None:
        new = {n for n in names if n} - self.names
        if not new:
            return
        self.names |= new
        alternatives = "|".join(re.escape(n) for n in sorted(self.names, key=len, reverse=True))
        self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)

    def text(self, value: str) -> str:
        """``value`` with every learned name replaced by ``PERSON``."""
        return self._pattern.sub(PERSON, value) if self._pattern is not None else value

    def example_id(self, messages: list[dict[str, Any]]) -> str:
        """The id of an example with ``messages`` as an export without names writes it."""
        return messages_sha256(self._value(messages, ""))[:24]

    def record(self, line: dict[str, Any]) -> dict[str, Any]:
        """``line`` (an export's record) without the learned names."""
        scrubbed: dict[str, Any] = self._value(line, "")
        holders: tuple[Any, ...] = (scrubbed, scrubbed.get("metadata"))
        messages = line.get("messages")
        if isinstance(messages, list) and scrubbed.get("messages") != messages:
            if "messagesSha256" in scrubbed:
                scrubbed["messagesSha256"] = None
            first = next((h["exampleId"] for h in holders if _named_example(h)), None)
            if first is not None:
                self.example_ids[first] = messages_sha256(scrubbed["messages"])[:24]
        for holder in holders:
            if isinstance(holder, dict) and isinstance(built := holder.get("exampleId"), str):
                holder["exampleId"] = self.example_ids.get(built, built)
        return scrubbed

    def _value(self, value: Any, key: str) -> Any:
        if key in NAME_FIELDS:
            return None
        if isinstance(value, dict):
            return {k: self._value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(item, key) for item in value]
        if isinstance(value, str) and not key.endswith(ID_FIELDS):
            return self.text(value)
        return value


def _named_example(holder: Any) -> bool:
    return isinstance(holder, dict) and isinstance(holder.get("exampleId"), str)
