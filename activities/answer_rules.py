"""Who may answer a question: the worker's answer rules (``AGENTS_ANSWER_RULES``), read once at
its start, asked by the orchestrator when a question starts."""

from __future__ import annotations

from temporalio import activity

from agent_interrupts.models.answer_rules import Answerers, AnswerRules, RulesQuestion


class AnswerRuleActivities:
    """``answerers``: a question's share of the worker's answer rules."""

    def __init__(self, rules: AnswerRules | None = None) -> None:
        self._rules = rules or AnswerRules()

    @activity.defn(name="answerers")
    async def answerers(self, question: RulesQuestion) -> Answerers | None:
        """Who may answer ``question``; None: anybody (no rule covers it)."""
        return self._rules.answerers(question.team, question.agents, question.ids)
