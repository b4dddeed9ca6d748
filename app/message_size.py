"""Refuse a message too large for the workflow before it is sent.

Temporal's update protocol echoes an update's request in the worker's answer, so an update over the
server's 2 MiB payload limit fails the workflow task that would refuse it (twice, then the server
drops it): for those seconds the run answers no query and takes no other answer. Our doors (the
SDK, the CLI, the inbox) measure the payload the data converter would send and refuse it here, in
one line; the workflow refuses anything over ``MAX_PAYLOAD_BYTES`` that other clients send.
"""

from __future__ import annotations

from temporalio.contrib.pydantic import pydantic_data_converter

from agent_interrupts.models.limits import MAX_PAYLOAD_BYTES


def oversize_problem(what: str, value: object) -> str | None:
    """One line saying ``value`` is over ``MAX_PAYLOAD_BYTES`` as a payload, else None."""
    size = len(pydantic_data_converter.payload_converter.to_payloads([value])[0].data)
    if size <= MAX_PAYLOAD_BYTES:
        return None
    return (
        f"{what} is {size} bytes as JSON, over the workflow's {MAX_PAYLOAD_BYTES} byte limit; "
        "send less text (not sent)"
    )
