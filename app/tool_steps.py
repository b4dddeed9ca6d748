"""A tool-using step's transcript and tool definitions, rebuilt for the export.

The step's last model call carries every earlier tool request (name and arguments); each round's
trace names its results by hash, and the workers kept the texts in the ``ToolResultStore``. The
export proves the rebuilt messages against the call's recorded fingerprint.
"""

from __future__ import annotations

from typing import Any

from agent_interrupts.activities.tools.catalog import tools_for
from agent_interrupts.activities.tools.results import ToolResultStore
from agent_interrupts.activities.tools.transcript import in_rounds, spent, tool_transcript
from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.team_build import team_of
from agent_interrupts.models.tools import ToolTrace


def offered_tools(call: AgentCall) -> list[dict[str, Any]] | None:
    """The ``tools`` the step's model calls were offered (none without a workspace)."""
    if call.workspace is None:
        return None
    writes = call.worktree is not None
    offered = tools_for(call.agent_type, writes=writes, team=team_of(call.team))
    return [t.schema for t in offered] or None


def transcripts(
    call: AgentCall,
    reply: AgentReply,
    traces: dict[tuple[int, str], ToolTrace],
    store: ToolResultStore,
) -> list[list[dict[str, Any]]]:
    """The transcripts the step's last model call may have had: without, then with, the notice
    of a spent budget (its limit is not recorded; it equals the calls spent). Empty when a
    result was not kept.

    The reply names each result the model saw (``tool_results``); a reply recorded before it
    did falls back to the rounds' traces, which hold each result as first computed."""
    requests = in_rounds(call.tool_requests)
    shas = list(reply.tool_results)
    if len(shas) != len(requests):
        found = [traces.get((r.round, r.call_id)) for r in requests]
        shas = [t.result_sha256 if t is not None else "" for t in found]
    texts = []
    for sha in shas:
        text = store.get(sha) if sha else None
        if text is None:
            return []
        texts.append(text)
    return [
        tool_transcript(requests, texts, None),
        tool_transcript(requests, texts, spent(requests)),
    ]
