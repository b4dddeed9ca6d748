"""The server's payload limit, as a worker reads it at start (real dev servers)."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.message_size import server_limit_problem
from agent_interrupts.models.limits import SERVER_PAYLOAD_BYTES


async def test_a_server_with_our_payload_limit_has_no_problem(client: Client) -> None:
    assert await server_limit_problem(client) is None


async def test_a_server_with_temporals_default_limit_is_named_with_the_fix() -> None:
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli()
    ) as default:
        problem = await server_limit_problem(default.client)
    assert problem is not None and "\n" not in problem
    assert problem.startswith("the server's payload limit is 2097152 bytes")
    assert f"limit.blobSize.error={SERVER_PAYLOAD_BYTES}" in problem
