"""The local stack: ``agents up``, ``down`` and ``env``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from agent_interrupts.app.config import TemporalSettings


def up_refusal(address: str | None, port: int, local: bool) -> str | None:
    """Why ``agents up`` starts nothing (pure): commands use a configured server at ``address``
    (``local``: the local stack serves it); None when the local stack is theirs."""
    if local:
        return None
    return (
        f"TEMPORAL_ADDRESS is {address}: commands use that server, not a local "
        "stack; to run the local stack anyway, unset TEMPORAL_ADDRESS (and set AGENTS_PORT "
        f"to run it on another port than {port} if that one is taken)"
    )


def env_uses_configured(address: str | None, local: bool) -> bool:
    """Whether ``agents env`` names the configured server (pure) rather than the local stack,
    which it starts if needed."""
    return address is not None and not local


async def cmd_up(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.sdk import AgentWorkflowClient
    from agent_interrupts.app.stack import LocalStack, local_client

    stack = LocalStack(settings)
    if refusal := up_refusal(settings.address, settings.port, stack.serves(settings.address)):
        render.error(refusal)
        return 2
    if not args.status:
        info, started = await stack.up()
        render.console.print("Started the local stack." if started else "The local stack runs.")
        for problem in stack.not_started:
            render.note(f"warning: {problem}")
        missing = await AgentWorkflowClient(await local_client(info)).search_attributes_missing()
        if missing:
            render.error(f"search attributes missing on the local server: {', '.join(missing)}")
            return 1
    for line in stack.describe():
        render.console.print(line, markup=False, soft_wrap=True)  # each line whole, to paste
    for warning in await stack.model_warnings():
        render.errors.print(warning, style="bold yellow", markup=False, soft_wrap=True)
    return 0


async def cmd_env(args: argparse.Namespace, settings: TemporalSettings) -> int:
    """``export`` lines of the Temporal address and namespace that commands use, for ``eval``."""
    from agent_interrupts.app import render
    from agent_interrupts.app.stack import LocalStack, assignments

    stack = LocalStack(settings)
    if env_uses_configured(settings.address, stack.serves(settings.address)):
        assert settings.address is not None
        names = assignments(settings.address, settings.namespace)
    else:
        info, started = await stack.up()
        if started:
            render.note(f"Started the local stack: Temporal {info.address} (stop it: agents down)")
        for problem in stack.not_started:
            render.note(f"warning: {problem}")
        names = info.assignments()
    print("\n".join(f"export {name}" for name in names))
    return 0


async def cmd_down(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from asyncio import to_thread

    from agent_interrupts.app import render
    from agent_interrupts.app.stack import LocalStack

    stack = LocalStack(settings)
    stopped = await to_thread(stack.down)
    done = f"Stopped the local stack of {stack.dir}." if stopped else "No local stack was running."
    render.console.print(done)
    return 0
