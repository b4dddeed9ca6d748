"""``agents inbox`` in headless Chromium (Debian's ``chromium``, driven by Playwright): the CLI
serves the inbox with a token, a person opens the printed link, sees a question whose model
text holds a script as text, has a wrong answer refused in place, answers with a click, and
watches a question answered elsewhere disappear."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import async_playwright
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptOutcome
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from tests.cli.support import free_port
from tests.support.cli import ROOT, client_env
from tests.support.inbox import HOSTILE, TOKEN, start_question

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 30_000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("CI"),
    reason="needs Debian's chromium (apt-get install chromium; .ci/run installs it)",
)


@asynccontextmanager
async def inbox_cli(client: Client) -> AsyncIterator[str]:
    """``agents inbox --port P --token T`` against the test server; yields the printed link."""
    args = ["inbox", "--port", str(free_port()), "--token", TOKEN]
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "client.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=client_env(client),
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), 60)
        assert line.startswith("Inbox: http://127.0.0.1:"), line
        yield line.split()[1]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            await asyncio.to_thread(process.wait, 30)
        finally:
            process.kill()
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read()


def card(interrupt_id: str) -> str:
    return f'[id="q-{interrupt_id}"]'


async def test_a_person_answers_in_chromium(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    clicked, elsewhere = f"{workflow_id}-a-interrupt-1", f"{workflow_id}-b-interrupt-1"
    arrived = f"{workflow_id}-c-interrupt-1"
    async with (
        build_worker(client, task_queue, LlmSettings()),
        inbox_cli(client) as link,
        async_playwright() as playwright,
    ):
        first = await start_question(client, task_queue, clicked, reason=HOSTILE)
        second = await start_question(client, task_queue, elsewhere)
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, headless=True
        )
        try:
            page = await browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda dialog: dialogs.append(dialog.message))

            bare = await page.goto(link.split("?")[0])
            assert bare is not None and bare.status == 401, "the token is required"
            await page.goto(link)
            assert page.url.endswith("/"), "the token moved into a cookie"
            mine = card(clicked)
            await page.wait_for_selector(mine, timeout=WAIT_MS)
            reason = page.locator(f"{mine} p.reason")
            assert await reason.text_content() == HOSTILE, "the script is text"

            await page.locator(f"{mine} label.option", has_text="your own approach").click()
            await page.locator(f"{mine} button[type=submit]").click()
            problem = page.locator(f"{mine} p.problem")
            await problem.filter(has_text="CUSTOM").wait_for(timeout=WAIT_MS)
            assert "Traceback" not in (await problem.text_content() or "")

            await page.locator(f"{mine} label.option", has_text="in memory").click()
            await page.locator(f"{mine} button[type=submit]").click()
            answered = page.locator(f"{mine}.answered")
            await answered.wait_for(timeout=WAIT_MS)
            assert "in memory" in (await answered.text_content() or "")

            await page.wait_for_selector(card(elsewhere), timeout=WAIT_MS)
            await agents.resolve(
                elsewhere,
                InterruptResolution.model_validate({"selectedChoices": {"cache": "B"}}),
            )
            await page.wait_for_selector(card(elsewhere), state="detached", timeout=WAIT_MS)

            late = await start_question(client, task_queue, arrived, reason="Which queue?")
            await page.locator(f"{card(arrived)} p.reason", has_text="Which queue?").wait_for(
                timeout=WAIT_MS
            )  # listed as a stub by the refresh, then fetched whole from /cards
            assert await page.locator(f"{card(arrived)} form.answer").count() == 1
            assert dialogs == [], "no script of the question ran"
        finally:
            await browser.close()
        outcome = InterruptOutcome.model_validate(await first.result())
        assert outcome.resolution.selected_choices == {"cache": OptionKey.A}
        await second.result()
        await late.terminate("test over")
