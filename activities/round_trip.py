"""One round trip through the server, for a workflow that lets what arrives meanwhile come in
(a fan-out's agents whose replies arrive together share one question: ``fan_out_answers``)."""

from __future__ import annotations

from temporalio import activity


@activity.defn
async def round_trip() -> None:
    """Does nothing: its completion is the next workflow task, with everything that arrived
    while it was scheduled, run and completed (a timer would fire a second later at best)."""
