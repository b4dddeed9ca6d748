"""A long model call's timeouts and retry policy are one typed config (``AGENT_ACTIVITY``),
merged into each call: no call of ``workflows/`` repeats them one by one."""

from __future__ import annotations

import ast
from pathlib import Path

import agent_interrupts.workflows as workflows_package
from agent_interrupts.models.policies import (
    AGENT_ACTIVITY,
    AGENT_HEARTBEAT_TIMEOUT,
    AGENT_RETRY,
    AGENT_START_TO_CLOSE,
)

WORKFLOWS = Path(workflows_package.__file__).resolve().parent
TRIPLE = {"AGENT_START_TO_CLOSE", "AGENT_HEARTBEAT_TIMEOUT", "AGENT_RETRY"}


def test_the_agent_activity_config_holds_the_agent_timeouts_and_retries() -> None:
    assert AGENT_ACTIVITY == {
        "start_to_close_timeout": AGENT_START_TO_CLOSE,
        "heartbeat_timeout": AGENT_HEARTBEAT_TIMEOUT,
        "retry_policy": AGENT_RETRY,
    }


def test_workflow_calls_merge_the_config_instead_of_spelling_it_out() -> None:
    spelled: list[str] = []
    merged = 0
    for module in sorted(WORKFLOWS.glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if not isinstance(node, ast.Call):
                continue
            named = {ast.unparse(k.value) for k in node.keywords} & TRIPLE
            if len(named) > 1:  # one of them alone is another activity's own choice
                spelled.append(f"{module.name}:{node.lineno} {', '.join(sorted(named))}")
            merged += sum(
                k.arg is None and ast.unparse(k.value) == "AGENT_ACTIVITY" for k in node.keywords
            )
    assert not spelled, "merge **AGENT_ACTIVITY (models/policies.py) instead: " + "; ".join(spelled)
    assert merged == 4  # the agent call, the translation, the review and the shadow answer
