"""A supervisor's accepted events, by the node each waits for (handler US3, handler FR-008).

An accepted event is a promise that a question follows: it waits at the node it reached until a
question takes it, moving with the work as it does (a running dispatched agent's event goes on
to its dispatch node's question; one that came after the node's question started goes on to the
node that asks next). ``SupervisorEvents`` is the one place that stores, reads, passes on,
consumes and drops them; the run's state holds them (``OrchestratorState.stored_events``) so
they are carried across continue-as-new.
"""

from __future__ import annotations

from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.limits import MAX_REMEMBERED_EVENT_IDS
from agent_interrupts.models.state import OrchestratorState


class SupervisorEvents:
    """The events a run holds, by node id, and the ids of those it took."""

    def __init__(self, state: OrchestratorState) -> None:
        self._state = state

    def seen(self, event_id: str) -> bool:
        """Whether an event with this id was taken already (a supervisor's retry)."""
        return event_id in self._state.processed_event_ids

    def waiting_at(self, node_id: str) -> InterruptRequestEvent | None:
        """The event that waits for ``node_id``'s question, if any."""
        return self._state.stored_events.get(node_id)

    def accept(self, node_id: str, event: InterruptRequestEvent) -> None:
        """Take ``event`` for ``node_id``; its id is remembered (the newest
        ``MAX_REMEMBERED_EVENT_IDS``) so that a retry is not taken twice."""
        state = self._state
        state.stored_events[node_id] = event
        state.processed_event_ids.append(event.event_id)
        del state.processed_event_ids[:-MAX_REMEMBERED_EVENT_IDS]

    def also_at(self, node_id: str, event: InterruptRequestEvent) -> None:
        """``event`` waits at ``node_id`` too, unless another one waits there already (an event
        on a dispatch node, for each of its running agents; an agent's, for its node)."""
        self._state.stored_events.setdefault(node_id, event)

    def take(self, node_id: str) -> InterruptRequestEvent | None:
        """The event waiting at ``node_id``, which no longer waits: a question consumes it."""
        return self._state.stored_events.pop(node_id, None)

    def move(self, from_node: str, to_node: str) -> InterruptRequestEvent | None:
        """The event waiting at ``from_node`` now waits at ``to_node``; returns it."""
        event = self.take(from_node)
        if event is not None:
            self._state.stored_events[to_node] = event
        return event
