"""The request in an agent's user message: written as ``json.dumps(indent=2,
ensure_ascii=False)`` writes it, byte for byte, by the faster encoder when it can."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_interrupts.activities.contributors import default_registry
from agent_interrupts.activities.contributors.base import PromptContext
from agent_interrupts.activities.prompting import PromptRenderer, request_json

TRICKY = 'quote " backslash \\ newline \n tab \t cr \r bs \b ff \f nul \x00 us \x1f del \x7f '
TRICKY += "é ü 漢字 emoji 😀 line sep \u2028 para \u2029 bom \ufeff surrogate-free {{ x }}"

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(min_value=-1e16, max_value=1e16)
    | st.floats(min_value=-1e-3, max_value=1e-3)
    | st.integers(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_json_value_is_written_as_json_dumps_writes_it(value: object) -> None:
    assert request_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_tricky_text_nested_and_empty_containers_are_written_alike() -> None:
    value = {
        TRICKY: [TRICKY, {}, [], {"a": []}, None, True, False, 0, -1, 2**63 - 1, -(2**63)],
        "nested": {"deeper": {"deepest": [{"x": TRICKY}]}},
        "": "",
    }
    assert request_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_floats_of_every_size_and_big_ints_are_written_alike() -> None:
    floats = [0.0, -0.0, 1.0, 0.1, 0.9375, 2.5, 1e-4, 9.999e-5, 1e15, 1e15 - 1, 1e16, 1e-05]
    for value in ({"x": floats}, {"big": 2**64}, {"small": -(2**63) - 1}, [1.7976931348623157e308]):
        assert request_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


class _Extra:
    name = "extra"
    title = "Extra"
    order = 999
    applies_to = None

    def applies(self, agent: str, team: object) -> bool:
        return True

    def contribute(self, ctx: PromptContext) -> str:
        return "extra"


def test_the_template_version_is_computed_once_and_again_after_a_new_contributor() -> None:
    registry = default_registry()
    renderer = PromptRenderer(registry=registry)
    first = renderer.template_version
    assert renderer._version is not None and renderer.template_version is first
    registry.register(_Extra())
    assert renderer.template_version != first
    assert renderer.template_version == PromptRenderer(registry=registry).template_version
