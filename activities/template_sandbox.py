"""A declared team's template rendered as untrusted input: in a process of its own, bounded.

A team file is input, and its templates are code: a loop nested in a loop, a template that
raises, one that writes a gigabyte. So a declared team's template never renders in the worker:
each render starts ``activities/template_child.py`` (jinja2's ``ImmutableSandboxedEnvironment``,
bounded memory, no file writes), gives it ``TEMPLATE_RENDER_TIMEOUT`` from the moment it is
ready and at most ``MAX_RENDERED_TEMPLATE_CHARS`` of output, and kills it past either. Nothing
of a render outlives it: no thread, no memory; the worker's event loop awaits it like any I/O, so
other runs' tasks go on meanwhile.

A render that fails is a ``PromptRenderError`` (not retried: the same template fails the same
way) in one line naming the team, the agent and what went wrong; a worker too busy to start the
process at all is a ``WorkerCannotServe`` (retried, maybe elsewhere). The software team's
templates are the package's own and render in the worker (``activities/prompting.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_interrupts.activities import template_child
from agent_interrupts.models.errors import PromptRenderError, WorkerCannotServe
from agent_interrupts.models.limits import (
    ECHO_CHARS,
    MAX_RENDERED_TEMPLATE_CHARS,
    TEMPLATE_RENDER_MEMORY_BYTES,
    clip,
)
from agent_interrupts.models.policies import (
    TEMPLATE_RENDER_TIMEOUT,
    TEMPLATE_SANDBOX_START_TIMEOUT,
)

CHILD = [sys.executable, "-m", template_child.__name__]


@dataclass(frozen=True)
class RenderBounds:
    """How long a render may take, how much text it may write, how much memory it may use."""

    seconds: float = TEMPLATE_RENDER_TIMEOUT.total_seconds()
    max_chars: int = MAX_RENDERED_TEMPLATE_CHARS
    memory_bytes: int = TEMPLATE_RENDER_MEMORY_BYTES
    start_seconds: float = TEMPLATE_SANDBOX_START_TIMEOUT.total_seconds()


DEFAULT_BOUNDS = RenderBounds()


@dataclass(frozen=True)
class UntrustedTemplate:
    """One declared agent's template: whose it is (for the message) and what it renders."""

    team: str
    agent: str
    name: str
    """Its name in the environment (``team/<team>/<hash>/<agent>.jinja``)."""
    source: str
    prompts_dir: Path
    """The package's templates it may extend or include."""

    def failed(self, why: str) -> PromptRenderError:
        return PromptRenderError(
            f"team {self.team}'s template for agent {self.agent} failed to render: "
            f"{clip(why, 2 * ECHO_CHARS)}; fix that template in the team's directory (its "
            "team file names it) and start a new run"
        )


async def render_untrusted(
    template: UntrustedTemplate, values: dict[str, Any], bounds: RenderBounds = DEFAULT_BOUNDS
) -> str:
    """``template`` rendered with ``values`` in a bounded process of its own."""
    limits = {"memoryBytes": bounds.memory_bytes, "cpuSeconds": math.ceil(bounds.seconds) + 2}
    job = {
        "template": template.name,
        "sources": {template.name: template.source},
        "promptsDir": str(template.prompts_dir),
        "values": values,
        "maxChars": bounds.max_chars,
        "memoryBytes": bounds.memory_bytes,
    }
    try:
        process = await asyncio.create_subprocess_exec(
            *CHILD,
            json.dumps(limits),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=12 * bounds.max_chars + 4096,  # one JSON line, every character escaped
        )
    except OSError as err:
        raise WorkerCannotServe(f"cannot start a template render process: {err}") from None
    assert process.stdin is not None and process.stdout is not None
    try:
        try:
            async with asyncio.timeout(bounds.start_seconds):
                ready = await process.stdout.readline()
        except TimeoutError:
            raise WorkerCannotServe(
                f"a template render process did not start within {bounds.start_seconds:g} s "
                "(the worker is overloaded)"
            ) from None
        if ready.decode(errors="replace").strip() != template_child.READY:
            raise WorkerCannotServe(
                "a template render process could not start (is jinja2 installed for "
                f"{sys.executable}?)"
            )
        process.stdin.write(json.dumps(job).encode())
        process.stdin.close()
        try:
            async with asyncio.timeout(bounds.seconds):
                line = await process.stdout.readline()
        except TimeoutError:
            raise template.failed(f"it took longer than {bounds.seconds:g} s") from None
        except ValueError:  # a line over the reader's limit: the child's output bound failed
            raise template.failed(f"its output passed {bounds.max_chars:,} characters") from None
    finally:
        await _stopped(process)
    if not line:
        raise template.failed(
            f"its render process ended without a result (exit {process.returncode}: it passed "
            f"the memory ({bounds.memory_bytes // 2**20:,} MiB) or CPU bound)"
        )
    reply = json.loads(line)
    if "problem" in reply:
        raise template.failed(reply["problem"])
    text: str = reply["text"]
    return text


REAP_SECONDS = 5.0
"""How long the event loop's child watcher may take to report a killed render process before
it is reaped here."""


async def _stopped(process: asyncio.subprocess.Process) -> None:
    """The process ended: killed if it still runs, and reaped, whatever happened (by the event
    loop's child watcher, else here: a watcher that never reports must not hold the step)."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    try:
        async with asyncio.timeout(REAP_SECONDS):
            await asyncio.shield(process.wait())
    except TimeoutError:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(process.pid, 0)


def render_untrusted_now(
    template: UntrustedTemplate, values: dict[str, Any], bounds: RenderBounds = DEFAULT_BOUNDS
) -> str:
    """``render_untrusted`` for code that cannot await (an export, a test): blocks the caller
    for at most the bounds, in a thread of its own that ends with the render (the caller may
    run an event loop already)."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="template-render") as one:
        return one.submit(asyncio.run, render_untrusted(template, values, bounds)).result()
