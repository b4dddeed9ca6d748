"""``fit_strings``: the one way a text too long for a payload is cut (the longest first, saying
how much each lost), used for outputs, requests, questions and the carried state."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agent_interrupts.models.limits import (
    CUT_FLOOR_CHARS,
    GRPC_MESSAGE_BYTES,
    MAX_PAYLOAD_BYTES,
    SERVER_PAYLOAD_BYTES,
    TASK_ROOM_BYTES,
    fit_strings,
    json_bytes,
)
from agent_interrupts.workflows.visibility import dev_server_args

CUT = re.compile(r"\.\.\. \[cut: (\d+) more characters\]$")

json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3000),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


def test_data_that_fits_is_returned_as_it_is() -> None:
    value = {"summary": "short", "items": ["a", "b"]}
    assert fit_strings(value, 1000) is value


def test_only_the_longest_strings_are_cut_and_each_says_so() -> None:
    value = {"summary": "s" * 50, "findings": ["f" * 20_000, "g" * 9_000], "n": 3}
    fitted = fit_strings(value, 10_000)
    assert json_bytes(fitted) <= 10_000
    assert fitted["summary"] == value["summary"] and fitted["n"] == 3
    first, second = fitted["findings"]
    assert first.index("... [cut") == second.index("... [cut"), "cut to one length"
    for text, original in ((first, value["findings"][0]), (second, value["findings"][1])):
        cut = CUT.search(text)
        assert cut is not None and text[: cut.start()] == original[: cut.start()]
        assert int(cut.group(1)) == len(original) - cut.start()


def test_multibyte_text_fits_in_bytes_not_characters() -> None:
    value = {"text": "é" * 30_000, "other": "ü" * 30_000}
    assert json_bytes(fit_strings(value, 20_000)) <= 20_000


def test_strings_are_never_cut_below_the_floor() -> None:
    value = [str(i) * CUT_FLOOR_CHARS for i in range(10)]  # 10 strings at the floor: too many
    assert fit_strings(value, 1000) is value


@given(json_data, st.integers(min_value=2000, max_value=40_000))
def test_the_shape_and_keys_stay_and_the_bytes_fit_when_they_can(value: Any, budget: int) -> None:
    fitted = fit_strings(value, budget)
    assert _shape(fitted) == _shape(value)
    floor = sum(  # at most 6 bytes a character (an escaped control character)
        min(len(s), CUT_FLOOR_CHARS) * 6 for s in _texts(value)
    )
    if json_bytes(value) <= budget:
        assert fitted is value
    elif json_bytes(value) - sum(len(s.encode()) for s in _texts(value)) + floor <= budget:
        assert json_bytes(fitted) <= budget


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def _texts(value: Any) -> list[str]:
    """The string values in ``value``, in any order."""
    found: list[str] = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return found


def test_the_servers_payload_limit_lets_the_workflow_refuse_3_mib_and_leaves_a_tasks_room() -> None:
    """An update of 3 MiB (its JSON and the payload's metadata) is under the servers' payload
    limit, so the worker may echo it in its refusal; the echo of the largest one it refuses and a
    task's own commands stay under the 4 MiB message limit over which the server ends the run."""
    three_mib = 3 * 1024 * 1024 + 1_024
    assert MAX_PAYLOAD_BYTES < three_mib < SERVER_PAYLOAD_BYTES
    assert SERVER_PAYLOAD_BYTES + TASK_ROOM_BYTES <= GRPC_MESSAGE_BYTES
    args = dev_server_args()
    flag = args.index(f"limit.blobSize.error={SERVER_PAYLOAD_BYTES}")
    assert args[flag - 1] == "--dynamic-config-value"
