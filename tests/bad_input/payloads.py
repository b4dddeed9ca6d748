"""Hypothesis strategies for malformed calls: raw Temporal payloads that bypass the converter.

Every strategy draws a ``Junk``: the argument payloads of one signal, update or workflow start
(zero, one or several) and a short label that failure reports print instead of megabytes. The
documents are built so that none of them is a valid, acceptable input of its handler: a junk
resolution never answers the question, a junk start input never names a runnable goal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from temporalio.api.common.v1 import Payload
from temporalio.common import RawValue

from agent_interrupts.app.data_converter import DATA_CONVERTER
from agent_interrupts.models.interrupts import OptionKey
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType

CHOICE_ID = "approach"
CONFIRMATION_ID = "add-tests"
"""The ids of the offline model's HUMAN_REVIEW question (choice A/B/C/CUSTOM, one yes/no)."""
HUGE_MIN, HUGE_MAX = 1_000_000, 1_900_000
"""Bytes of a huge string: over any documented limit, under Temporal's 2 MB payload limit."""
BATCH_MIN, BATCH_MAX = 18, 24
"""Small malformed calls per batch; a batch may add one huge call."""

OPTION_KEYS = frozenset(k.value for k in OptionKey)
AGENT_NAMES = frozenset(a.value for a in AgentType)


@dataclass(frozen=True, repr=False)
class Junk:
    """One malformed call: its raw argument payloads and what kind of junk they are."""

    kind: str
    args: tuple[Payload, ...]
    name: str | None = None
    """Another signal name than the handler's (signals only)."""

    def raw(self) -> list[RawValue]:
        return [RawValue(p) for p in self.args]

    def reaches_handler(self, signal: str) -> bool:
        """Whether the SDK hands this call, sent as signal ``signal`` (unless it names another), to
        a handler: the dynamic one always; the named one declared with one RawValue
        (``one_raw_payload``) for one payload, and for other arities only when the worker's
        converter decodes every payload (else the SDK drops the signal with a warning in the log).
        """
        if (self.name or signal) != signal or len(self.args) == 1:
            return True
        try:
            DATA_CONVERTER.payload_converter.from_payloads(list(self.args))
        except Exception:
            return False
        return True

    @property
    def size(self) -> int:
        return sum(len(p.data) for p in self.args)

    def __repr__(self) -> str:
        parts = [
            f"{p.metadata.get('encoding', b'<none>').decode(errors='replace')}:{len(p.data)}B:"
            f"{p.data[:80]!r}"
            for p in self.args
        ]
        name = f" to {self.name!r}" if self.name is not None else ""
        return f"Junk({self.kind}{name}, {len(self.args)} args [{', '.join(parts)}])"


def json_payload(value: Any, *, ascii_only: bool = True) -> Payload:
    """``value`` as ``json/plain``; lone surrogates stay (escaped, or as invalid UTF-8)."""
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)
    return Payload(metadata={"encoding": b"json/plain"}, data=text.encode("utf-8", "surrogatepass"))


# -- building blocks ---------------------------------------------------------------------------

any_char = st.characters(codec=None, exclude_categories=())
"""Every code point, lone surrogates, controls and unassigned ones included."""
nasty_text = st.one_of(
    st.text(any_char, max_size=24),
    st.sampled_from(
        [
            "",
            " ",
            "\x00",
            "\u202e\u0000\ufeff",
            "\ud800",
            "\U0001f4a5" * 5,
            "e\u0301" * 20,
            "{{ 7 * 7 }}",
            "{% raw %}",
            "../../etc/passwd",
            "A\nB",
        ]
    ),
)
json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**64, -(2**63) - 1, 10**40]),
    st.floats(allow_nan=True, allow_infinity=True),
    nasty_text,
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(nasty_text, inner, max_size=4)
    ),
    max_leaves=8,
)
not_a_dict = json_value.filter(lambda v: not isinstance(v, dict))
odd_id = nasty_text.filter(lambda s: s not in (CHOICE_ID, CONFIRMATION_ID, "")).map(
    lambda s: f"zz{s}"
)
"""An id that is none of the question's ids (unicode, controls, surrogates...)."""


@st.composite
def huge_text(draw: st.DrawFn) -> str:
    """A 1-1.9 MB string (as JSON bytes) repeated from a short drawn seed."""
    seed = draw(st.text(any_char, min_size=1, max_size=4))
    per_seed = len(json.dumps(seed, ensure_ascii=True)) - 2
    return seed * (draw(st.integers(HUGE_MIN, HUGE_MAX)) // per_seed)


def _deep(depth: int, brace: bool) -> bytes:
    if brace:
        return b'{"a":' * depth + b"1" + b"}" * depth
    return b"[" * depth + b"]" * depth


raw_document = st.one_of(
    st.builds(_deep, st.integers(64, 20_000), st.booleans()),
    st.binary(max_size=48),
    st.sampled_from(
        [
            b"",
            b"{",
            b'{"a": 1}garbage',
            b"\xff\xfe\x00",
            b"\xef\xbb\xbf{}",
            b"NaN",
            b"1e400",
            b"-0",
            b"[1,2,]",
            b'"\\ud800"',
            b'{"selectedChoices": 1, "selectedChoices": 2}',
            b"null",
        ]
    ),
)
"""Bytes that are not JSON, or JSON no handler can take (too deep, wrong type, duplicates)."""
bad_encoding = st.builds(
    lambda encoding, data, message_type: Payload(
        metadata={
            **({"encoding": encoding} if encoding is not None else {}),
            **({"messageType": message_type} if message_type is not None else {}),
        },
        data=data,
    ),
    st.sampled_from(
        [b"json/plain", b"binary/plain", b"binary/null", b"json/protobuf", b"x-unknown", b"", None]
    ),
    raw_document,
    st.one_of(st.none(), st.sampled_from([b"temporal.api.common.v1.Payload", b"nope.Nope"])),
)
"""Payloads whose bytes or metadata no converter decodes into a model."""


def _doc(kind: str, documents: st.SearchStrategy[Any]) -> st.SearchStrategy[Junk]:
    return st.builds(
        lambda doc, ascii_only: Junk(kind, (json_payload(doc, ascii_only=ascii_only),)),
        documents,
        st.booleans(),
    )


def junk_calls(near_valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Junk]:
    """Any arity, any encoding, wrong types, too deep, and near-valid but invalid documents."""
    one = st.one_of(
        bad_encoding, json_value.map(lambda v: json_payload(v)), near_valid.map(json_payload)
    )
    return st.one_of(
        st.just(Junk("no-argument", ())),
        st.lists(one, min_size=2, max_size=3).map(lambda ps: Junk("extra-arguments", tuple(ps))),
        bad_encoding.map(lambda p: Junk("bad-encoding", (p,))),
        _doc("wrong-type", not_a_dict),
        _doc("near-valid", near_valid),
        _doc("near-valid", near_valid),
    )


def huge_calls(huge_document: Callable[[str], st.SearchStrategy[Any]]) -> st.SearchStrategy[Junk]:
    """One 1-1.9 MB document: a huge value where the handler expects a short one."""

    @st.composite
    def huge(draw: st.DrawFn) -> Junk:  # composite: reports show the Junk label, not megabytes
        return Junk("huge", (json_payload(draw(huge_text().flatmap(huge_document))),))

    return huge()


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def unknown_signals(calls: st.SearchStrategy[Junk]) -> st.SearchStrategy[Junk]:
    """``calls`` sent under a name no handler declares (dynamic handlers take every name)."""
    return st.builds(
        lambda junk, name: Junk("unknown-signal", junk.args, name),
        calls,
        st.one_of(
            nasty_text.filter(_utf8),  # a name travels as a protobuf string: UTF-8 only
            st.sampled_from(["resolve", "interrupt_request_event", "status"]),
        ),
    )


def batches(
    calls: st.SearchStrategy[Junk], huge: st.SearchStrategy[Junk]
) -> st.SearchStrategy[list[Junk]]:
    """18-24 malformed calls, and at most one huge one (history stays far below its limit)."""
    return st.tuples(
        st.lists(calls, min_size=BATCH_MIN, max_size=BATCH_MAX), st.one_of(st.none(), huge)
    ).map(lambda t: [*t[0], *([t[1]] if t[1] is not None else [])])


# -- resolve / resolve_validated (InterruptResolution) -----------------------------------------

VALID_ANSWER: dict[str, Any] = {
    "selectedChoices": {CHOICE_ID: "B"},
    "confirmations": {CONFIRMATION_ID: True},
}


def _answer(**changes: Any) -> dict[str, Any]:
    return {**VALID_ANSWER, **changes}


bad_option = nasty_text.filter(lambda s: s not in OPTION_KEYS)
wordless_text = nasty_text.filter(lambda s: not any(c.isalnum() for c in s))
"""Free text with no word in it: it answers nothing (a worded one alone may answer, US23)."""
bad_resolution = st.one_of(
    st.builds(lambda k, v: _answer(**{k: v}), odd_id, json_value),
    st.builds(lambda o: _answer(selectedChoices={CHOICE_ID: o}), bad_option),
    st.builds(lambda i: _answer(selectedChoices={CHOICE_ID: "A", i: "A"}), odd_id),
    st.builds(
        lambda i, v: _answer(confirmations={CONFIRMATION_ID: True, i: v}), odd_id, json_value
    ),
    st.builds(lambda v: _answer(selectedChoices=v), not_a_dict),
    st.builds(lambda v: _answer(confirmations={CONFIRMATION_ID: v}), st.lists(json_leaf)),
    st.builds(lambda t: _answer(selectedChoices={CHOICE_ID: "CUSTOM"}, freeText=t), nasty_text),
    st.builds(lambda t: {"freeText": t, "resolvedBy": "HUMAN"}, wordless_text),
    st.builds(lambda r: _answer(resolvedBy=r, selectedChoices={}), nasty_text),
)
"""Resolutions that do not answer the question (valid JSON, some valid-shaped)."""


def huge_resolution(text: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from(
        [
            _answer(freeText=text),
            _answer(selectedChoices={CHOICE_ID: "CUSTOM"}, customInputs={CHOICE_ID: text}),
            _answer(selectedChoices={CHOICE_ID: "A", text: "A"}),
            _answer(confirmations={CONFIRMATION_ID: True, text: True}),
            _answer(selectedChoices={CHOICE_ID: text}),
        ]
    )


# -- interrupt_request_event / send_interrupt_event (InterruptRequestEvent) --------------------


def _event(**fields: Any) -> dict[str, Any]:
    return {
        "eventId": "fuzz-event",
        "sourceAgentType": AgentType.PLANNING_ORCHESTRATOR.value,
        "reason": "fuzz",
        **fields,
    }


agent_name = st.one_of(st.sampled_from(sorted(AGENT_NAMES)), nasty_text)
bad_event = st.one_of(
    st.builds(lambda k, v: _event(**{k: v}), odd_id, json_value),
    st.builds(lambda a: _event(sourceAgentType=a), agent_name),
    st.builds(lambda a: _event(rerouteToAgentType=a), agent_name),
    st.builds(lambda i, n: _event(eventId=i, nodeId=n), nasty_text, nasty_text),
    st.builds(lambda r, c: _event(reason=r, contextForDecision=c), nasty_text, json_value),
    st.builds(lambda c: _event(choices=c), st.lists(json_value, max_size=5)),
    st.builds(lambda c: _event(confirmationItems=c), json_value),
    st.builds(lambda t, k: _event(timestamp=t, interruptType=k), json_value, nasty_text),
    st.builds(lambda v: {k: v for k in ("eventId", "sourceAgentType", "reason")}, json_value),
)
"""Events with wrong fields; the valid-shaped ones arrive while nothing can take them."""


def huge_event(text: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from(
        [
            _event(eventId=text),
            _event(nodeId=text),
            _event(reason=text),
            _event(contextForDecision=text),
            _event(choices=[{"label": text, "value": "x"}]),
            _event(sourceAgentType=text),
        ]
    )


# -- the start input (OrchestratorInput) --------------------------------------------------------


def _upper_bound(field: str) -> int:
    """The documented maximum of an OrchestratorInput field (its ``le`` constraint)."""
    bounds = [m.le for m in OrchestratorInput.model_fields[field].metadata if hasattr(m, "le")]
    assert bounds, f"OrchestratorInput.{field} has no upper bound"
    return int(bounds[0])


def _start(**fields: Any) -> dict[str, Any]:
    return {"goal": "fuzz the door", **fields}


not_an_int = st.one_of(
    st.none(), st.lists(json_leaf, max_size=2), st.floats(0.1, 0.9), st.sampled_from(["x", "1.5"])
)
bad_start = st.one_of(
    st.builds(lambda k, v: _start(**{k: v}), odd_id, json_value),
    st.builds(lambda g: {"goal": g}, json_value.filter(lambda v: not isinstance(v, str))),
    st.builds(lambda g: {"goal": g}, st.text(" \t\n\r\u3000", max_size=8)),
    st.builds(lambda v: {"maxSteps": 3, "notGoal": v}, json_value),
    st.builds(lambda n: _start(maxSteps=n), st.one_of(st.integers(max_value=0), not_an_int)),
    st.builds(lambda n: _start(maxSteps=n), st.integers(min_value=_upper_bound("max_steps") + 1)),
    st.builds(lambda n: _start(interruptTimeoutSeconds=n), st.integers(max_value=0)),
    st.builds(lambda n: _start(continueAsNewEvery=n), st.integers(max_value=0)),
    st.builds(lambda o: _start(onInterruptTimeout=o), nasty_text),
    st.builds(lambda c: _start(carriedState=c), not_a_dict),
    st.builds(lambda n: _start(carriedState={"goal": "fuzz", "maxSteps": n}), st.integers(1, 5)),
)
"""Start inputs that cannot run: wrong types, out-of-range numbers, blank goals, bad state."""


def huge_start(text: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from([{"goal": text}, _start(**{"x": text})])


# -- InterruptWorkflow's start input (InterruptInput, normally built by the orchestrator) -------


def _interrupt_input(request: Any) -> dict[str, Any]:
    return {
        "orchestratorId": "fuzz",
        "goal": "fuzz the door",
        "request": request,
        "origin": AgentType.REVIEW_AGENT.value,
        "originNodeId": "review-agent-001",
        "originRequest": {},
    }


bad_interrupt_input = st.one_of(
    bad_start,
    st.builds(_interrupt_input, not_a_dict),
    st.builds(
        lambda r: _interrupt_input({"type": "HUMAN_REVIEW", **r}),
        st.dictionaries(odd_id, json_value),
    ),
)
"""Interrupt start inputs without a usable question (a valid one would wait a day)."""


def huge_interrupt_input(text: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from([_interrupt_input({"reason": text}), {"goal": text}])
