"""Typed interrupt requests (US19-22): the question every agent's question extends
(``InterruptRequestBase``: reason, structured choices, confirmation items), a declared team's
question, a dispatch node's question with its agents' own, and the answer (resolutions).

The software team's per-agent questions, their tagged unions (``AnyInterruptRequest``,
``DispatchedAgentInterruptRequest``) and ``InterruptRouting`` are ``teams/software/questions.py``'s
and ``teams/software/routings.py``'s. ``AgentQuestion`` holds a dispatched agent's question of
any team: its union is filled in by the software team's package when it loads, so this module
imports no team."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Self

from pydantic import ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.agent_call import CallRecord
from agent_interrupts.models.agent_types import AgentName
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.limits import MAX_ITEMS, Answer, Id, PersonName, Text, clip

if TYPE_CHECKING:
    from agent_interrupts.teams.software.questions import DispatchedAgentInterruptRequest

DEFAULT_INTERRUPT_TIMEOUT_SECONDS = 24 * 60 * 60


class TimeoutOutcome(StrEnum):
    """What happens when nobody answers before the deadline."""

    ESCALATE_TO_AGENT_REVIEW = "ESCALATE_TO_AGENT_REVIEW"
    """A reviewing LLM call answers instead (the default)."""
    USE_RECOMMENDED = "USE_RECOMMENDED"
    """Take every recommended option and every confirmation default."""
    FAIL = "FAIL"
    """The interrupt, and so the run, fails."""


class InterruptType(StrEnum):
    """What kind of answer the interrupt waits for."""

    HUMAN_REVIEW = "HUMAN_REVIEW"
    AGENT_REVIEW = "AGENT_REVIEW"
    PAUSE = "PAUSE"


class OptionKey(StrEnum):
    """Multiple-choice keys; CUSTOM is the write-in ("Or provide your own approach")."""

    A = "A"
    B = "B"
    C = "C"
    D = "D"
    CUSTOM = "CUSTOM"


CUSTOM_OPTION_TEXT = "Or provide your own approach"
NO_OPTION_TEXT = "(the agent wrote no text for this option)"
MIN_REAL_OPTIONS = 2
"""A choice offers two to four real alternatives (A-D) besides CUSTOM (FR-088, US21)."""
MAX_CHOICES = 5
"""Choices one question may hold; more is a sign the question should be split."""
MAX_CONFIRMATIONS = 10
"""Confirmation items one question may hold."""
MAX_QUESTION_ID_CHARS = 80
"""A choiceId or confirmationId; short enough to stay an answerable id once a dispatch node
prefixes it with the agent that asked (``ticket-agent-2/<id>``)."""


class ChoiceOption(WireModel):
    key: OptionKey = Field(description="A, B, C or D for an alternative; CUSTOM for the write-in.")
    description: str = Field(
        description="The alternative in one sentence, with what it changes; for CUSTOM exactly "
        f'"{CUSTOM_OPTION_TEXT}".'
    )


def _own_keys(choice_id: str, options: list[ChoiceOption]) -> list[ChoiceOption]:
    """``options`` with each repeated key moved to the first free one (A-D, then CUSTOM), in
    order, so no alternative a model wrote is lost (a grammar cannot forbid repeated keys)."""
    free = [k for k in OptionKey if k not in {o.key for o in options}]
    seen: set[OptionKey] = set()
    kept: list[ChoiceOption] = []
    for option in options:
        if option.key in seen:
            if not free:
                raise ValueError(
                    f"choice {choice_id[:60]!r} offers {len(options)} options; offer at most "
                    "four (A, B, C, D) besides CUSTOM"
                )
            option = option.model_copy(update={"key": free.pop(0)})
        seen.add(option.key)
        kept.append(option)
    return kept


class StructuredChoice(WireModel):
    """One decision point offered as A/B/C/D plus a CUSTOM write-in (US21)."""

    choice_id: str = Field(description="A short id of this decision point, unique in the question.")
    question: str = Field(description="The decision to make, as one question.")
    context: str = Field(description="What the person needs to know to choose between the options.")
    options: list[ChoiceOption] = Field(
        description="Two to four real alternatives (A, B, C, D), then CUSTOM."
    )
    recommended: OptionKey | None = Field(
        description="The alternative you prefer (one you offered), or null when you have none."
    )

    @model_validator(mode="after")
    def _always_offer_custom(self) -> Self:
        keys = [o.key for o in self.options]
        if len(set(keys)) < len(keys):
            self.options = _own_keys(self.choice_id, self.options)
            keys = [o.key for o in self.options]
        if OptionKey.CUSTOM not in keys:
            self.options.append(ChoiceOption(key=OptionKey.CUSTOM, description=CUSTOM_OPTION_TEXT))
        return self

    def offered(self) -> set[OptionKey]:
        return {o.key for o in self.options}

    def _answerable(self) -> StructuredChoice:
        """This choice with repeated real options kept once, empty ones saying so, and a
        recommendation of no real option dropped (``InterruptRequestBase.answerable``)."""
        seen: set[str] = set()
        options: list[ChoiceOption] = []
        for option in self.options:
            text = option.description.strip().lower()
            if option.key is not OptionKey.CUSTOM and text and text in seen:
                continue
            seen.add(text)
            if not text:
                option = option.model_copy(update={"description": NO_OPTION_TEXT})
            options.append(option)
        real = {o.key for o in options if o.key is not OptionKey.CUSTOM}
        recommended = self.recommended if self.recommended in real else None
        return self.model_copy(update={"options": options, "recommended": recommended})

    def problems(self) -> list[str]:
        """Why a person could not answer this choice well (FR-088..091, SC-025, SC-027)."""
        name = clip(self.choice_id, 60)
        real = [o for o in self.options if o.key is not OptionKey.CUSTOM]
        found: list[str] = []
        if not MIN_REAL_OPTIONS <= len(real) <= len(OptionKey) - 1:
            found.append(
                f"choice {name!r} offers {len(real)} real option(s); offer two to four "
                "(A, B, C, D) besides CUSTOM, or ask a confirmation item instead"
            )
        texts = [o.description.strip().lower() for o in real]
        if any(not t for t in texts) or len(set(texts)) < len(texts):
            found.append(f"choice {name!r} has an empty or repeated option; make each one real")
        if self.recommended is not None and self.recommended not in {o.key for o in real}:
            found.append(
                f"choice {name!r} recommends {self.recommended.value}, which is not one of its "
                "real options; recommend an offered option or null"
            )
        return found


class ConfirmationItem(WireModel):
    """A yes/no decision on one implementation detail (US22)."""

    confirmation_id: str = Field(description="A short id of this item, unique in the question.")
    statement: str = Field(description="The one specific thing you intend to do.")
    context: str = Field(description="Why it needs a yes or no.")
    default_value: bool = Field(description="Your suggestion: true for yes, false for no.")
    impact_if_no: str = Field(description="What you will do instead if the answer is no.")


class InterruptRequestBase(WireModel):
    """Fields every typed interrupt request carries (FR-082..085)."""

    type: InterruptType = Field(
        description="HUMAN_REVIEW when a person must decide; AGENT_REVIEW when a reviewing model "
        "may decide for them; PAUSE to stop until someone resumes the run."
    )
    reason: str = Field(
        description="Your own explanation of the uncertainty, in one to three sentences: what "
        "you are unsure about and why a wrong guess would cost."
    )
    choices: list[StructuredChoice] = Field(
        description=f"One structured choice per decision point (at most {MAX_CHOICES}); see the "
        "example below."
    )
    confirmation_items: list[ConfirmationItem] = Field(
        description="One yes/no item per specific detail you intend to do (at most "
        f"{MAX_CONFIRMATIONS}); see the example below."
    )
    context_for_decision: str = Field(
        description="What the person needs to know to answer, from your request and the "
        "upstream context, with the context ids it came from."
    )

    def problems(self) -> list[str]:
        """Why this question is not well formed; empty when a person can answer it as asked.

        An agent's malformed question is sent back to its LLM with these (``activities.agents``),
        never shown to a person.
        """
        found: list[str] = []
        if not self.reason.strip():
            found.append("the reason is empty; explain what you are unsure about")
        if len(self.choices) > MAX_CHOICES:
            found.append(f"{len(self.choices)} choices; ask at most {MAX_CHOICES}")
        if len(self.confirmation_items) > MAX_CONFIRMATIONS:
            found.append(
                f"{len(self.confirmation_items)} confirmation items; ask at most "
                f"{MAX_CONFIRMATIONS}"
            )
        found += _id_problems("choiceId", [c.choice_id for c in self.choices])
        found += _id_problems(
            "confirmationId", [c.confirmation_id for c in self.confirmation_items]
        )
        for choice in self.choices:
            found += choice.problems()
        return found

    def answerable(self) -> Self:
        """A copy a person can answer whatever its problems: ids that are empty, too long or
        repeated get their position's (``choice-2``), a recommendation that is not a real option
        is dropped, options without text say so and repeated ones go (kept once), an empty
        reason says so. What the model wrote is otherwise kept."""
        choices = [
            c.model_copy(update={"choice_id": i})
            for c, i in zip(
                (c._answerable() for c in self.choices),
                _own_ids("choice", [c.choice_id for c in self.choices]),
                strict=True,
            )
        ]
        items = [
            c.model_copy(update={"confirmation_id": i})
            for c, i in zip(
                self.confirmation_items,
                _own_ids("confirmation", [c.confirmation_id for c in self.confirmation_items]),
                strict=True,
            )
        ]
        reason = self.reason if self.reason.strip() else "The agent gave no reason."
        return self.model_copy(
            update={"reason": reason, "choices": choices, "confirmation_items": items}
        )


def _own_ids(what: str, ids: list[str]) -> list[str]:
    """``ids`` with each unusable one (empty, too long, repeated) replaced by its position's."""
    taken = {i for i in ids if i.strip() and len(i) <= MAX_QUESTION_ID_CHARS}
    kept: list[str] = []
    for n, i in enumerate(ids, start=1):
        usable = i.strip() and len(i) <= MAX_QUESTION_ID_CHARS and i not in kept
        if not usable:
            i = f"{what}-{n}"
            while i in taken or i in kept:
                i += "x"
        kept.append(i)
    return kept


def _id_problems(what: str, ids: list[str]) -> list[str]:
    found = [
        f"{what} {clip(i, 60)!r} must be 1 to {MAX_QUESTION_ID_CHARS} characters"
        for i in ids
        if not i.strip() or len(i) > MAX_QUESTION_ID_CHARS
    ]
    repeated = sorted({clip(i, 60) for i in ids if ids.count(i) > 1})
    if repeated:
        found.append(f"{what} {', '.join(map(repr, repeated))} is used more than once")
    return found


class DispatchRoutingDecision(WireModel):
    agent: str = Field(description="The dispatched agent: its subdomain, area or ticket.")
    assignment: str = Field(description="What it was given to do.")
    rationale: str = Field(description="Why the work was routed to it this way.")


class TeamInterruptRequest(InterruptRequestBase):
    """Any declared team's question on the wire (each agent's own model, with its typed fields,
    is generated from the team: ``models/team_build.py``); its typed fields ride as extras."""

    model_config = ConfigDict(extra="allow")

    origin: str
    agent_questions: SkipJsonSchema[list[AgentQuestion]] = Field(default_factory=list)
    """A team dispatcher's question: its dispatched agents' own questions."""


TEAM_TAG = "TEAM"
"""The tag of a declared team's question in the unions below."""


class AgentQuestion(WireModel):
    """A dispatched agent's own typed question, kept inside its dispatch node's interrupt."""

    agent_key: str = Field(
        description="The agent within the fan-out (``ticket-agent-2``); its choice and "
        "confirmation ids are prefixed with it."
    )
    node_id: str
    request: DispatchedAgentInterruptRequest


class DispatchInterruptRequest(InterruptRequestBase):
    """A dispatch node's question (FR-108): its routing decisions and the target agents' context;
    when dispatched agents asked, their typed questions, combined (``workflows/lifting.py``)."""

    routing_decisions: list[DispatchRoutingDecision] = Field(
        description="How you routed the work to the dispatched agents, one item per agent."
    )
    target_agent_context: str = Field(
        description="What the dispatched agents were given, and what they are missing."
    )
    agent_questions: SkipJsonSchema[list[AgentQuestion]] = Field(
        default_factory=list,
        description="Filled by the workflow: the dispatched agents' own questions.",
    )


class ResolvedBy(StrEnum):
    HUMAN = "HUMAN"
    AGENT_REVIEW = "AGENT_REVIEW"
    TIMEOUT_ESCALATION = "TIMEOUT_ESCALATION"
    CONTROLLER_AUTONOMY = "CONTROLLER_AUTONOMY"
    """The controller answered a kind of question it earned: a person may overrule."""


class Door(StrEnum):
    """Where a person's answer came from (the audit of who answered from where)."""

    CLI = "cli"
    INBOX = "inbox"
    SDK = "sdk"
    UI = "ui"
    """The Temporal UI: its JSON says so itself (``"door": "ui"``); none of our code sets it."""
    SLACK = "slack"
    EMAIL = "email"
    LINK = "link"


class InterruptResolution(WireModel):
    """A human's (or reviewer's) answer: choiceId -> option, write-ins, yes/no confirmations.

    Sizes are limited at the door (``models/limits.py``): ids, answers, free text, entries.
    """

    selected_choices: dict[Id, OptionKey] = Field(default_factory=dict, max_length=MAX_ITEMS)
    custom_inputs: dict[Id, Answer] = Field(default_factory=dict, max_length=MAX_ITEMS)
    confirmations: dict[Id, bool] = Field(default_factory=dict, max_length=MAX_ITEMS)
    free_text: Text | None = None
    decided_by_text: list[Id] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Set by the workflow when it takes the answer: the choice and confirmation ids that the free
    text alone answers, left to the translating LLM (US23)."""
    stop_run: Text | None = None
    """A person stops the run here, for this reason; nothing else need be answered. The run ends
    FAILED with ``StoppedByPerson`` quoting it."""
    continue_at: AgentName | None = None
    """A person sends the run on to this agent instead of back to the one that asked: one of the
    asking agent's own routes (``resolution_rules.redirect_targets``)."""
    resolved_by: ResolvedBy = ResolvedBy.HUMAN
    answered_by: PersonName | None = None
    """The person who answered, by name: the inbox's named token or its proxy's header, the
    CLI's ``--as`` / ``AGENTS_USER`` (default: the login name), the SDK's ``answered_by``. Shown
    beside ``resolvedBy``, which says what kind of answerer it was; None for a model's answer
    and for an answer that gave no name (the Temporal UI's, unless its JSON says)."""
    door: Door | None = Field(default=None, exclude_if=lambda v: v is None)
    """Where the answer came from, set by each door (the CLI, the SDK, the inbox, ...); None when
    unknown. Left out of the wire form while unset, so answers recorded before keep their JSON."""
    call: CallRecord | None = None
    """The reviewing LLM call that gave this answer (AGENT_REVIEW, TIMEOUT_ESCALATION); set by
    the reviewer activity. A person's answer has none (the export ignores one it carries)."""


def answerer(resolution: InterruptResolution) -> str:
    """Who answered, as people read it: ``alice (HUMAN)`` when the person gave a name, else
    what kind of answerer it was (HUMAN, AGENT_REVIEW, ...)."""
    if resolution.answered_by and resolution.resolved_by is ResolvedBy.HUMAN:
        return f"{resolution.answered_by} ({resolution.resolved_by.value}){via(resolution)}"
    return f"{resolution.resolved_by.value}{via(resolution)}"


def via(resolution: InterruptResolution) -> str:
    """`` via slack``: the door a person's answer came through; empty when unknown."""
    if resolution.door is None or resolution.resolved_by is not ResolvedBy.HUMAN:
        return ""
    return f" via {resolution.door.value}"
