"""What every command that talks to Temporal shares: the connected session (the local stack,
started if needed, unless an address is configured), the no-worker check, the ``--as`` option."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from temporalio.client import Client
    from temporalio.service import RPCError

    from agent_interrupts.app.config import TemporalSettings
    from agent_interrupts.app.sdk import AgentWorkflowClient
    from agent_interrupts.app.stack import LocalStack


@dataclass
class Session:
    """A connected command: the SDK client, the Temporal UI's address, the local stack."""

    agents: AgentWorkflowClient
    settings: TemporalSettings
    ui_url: str | None
    stack: LocalStack | None


class NoWorker(Exception):
    """No worker polls the task queue of the workflow a command is about; the message names
    the queue and the command that starts its worker."""


@asynccontextmanager
async def open_session(
    settings: TemporalSettings, workflow_id: str | None = None
) -> AsyncIterator[Session]:
    """Connect: the local stack (started if needed) unless an address is configured. With the
    ``workflow_id`` the command is about, the stack also starts the worker of its offline
    scenario, and a missing worker is a NoWorker naming its task queue."""
    from temporalio.service import RPCError

    from agent_interrupts.app import render
    from agent_interrupts.app.connect import connect
    from agent_interrupts.app.sdk import AgentWorkflowClient
    from agent_interrupts.app.stack import LocalStack, local_client, no_worker

    for warning in settings.warnings:
        render.note(f"warning: {warning}")
    local = LocalStack(settings)
    stack: LocalStack | None = None
    if local.serves(settings.address):
        info, started = await local.up()
        if started:
            render.note(
                f"Started the local stack: Temporal {info.address}, UI {info.ui_url}, "
                f"logs in {local.dir} (stop it with: agents down)"
            )
        client = await local_client(info)
        ui: str | None = info.ui_url
        stack = local
        if workflow_id is not None:  # its worker's problem, if any, is the command's one line
            await local.ensure_worker_of(client, workflow_id)
        for problem in local.not_started:
            render.note(f"warning: {problem}")
    else:
        if elsewhere := local.elsewhere(settings.address):
            render.note(elsewhere)
        client = await connect(settings)
        ui = os.environ.get("TEMPORAL_UI_URL") or None
    try:
        yield Session(
            AgentWorkflowClient(client, settings.task_queue),
            settings,
            ui,
            stack,
        )
    except RPCError as err:
        queue = await _unserved_queue(client, workflow_id, err) if workflow_id else None
        if workflow_id is None or queue is None:
            raise
        line = no_worker(
            queue, workflow_id, err.message, settings.task_queue, local=stack is not None
        )
        raise NoWorker(line) from None


async def _unserved_queue(client: Client, workflow_id: str, err: RPCError) -> str | None:
    """The task queue of ``workflow_id`` when ``err`` is a call no worker took (Temporal says
    so, or it timed out while nobody polls the queue); else None."""
    from temporalio.service import RPCError, RPCStatusCode

    from agent_interrupts.app.stack import pollers

    timed_out = err.status in (RPCStatusCode.CANCELLED, RPCStatusCode.DEADLINE_EXCEEDED)
    if "poller" not in err.message and not timed_out:
        return None
    try:
        queue = (await client.get_workflow_handle(workflow_id).describe()).task_queue
        polled = await pollers(client, client.namespace, queue)
    except RPCError:
        return None
    return queue if "poller" in err.message or not polled else None


async def worker_polls(session: Session, workflow_id: str) -> None:
    """Raise NoWorker when no worker polls the task queue of ``workflow_id``: its queries
    would wait out Temporal's timeout (about 30 s) and then fail. An unknown id passes (the
    command says what is wrong with it)."""
    from temporalio.service import RPCError

    from agent_interrupts.app.stack import no_worker, pollers

    client = session.agents.client
    try:
        queue = (await client.get_workflow_handle(workflow_id).describe()).task_queue
        polled = await pollers(client, client.namespace, queue)
    except RPCError:
        return
    if not polled:
        task_queue = session.settings.task_queue
        line = no_worker(queue, workflow_id, "no worker polls it", task_queue, local=False)
        raise NoWorker(line)


def interactive(args: argparse.Namespace) -> bool:
    return sys.stdin.isatty() and not getattr(args, "no_input", False) and not args.json


def as_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as",
        dest="as_name",
        metavar="NAME",
        help="the name your answers carry (default: AGENTS_USER, else your login name)",
    )
