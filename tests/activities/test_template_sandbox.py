"""A declared team's template is untrusted input (``activities/template_sandbox.py``): it renders
in a bounded process of its own; a loop nested in a loop, a template that raises, one that writes
too much or takes too much memory each fail in one line naming the team and the agent, within
the bound, and leave no thread or process behind."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable

import pytest

from agent_interrupts.activities.prompting import PROMPTS_DIR
from agent_interrupts.activities.template_sandbox import (
    RenderBounds,
    UntrustedTemplate,
    render_untrusted,
    render_untrusted_now,
)
from agent_interrupts.models.errors import PromptRenderError

BOUNDS = RenderBounds(seconds=1, max_chars=10_000, memory_bytes=256 * 2**20)
NESTED_LOOPS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


def _template(source: str) -> UntrustedTemplate:
    return UntrustedTemplate(
        team="grant-review",
        agent="INTAKE",
        name="team/grant-review/0123456789abcdef/intake.jinja",
        source=source,
        prompts_dir=PROMPTS_DIR,
    )


def _children() -> set[int]:
    """This process's child processes."""
    me = os.getpid()
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                        found.add(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _settled(check: Callable[[], bool], seconds: float = 5) -> bool:
    """Whether ``check`` holds within ``seconds`` (asyncio's child watcher thread ends just
    after the process it reaped)."""
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)
    return check()


def _failure(source: str) -> tuple[str, float]:
    """The one line a render of ``source`` fails with, and how long it took."""
    started = time.monotonic()
    with pytest.raises(PromptRenderError) as caught:
        render_untrusted_now(_template(source), {"name": "x"}, BOUNDS)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("team grant-review's template for agent INTAKE failed to render: ")
    assert str(PROMPTS_DIR) not in message, "it names the team's template, not the package's"
    return message, time.monotonic() - started


def test_a_template_renders_with_its_values_and_the_package_partials() -> None:
    source = (
        '{% extends "workflow/_agent_base.jinja" %}{% block role %}Hi {{ name }}.{% endblock %}'
    )
    values = {
        "agent_type": "INTAKE",
        "team": "grant-review",
        "output_name": "IntakeRouting",
        "routes": ["toEnd"],
        "interrupt": {"class_name": "Q", "route": "interruptRequest", "base_fields": []}
        | {"own_fields": []},
        "dispatcher": None,
        "custom_option_text": "Other",
        "name": "Ada",
    }
    text = render_untrusted_now(_template(source), values, BOUNDS)
    assert "Hi Ada." in text


def test_nested_loops_are_stopped_at_the_time_bound_leaving_nothing_running() -> None:
    threads, children = threading.active_count(), _children()
    message, took = _failure(NESTED_LOOPS)
    assert message.endswith(
        "it took longer than 1 s; fix that template in the team's directory (its team file "
        "names it) and start a new run"
    )
    assert took < BOUNDS.seconds + 10, took
    assert _settled(lambda: threading.active_count() <= threads), "a render thread is left"
    assert _children() <= children, "the render process was killed and reaped"


def test_a_template_that_raises_says_what_and_where() -> None:
    message, _ = _failure("line one\n{{ 1 // 0 }}")
    assert "ZeroDivisionError: integer division or modulo by zero (line 2)" in message


def test_output_past_the_bound_is_refused() -> None:
    message, _ = _failure("{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}")
    assert "its output passed 10,000 characters" in message


def test_memory_past_the_bound_is_refused() -> None:
    message, _ = _failure("{% set x = 'x' * 1000000000 %}{{ x | length }}")
    assert "it needed more than 256 MiB of memory" in message


@pytest.mark.parametrize(
    "source", ["{{ ''.__class__.__mro__ }}", "{% set l = [] %}{{ l.append(1) }}"]
)
def test_the_environment_is_sandboxed_and_immutable(source: str) -> None:
    message, _ = _failure(source)
    assert "SecurityError" in message


async def test_the_event_loop_goes_on_while_a_template_loops() -> None:
    """Another run's work is not starved: the worker's loop ticks through the whole render."""
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    ticker = asyncio.create_task(tick())
    with pytest.raises(PromptRenderError):
        await render_untrusted(_template(NESTED_LOOPS), {}, BOUNDS)
    ticker.cancel()
    assert ticks >= 10, ticks
