"""Prompts that fit the model's context.

With ``LLM_CONTEXT_TOKENS`` set, an agent's prompt plus its output limit must fit: the optional
context goes first, oldest first (the recent blackboard entries, then the curated upstream
contexts, then the previous attempt's excerpt); the goal, the request and the output schema are
never dropped. What was dropped is recorded as a warning on the run. Token counts are estimated
(``CHARS_PER_TOKEN``), so set the limit a little below the server's real context. Without the
setting, the endpoint's own refusal (HTTP 400, context length) trims the same way and tries again.
"""

from __future__ import annotations

from typing import Any

from agent_interrupts.models.agent_call import AgentCall

CHARS_PER_TOKEN = 4
"""A tokenizer-free estimate, on the safe side for English prose and JSON."""


def estimated_tokens(messages: list[dict[str, Any]]) -> int:
    """About how many tokens ``messages`` take."""
    return prompt_chars(messages) // CHARS_PER_TOKEN + 1


def prompt_chars(messages: list[dict[str, Any]]) -> int:
    """The characters of ``messages``' contents."""
    return sum(len(str(m.get("content") or "")) for m in messages)


def without_oldest_optional(call: AgentCall) -> tuple[AgentCall, str] | None:
    """``call`` without its oldest piece of optional context, and what that piece was; None
    when only what is never dropped is left."""
    if call.recent:
        oldest = call.recent[0]
        return call.model_copy(update={"recent": call.recent[1:]}), f"entry {oldest.node_id}"
    if call.context:
        oldest_context = call.context[0]
        return (
            call.model_copy(update={"context": call.context[1:]}),
            f"context {oldest_context.context_id}",
        )
    if call.previous is not None:
        return call.model_copy(update={"previous": None}), "the previous attempt"
    return None
