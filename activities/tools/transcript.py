"""A tool-using step's transcript: the messages its earlier rounds add to the prompt.

Pure, so the agent activity (which runs the tools again) and the export (which reads their
results back from the ``ToolResultStore``) build the very same messages.
"""

from __future__ import annotations

from typing import Any

from agent_interrupts.models.tools import ToolRequest

BUDGET_SPENT = (
    "The tool budget of this step ({limit} calls) is spent: do not call tools again. Answer now "
    "with your structured output, using what you found."
)


def in_rounds(requests: list[ToolRequest]) -> list[ToolRequest]:
    """``requests`` in the order they ran: by round, then as the model listed them."""
    return sorted(requests, key=lambda r: r.round)


def spent(requests: list[ToolRequest]) -> int:
    """Tool calls that counted against the step's budget."""
    return sum(not r.over_budget for r in requests)


def tool_transcript(
    requests: list[ToolRequest], texts: list[str], budget: int | None
) -> list[dict[str, Any]]:
    """Each round's assistant tool calls and their results (``texts[i]`` answers the i-th of
    ``in_rounds(requests)``), then the budget notice when ``budget`` calls were spent."""
    messages: list[dict[str, Any]] = []
    ordered = in_rounds(requests)
    for index, request in enumerate(ordered):
        if index == 0 or ordered[index - 1].round != request.round:
            batch = [r for r in ordered if r.round == request.round]
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": r.call_id,
                            "type": "function",
                            "function": {"name": r.tool, "arguments": r.arguments},
                        }
                        for r in batch
                    ],
                }
            )
        messages.append({"role": "tool", "tool_call_id": request.call_id, "content": texts[index]})
    if requests and budget is not None and spent(requests) >= budget:
        messages.append({"role": "user", "content": BUDGET_SPENT.format(limit=budget)})
    return messages
