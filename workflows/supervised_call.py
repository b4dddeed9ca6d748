"""Agent activities a supervisor can redirect: cancel the running call, run it again with the
event's message, and never act on a result that an event superseded (handler US3, handler FR-008).

An agent step with tools is a loop of model calls, one activity each (``activities/tools/loop.py``
says why): a reply asking for tool calls adds them to the call and runs the next round.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityHandle

from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.policies import (
    AGENT_ACTIVITY,
)
from agent_interrupts.models.tools import ToolTrace
from agent_interrupts.workflows.event_rules import supervisor_message

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.agents import AgentActivities


class SupervisedCalls:
    """The agent calls in flight, by node id, so an event can cancel the one it targets."""

    def __init__(self) -> None:
        self._inflight: dict[str, ActivityHandle[AgentReply]] = {}
        self._cancelled_for_event: set[str] = set()

    def running(self) -> list[str]:
        """The node ids whose calls are in flight, in the order they started."""
        return [node_id for node_id, call in self._inflight.items() if not call.done()]

    def redirect(self, node_id: str) -> None:
        """Cancel ``node_id``'s running call; it runs again with the stored event's message."""
        running = self._inflight.get(node_id)
        if running is not None and not running.done():
            self._cancelled_for_event.add(node_id)
            running.cancel()

    async def run(
        self, call: AgentCall, stored_event: Callable[[], InterruptRequestEvent | None]
    ) -> AgentReply:
        """The call's reply, once no event superseded it.

        Raises the activity's failure, and the run's own cancellation, unchanged: a cancellation
        of the workflow is never taken for an event's.
        """
        node_id = call.node_id
        trace: list[ToolTrace] = []
        while True:
            event = stored_event()
            call.user_messages = [supervisor_message(event)] if event else []
            rounds = (
                f" (tool round {call.tool_requests[-1].round + 1})" if call.tool_requests else ""
            )
            handle = workflow.start_activity_method(
                AgentActivities.run_agent,
                call,
                **AGENT_ACTIVITY,
                summary=f"{call.agent_type} {node_id}{rounds}"
                + (" (asked to interrupt)" if event else ""),
            )
            self._inflight[node_id] = handle
            try:
                reply = await handle
            except (ActivityError, asyncio.CancelledError):
                redirected = node_id in self._cancelled_for_event
                self._cancelled_for_event.discard(node_id)
                if redirected and workflow.cancellation_reason() is None:
                    continue  # cancelled for a supervisor's event: run again with its message
                raise  # a failure, or the run itself being cancelled
            finally:
                self._inflight.pop(node_id, None)
            self._cancelled_for_event.discard(node_id)
            trace = list({t.call_id: t for t in [*trace, *reply.tool_trace]}.values())
            if reply.tool_requests:  # the model asked for tools: the next round runs them
                call.tool_requests = [*call.tool_requests, *reply.tool_requests]
                continue
            if stored_event() is not event:
                continue  # the event arrived as the call finished: its result is superseded
            return reply.model_copy(update={"tool_trace": trace})
