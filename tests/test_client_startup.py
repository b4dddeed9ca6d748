"""Commands start fast: what ``agents --help`` and ``agents list`` load, checked in a fresh
interpreter (``python -m bench.cli_startup`` measures the times)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "openai",
    "jinja2",
    "agent_interrupts.activities.offline_model",
    "agent_interrupts.activities.llm",
    "temporalio.worker",
    "starlette",
)
"""Modules a command loads only where it uses them: the model's SDK, the prompts' templates,
the offline model, the worker, the inbox's web framework."""

LIBRARIES = ("temporalio", "pydantic", "rich", "agent_interrupts.models")
"""What every command but parsing needs (the client, the typed models, the terminal output): a
command's options and ``--help`` load none of it."""


def loaded_after(argv: list[str], modules: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of ``modules`` are loaded once ``agents ARGV`` is parsed (and for ``--help``
    printed)."""
    script = (
        "import json, sys\n"
        "from agent_interrupts.app.cli import main\n"
        "argv = json.loads(sys.argv[1])\n"
        "try:\n"
        "    main.parser_for(argv).parse_args(argv)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(json.dumps([m for m in {list(modules)!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(argv)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return list(json.loads(done.stdout.splitlines()[-1]))


def test_help_loads_none_of_the_heavy_modules_nor_the_libraries() -> None:
    assert loaded_after(["--help"], HEAVY + LIBRARIES) == []


def test_list_and_status_parse_without_the_heavy_modules_nor_the_libraries() -> None:
    assert loaded_after(["list", "--waiting"], HEAVY + LIBRARIES) == []
    assert loaded_after(["status", "some-run"], HEAVY + LIBRARIES) == []


def test_the_sdk_names_import_from_the_package_root() -> None:
    script = (
        "from agent_interrupts import AgentWorkflowClient, EventRejected\n"
        "print(AgentWorkflowClient.__module__, EventRejected.__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["agent_interrupts.app.sdk", "EventRejected"]


def test_the_list_command_itself_does_not_load_the_worker_or_the_model() -> None:
    """The modules ``agents list`` imports to run, short of connecting."""
    script = (
        "import sys\n"
        "import agent_interrupts.app.cli.main\n"
        "from agent_interrupts.app import render, sdk, stack, connect, config\n"
        "from agent_interrupts.workflows import visibility\n"
        f"print(' '.join(m for m in {list(HEAVY)!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""
