"""Smoke test for the interrupt round-trip bench: it runs and measures something sane.

tiktoken and bpe-openai are only in the ``bench`` extra: nothing here imports them, and the
bench counts word and symbol pieces when neither is there.
"""

from __future__ import annotations

import pytest
from temporalio.client import Client

from agent_interrupts.activities.route_filter import ROUTE_OF
from bench.interrupt_round_trip import measure, measure_schema_sizes, report
from bench.tokens import counter


async def test_bench_measures_both_medians_and_every_schema(client: Client) -> None:
    result = await measure(client, runs=1, bare=2, interrupt_warmups=0, bare_warmups=0, gap=0)

    assert len(result.interrupt_runs) == 1
    assert len(result.bare_seconds) == len(result.bare_child_seconds) == 2
    assert result.interrupt_median > 0
    assert result.bare_median > 0
    assert result.bare_child_median > 0
    assert all(r.next_activity == "run_agent" for r in result.interrupt_runs)
    assert all("translate_resolution" in dict(r.hops) for r in result.interrupt_runs)
    assert [r.origin for r in result.schema.rows] == list(ROUTE_OF)
    assert len(result.schema.rows) == 14
    for row in result.schema.rows:
        assert 0 < row.filtered < row.unfiltered, row
    text = report(result)
    assert "0 s gap before each measured run" in text
    assert "ratio interrupt round trip / bare signal round trip:" in text
    assert "ratio interrupt round trip / bare child workflow:" in text
    assert "-> translate_resolution scheduled:" in text
    assert "mean ratio filtered / unfiltered:" in text


@pytest.mark.usefixtures("no_tokenizer")
def test_schema_sizes_fall_back_to_word_and_symbol_pieces_without_a_tokenizer() -> None:
    count, unit = counter()
    sizes = measure_schema_sizes()

    assert unit.startswith("word and symbol pieces")
    assert count('{"a":[1,2]}') == 11, '{ " a " : [ 1 , 2 ] }'
    assert sizes.unit == unit
    assert all(0 < r.filtered < r.unfiltered for r in sizes.rows)
    assert 0 < sizes.mean_ratio < 1


def test_schema_sizes_are_counted_on_compact_json_by_a_tokenizer() -> None:
    def characters(text: str) -> int:
        return len(text)

    sizes = measure_schema_sizes((characters, "characters"))

    assert sizes.unit == "characters"
    assert all(0 < r.filtered < r.unfiltered for r in sizes.rows)
