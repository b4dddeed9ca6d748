"""Refuse a message too large for the workflow before it is sent.

Temporal's update protocol echoes an update's request in the worker's answer, and the worker fails
a workflow task with a payload over the server's payload limit (TMPRL1103): an update over that
limit can be neither accepted nor refused, and its workflow tasks fail until the server drops it
(about 20 s, during which the run answers no query). The servers we start raise that limit to
``SERVER_PAYLOAD_BYTES``, so the workflow refuses in one line what other clients send under it;
over it only the sender can check. Our doors (the SDK, the CLI, the inbox) measure the payload the
data converter would send and refuse anything over ``MAX_PAYLOAD_BYTES`` here, in one line, for
updates and signals alike. When the client's converter encrypts (``AGENTS_ENCRYPTION_KEYS``), the
payload sent is the sealed one, about 100 bytes more than its JSON (a nonce, the tag, the inner
payload's framing, the key id): that is what is measured then.
"""

from __future__ import annotations

from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import PayloadCodec
from temporalio.service import RPCError

from agent_interrupts.app.codec import EncryptionCodec
from agent_interrupts.models.limits import MAX_PAYLOAD_BYTES, SERVER_PAYLOAD_BYTES


def oversize_problem(what: str, value: object, codec: PayloadCodec | None = None) -> str | None:
    """One line saying ``value`` is over ``MAX_PAYLOAD_BYTES`` as a payload, else None. With
    ``codec`` (the client's ``data_converter.payload_codec``) an encrypting one, the sealed
    payload is measured (every byte of it), not its JSON alone."""
    payload = pydantic_data_converter.payload_converter.to_payloads([value])[0]
    size, how = len(payload.data), "as JSON"
    if isinstance(codec, EncryptionCodec) and codec.ring is not None:
        size = codec.encode_now([payload])[0].ByteSize()
        how = "encrypted (its JSON and the encryption's own bytes)"
    if size <= MAX_PAYLOAD_BYTES:
        return None
    return (
        f"{what} is {size} bytes {how}, over the workflow's {MAX_PAYLOAD_BYTES} byte limit; "
        "send less text (not sent)"
    )


async def server_limit_problem(client: Client) -> str | None:
    """One line when ``client``'s server runs with a payload limit under ``SERVER_PAYLOAD_BYTES``
    (Temporal's default 2 MiB, say), where another client's oversized update fails workflow
    tasks instead of being refused; None when it does not, or does not say."""
    try:
        described = await client.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace=client.namespace)
        )
    except RPCError:  # not allowed to describe it: nothing to say
        return None
    limit = described.namespace_info.limits.blob_size_limit_error
    if not limit or limit >= SERVER_PAYLOAD_BYTES:
        return None
    return (
        f"the server's payload limit is {limit} bytes: an update between that and 4 MiB from a "
        "client that does not check sizes fails workflow tasks for about 20 s instead of being "
        f"refused; run the server with limit.blobSize.error={SERVER_PAYLOAD_BYTES} in its dynamic "
        "config"
    )
