"""A fork's question ids and its answer as flags (pure parts of ``app/forks.py`` and the CLI)."""

from __future__ import annotations

from agent_interrupts.app.cli.answer import answer_flags
from agent_interrupts.app.forks import fork_question_id
from agent_interrupts.models.interrupts import InterruptResolution


def test_a_question_keeps_its_number_under_the_forks_id() -> None:
    assert fork_question_id("run-1-fork-ab", "run-1-interrupt-3") == "run-1-fork-ab-interrupt-3"
    assert fork_question_id("f2", "run-1-fork-ab-interrupt-12") == "f2-interrupt-12"


def test_an_answer_reads_as_the_flags_that_give_it() -> None:
    answer = InterruptResolution.model_validate(
        {
            "selectedChoices": {"scope": "B"},
            "customInputs": {"how": 'a "quoted" way'},
            "confirmations": {"tests": False},
            "freeText": "go",
            "continueAt": "ORCHESTRATOR_COLLECTOR",
        }
    )
    assert answer_flags(answer) == (
        '--choice scope=B --custom how="a \\"quoted\\" way" --confirm tests=no --text "go" '
        "--continue-at ORCHESTRATOR_COLLECTOR"
    )
    assert answer_flags(InterruptResolution(stop_run="enough")) == '--stop "enough"'
