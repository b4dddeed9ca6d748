"""The plans of the commands besides ``run``: each decides from the parsed flags and the
settings (pure), and the command's executor carries it out."""

from __future__ import annotations

import pytest

from agent_interrupts.app.cli.answer import ResolvePlan, plan_resolve
from agent_interrupts.app.cli.export import export_plan, stats_rows
from agent_interrupts.app.cli.main import parser_for
from agent_interrupts.app.cli.stack import env_uses_configured, up_refusal
from agent_interrupts.app.stats import Line


def resolve_args(*flags: str):
    argv = ["resolve", "orchestrator-1-interrupt-1", *flags]
    return parser_for(argv).parse_args(argv)


def test_resolve_without_answers_asks_in_a_terminal_else_shows_the_question() -> None:
    assert plan_resolve(resolve_args(), True) == ResolvePlan(False, ask=True, show=True)
    assert plan_resolve(resolve_args(), False) == ResolvePlan(False, ask=False, show=True)


@pytest.mark.parametrize(
    "flags",
    [
        ["--choice", "q=A"],
        ["--custom", "q=words"],
        ["--confirm", "q=yes"],
        ["--text", "go on"],
        ["--stop", "enough"],
        ["--continue-at", "REVIEW_AGENT"],
    ],
)
def test_resolve_with_an_answer_never_asks_and_shows_only_on_request(flags: list[str]) -> None:
    assert plan_resolve(resolve_args(*flags), True) == ResolvePlan(True, ask=False, show=False)
    shown = plan_resolve(resolve_args(*flags, "--show"), True)
    assert shown == ResolvePlan(True, ask=False, show=True)


def test_up_refuses_a_configured_server_naming_both_settings() -> None:
    assert up_refusal(None, 7233, local=True) is None
    refusal = up_refusal("temporal.example:7233", 7300, local=False)
    assert refusal is not None
    assert "TEMPORAL_ADDRESS is temporal.example:7233" in refusal and "than 7300" in refusal


def test_env_names_a_configured_server_else_the_local_stack() -> None:
    assert env_uses_configured("temporal.example:7233", local=False)
    assert not env_uses_configured("127.0.0.1:7233", local=True)
    assert not env_uses_configured(None, local=False)


def test_export_checks_or_writes_and_says_which_flag_is_missing() -> None:
    assert export_plan("native.jsonl", None) == "check"
    assert export_plan("native.jsonl", "out.jsonl") == "check"
    assert export_plan(None, "out.jsonl") == "export"
    with pytest.raises(ValueError, match="give --out FILE"):
        export_plan(None, None)


def test_stats_rows_put_each_rate_beside_its_target_in_words() -> None:
    rows = stats_rows(
        [
            Line("answered within 2 s", "90%", ">= 80%", True, "questions answered fast"),
            Line("handled alone", "1 of 4", "< 2 s each", False, short=3),
            Line("runs", "4"),
        ]
    )
    assert rows[0].split() == [
        "answered",
        "within",
        "2",
        "s",
        "90%",
        "target:",
        "at",
        "least",
        "80%",
        "ok",
    ]
    assert rows[1] == "    questions answered fast"
    assert "target: under 2 s each" in rows[2] and rows[2].endswith("below target (3 short)")
    assert rows[3].split() == ["runs", "4"]
