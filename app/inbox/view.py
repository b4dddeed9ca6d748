"""What the inbox's templates show, worked out before they render: markdown made safe, a
question's one line (age, deadline), the filters of the list, and a combined question split
into its agents' parts with what they share said once. Pure functions: no Temporal, no I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from markdown_it import MarkdownIt
from markupsafe import Markup

from agent_interrupts.app.sdk import WaitingQuestion
from agent_interrupts.models.interrupts import (
    ConfirmationItem,
    InterruptRequestBase,
    InterruptType,
    StructuredChoice,
)

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_MARKDOWN.disable("image")  # the page loads nothing from elsewhere (img-src 'self')
KINDS = tuple(t.value for t in InterruptType)
"""The kinds of question the list can be filtered by."""


def markdown(text: str | None) -> Markup:
    """Model-written markdown as HTML a page may show: raw HTML in it stays text (``html=False``
    escapes every tag), links only where markdown-it finds them safe (never ``javascript:``,
    ``data:``, ``vbscript:``, ``file:``), no images; every link opens elsewhere without the
    page's referrer."""
    html = _MARKDOWN.render(text or "")
    return Markup(html.replace("<a href=", '<a rel="noopener noreferrer" target="_blank" href='))


def age(since: datetime | None, now: datetime) -> str:
    """How long ago ``since`` was, in the largest unit that fits: ``45 s``, ``12 min``, ``3 h``,
    ``2 d``; ``in 5 min`` for a moment still ahead; ``?`` when unknown."""
    if since is None:
        return "?"
    seconds = int((now - since).total_seconds())
    ahead, seconds = seconds < 0, abs(seconds)
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            shown = f"{seconds // size} {unit}"
            break
    else:
        shown = f"{seconds} s"
    return f"in {shown}" if ahead else shown


def iso(moment: datetime | None) -> str:
    """A moment for ``<time datetime>`` (the page's script keeps ages current); "" when none."""
    return moment.astimezone(UTC).isoformat() if moment else ""


@dataclass(frozen=True)
class Filters:
    """What the list is narrowed to: a run, an agent, a kind of question, words to find; and
    whether ignored questions are shown (they are hidden otherwise)."""

    run: str = ""
    agent: str = ""
    kind: str = ""
    text: str = ""
    ignored: bool = False
    page: int = 1
    """Which page of the waiting questions (``?page=``; a number, 1 for anything else)."""

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> Filters:
        page = query.get("page", "").strip()
        return cls(
            run=query.get("run", "").strip(),
            agent=query.get("agent", "").strip(),
            kind=query.get("kind", "").strip().upper(),
            text=query.get("q", "").strip(),
            ignored=query.get("ignored", "") not in ("", "0"),
            page=int(page) if page.isdigit() and 0 < len(page) <= 6 and int(page) > 0 else 1,
        )

    def params(self) -> dict[str, str]:
        """The filters as the address's query (``page_address`` adds the page)."""
        return {
            "run": self.run,
            "agent": self.agent,
            "kind": self.kind,
            "q": self.text,
            "ignored": "1" if self.ignored else "",
        }

    def keeps(self, question: WaitingQuestion) -> bool:
        """Whether ``question`` is listed: each filter given matches (a run by substring, an
        agent exactly, as ``agents_of`` names it, in any case; the kind exactly, the words
        anywhere in what the question says)."""
        if self.run and self.run.lower() not in question.run_id.lower():
            return False
        if self.agent and self.agent.lower() not in agents_of(question):
            return False
        status = question.status
        if self.kind and (status is None or status.request.type.value != self.kind):
            return False
        return all(word in searchable(question) for word in self.text.lower().split())


def agents_of(question: WaitingQuestion) -> set[str]:
    """The agents a question is of, lower case: the one that asked (a dispatch node for a
    combined question) and each dispatched agent of a combined question, by its key
    (``investigator-1``) and its type (``INVESTIGATOR``)."""
    names = {question.origin}
    request = question.status.request if question.status else None
    for asked in getattr(request, "agent_questions", ()):
        names |= {asked.agent_key, str(asked.request.origin)}
    return {n.lower() for n in names}


def searchable(question: WaitingQuestion) -> str:
    """What the search looks through, lower case: the ids, the agents that asked and every
    text of the question."""
    parts = [question.origin]
    request = question.status.request if question.status else None
    if request is not None:
        parts += [q.agent_key for q in getattr(request, "agent_questions", ())]
    parts += [question.interrupt_id, question.summary]
    if request is not None:
        parts += [request.reason, request.context_for_decision]
        for choice in request.choices:
            parts += [choice.question, choice.context, *(o.description for o in choice.options)]
        parts += [i.statement for i in request.confirmation_items]
    return " ".join(parts).lower()


@dataclass(frozen=True)
class Part:
    """One agent's part of a combined question: its own reason and context (None when the
    question shows them once for every agent), its choices and confirmations, its typed fields."""

    key: str
    origin: str
    reason: str | None
    context: str | None
    choices: list[StructuredChoice]
    confirmations: list[ConfirmationItem]
    request: InterruptRequestBase


@dataclass(frozen=True)
class Column:
    """A choice or a confirmation every agent of a combined question is asked in the same words
    with the same options: said once above a grid with one row per agent."""

    text: str
    context: str
    options: tuple[tuple[str, str], ...]
    """(key, description) of a choice's options; empty for a confirmation."""
    impact_if_no: str = ""


@dataclass(frozen=True)
class FanOut:
    """A combined question as the inbox shows it: what every agent shares, then each part."""

    heading: str
    shared_reason: str | None
    shared_context: str | None
    parts: list[Part] = field(default_factory=list)
    columns: list[Column] | None = None
    """What every part asks alike, when they all ask alike (one row per agent), else None."""


def _asks(part: Part) -> list[Column]:
    choices = [
        Column(
            untagged(c.question, part.key),
            c.context,
            tuple((o.key.value, o.description) for o in c.options),
        )
        for c in part.choices
    ]
    confirmations = [
        Column(untagged(i.statement, part.key), i.context, (), i.impact_if_no)
        for i in part.confirmations
    ]
    return choices + confirmations


def shared_columns(parts: Sequence[Part]) -> list[Column] | None:
    """The choices and confirmations every part asks alike (same words, same options, in the same
    order), or None when two parts ask differently (or nothing is asked)."""
    asked = [_asks(p) for p in parts]
    if not asked or not asked[0] or any(a != asked[0] for a in asked[1:]):
        return None
    return asked[0]


def fan_out(request: InterruptRequestBase) -> FanOut | None:
    """The parts of a combined question (a dispatch node's agents' questions), with a reason or a
    context that every agent gave alike said once above them; None for any other question."""
    asked = list(getattr(request, "agent_questions", ()))
    if not asked:
        return None
    reasons = {q.request.reason.strip() for q in asked}
    contexts = {q.request.context_for_decision.strip() for q in asked}
    shared_reason = reasons.pop() if len(reasons) == 1 else None
    shared_context = contexts.pop() if len(contexts) == 1 else None
    parts = []
    for q in asked:
        prefix = f"{q.agent_key}/"
        parts.append(
            Part(
                key=q.agent_key,
                origin=str(q.request.origin),
                reason=None if shared_reason is not None else q.request.reason,
                context=None if shared_context is not None else q.request.context_for_decision,
                choices=[c for c in request.choices if c.choice_id.startswith(prefix)],
                confirmations=[
                    i for i in request.confirmation_items if i.confirmation_id.startswith(prefix)
                ],
                request=q.request,
            )
        )
    origins = sorted({p.origin for p in parts})
    heading = f"{len(parts)} {'/'.join(origins)} agents need a decision"
    return FanOut(heading, shared_reason, shared_context or None, parts, shared_columns(parts))


def untagged(text: str, key: str) -> str:
    """A combined question's choice or statement without the ``[agent-key] `` its part shows."""
    return text.removeprefix(f"[{key}] ")


def distinct_runs(questions: Sequence[WaitingQuestion]) -> list[str]:
    return sorted({q.run_id for q in questions})


def distinct_agents(questions: Sequence[WaitingQuestion]) -> list[str]:
    """The agents the filter offers: each question's own and its dispatched agents' types (a
    key such as ``ticket-agent-1`` is found too, but not offered)."""
    offered = {q.origin for q in questions}
    for q in questions:
        request = q.status.request if q.status else None
        offered |= {str(a.request.origin) for a in getattr(request, "agent_questions", ())}
    return sorted(offered)
