"""Answer rules: which rules cover a question, who they let answer, and the file's refusals."""

from __future__ import annotations

import pytest

from agent_interrupts.models.answer_rules import (
    MAX_RULES_FILE_BYTES,
    Answerers,
    rules_from_toml,
)
from agent_interrupts.models.errors import AnswerRulesError
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import Door, InterruptResolution
from tests.support.interrupts import question_input

RULES = """
[groups]
leads = ["ada", "grace"]
ops = ["linus"]

[[rules]]
team = "software"
answer = ["leads"]

[[rules]]
team = "software"
agent = "MERGER_AGENT"
answer = ["ops", "ada"]

[[rules]]
agent = "TICKET_AGENT"
question = "deploy"
answer = ["margaret"]

[[rules]]
question = "deploy"
agent = "REVIEW_AGENT"
answer = ["ken"]
"""


def test_the_most_specific_rules_that_cover_a_question_decide() -> None:
    rules = rules_from_toml(RULES, "rules.toml")
    anyone = rules.answerers("incident-response", ["TRIAGE"], ["severity"])
    assert anyone is None, "no rule covers another team's question: anybody answers"
    team = rules.answerers("software", ["ORCHESTRATOR"], ["approach"])
    assert team == Answerers(people=["ada", "grace"], groups=["leads"])
    merger = rules.answerers("software", ["MERGER_AGENT"], ["approach"])
    assert merger == Answerers(people=["linus", "ada"], groups=["ops"])
    assert merger.describe() == "linus, ada (group ops)"


def test_a_dispatched_agents_part_matches_by_its_own_agent_and_id() -> None:
    rules = rules_from_toml(RULES, "rules.toml")
    lifted = rules.answerers(
        "software", ["TICKET_DISPATCH", "TICKET_AGENT"], ["ticket-agent-2/deploy", "approach"]
    )
    assert lifted == Answerers(people=["margaret"])
    other_id = rules.answerers("software", ["TICKET_DISPATCH", "TICKET_AGENT"], ["undeploy"])
    assert other_id == Answerers(people=["ada", "grace"], groups=["leads"]), "the team's rule"


def test_equally_specific_rules_join_their_people() -> None:
    rules = rules_from_toml(RULES, "rules.toml")
    both = rules.answerers("software", ["TICKET_AGENT", "REVIEW_AGENT"], ["a/deploy", "b/deploy"])
    assert both == Answerers(people=["margaret", "ken"])


def test_a_refusal_names_who_may_answer_and_how() -> None:
    answerers = Answerers(people=["ada", "grace"], groups=["leads"])
    assert answerers.refusal("ada") is None
    assert answerers.refusal("bob") == (
        "'bob' may not answer this question: only ada, grace (group leads) may (answer as one "
        "of them: the CLI's --as, the SDK's answered_by, the inbox's named token)"
    )
    at_a_door = answerers.refusal("bob", how=False)
    assert at_a_door == "'bob' may not answer this question: only ada, grace (group leads) may"
    nameless = answerers.refusal(None)
    assert nameless is not None and nameless.startswith("an answer without a name may not")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("rules = [", "not TOML"),
        ("[[rules]]\nanswer = []\n", "rules.0.answer"),
        ('[[rules]]\nanswer = ["a"]\nwho = "b"\n', "rules.0.who"),
        ('[groups]\na = ["b"]\nc = ["a"]\n', "group 'c' names group 'a'"),
        ("[groups]\na = []\n", "group 'a' must name 1 to 100 people"),
        ('[[rules]]\nanswer = ["a\\nb"]\n', "a name is one line"),
        ("x = 1\n" * (MAX_RULES_FILE_BYTES // 6 + 1), "split it"),
    ],
)
def test_a_rules_file_that_cannot_be_read_is_refused_in_one_line(text: str, problem: str) -> None:
    with pytest.raises(AnswerRulesError) as caught:
        rules_from_toml(text, "AGENTS_ANSWER_RULES 'r.toml'")
    message = str(caught.value)
    assert message.startswith("AGENTS_ANSWER_RULES 'r.toml': ") and problem in message
    assert "\n" not in message


def test_what_anybody_may_answer_keeps_its_wire_form() -> None:
    """Unset, the new keys stay out of the JSON: inputs, statuses and answers recorded or read by
    an earlier version look as they did."""
    job = question_input()
    assert "answerers" not in job.to_wire()
    restricted = job.model_copy(update={"answerers": Answerers(people=["ada"])})
    assert restricted.to_wire()["answerers"] == {"people": ["ada"], "groups": []}
    assert InterruptInput.model_validate(restricted.to_wire()) == restricted
    assert "door" not in InterruptResolution().to_wire()
    assert InterruptResolution(door=Door.SLACK).to_wire()["door"] == "slack"
