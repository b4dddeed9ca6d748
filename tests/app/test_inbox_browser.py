"""``agents inbox`` in headless Chromium (Debian's ``chromium``, driven by Playwright): the CLI
serves the inbox with a token, a person opens the printed link, sees a question whose model
text holds a script as text, has a wrong answer refused in place, answers with a click, and
watches a question answered elsewhere disappear."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Route, async_playwright
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.inbox.ignored import FILE_NAME
from agent_interrupts.app.inbox.web import WHOLE_CARDS
from agent_interrupts.app.people import person_name
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptOutcome
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.workflows.visibility import dev_server_args
from tests.cli.support import free_port
from tests.support.cli import ROOT, client_env
from tests.support.inbox import HOSTILE, TOKEN, start_question
from tests.support.interrupts import start

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
SCREEN_PX = 1080
"""A laptop screen's height: a three-agent question, opened, fits in it."""

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("CI"),
    reason="needs Debian's chromium (apt-get install chromium; .ci/run installs it)",
)


@asynccontextmanager
async def inbox_cli(
    client: Client, stderr: list[str] | None = None, ui_url: str | None = None
) -> AsyncIterator[str]:
    """``agents inbox --port P --token T`` against the test server; yields the printed link;
    what it wrote to stderr is added to ``stderr``; ``ui_url``: its ``TEMPORAL_UI_URL``."""
    args = ["inbox", "--port", str(free_port()), "--token", TOKEN]
    env = client_env(client) | ({"TEMPORAL_UI_URL": ui_url} if ui_url else {})
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "client.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
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
    written = process.stderr.read()
    if stderr is not None:
        stderr.append(written)
    assert "Traceback" not in written


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
            await page.locator(f"{mine} > summary").click()  # the line opens the question
            reason = page.locator(f"{mine} div.reason")
            assert (await reason.text_content() or "").strip() == HOSTILE, "the script is text"

            await page.locator(f"{mine} label.option", has_text="your own approach").click()
            await page.locator(f"{mine} button.send").click()
            problem = page.locator(f"{mine} form.answer p.problem")
            await problem.filter(has_text="CUSTOM").wait_for(timeout=WAIT_MS)
            assert "Traceback" not in (await problem.text_content() or "")

            await page.locator(f"{mine} label.option", has_text="in memory").click()
            await page.locator(f"{mine} button.send").click()
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
            await page.locator(f"{card(arrived)} div.reason", has_text="Which queue?").wait_for(
                state="attached", timeout=WAIT_MS
            )  # listed as a stub by the refresh, then fetched whole from /cards
            assert await page.locator(f"{card(arrived)} form.answer").count() == 1
            assert dialogs == [], "no script of the question ran"
        finally:
            await browser.close()
        outcome = InterruptOutcome.model_validate(await first.result())
        assert outcome.resolution.selected_choices == {"cache": OptionKey.A}
        await second.result()
        await late.terminate("test over")


MARKDOWN = "**Pick one.** <img src=x onerror=alert(3)> " + HOSTILE
"""A model-written reason with markdown, an image that runs code, a script and a bad link."""


async def test_a_person_works_through_the_list_filters_ignores_and_a_fan_out_in_chromium(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """One line per question; filters by run, kind and words; ignoring with a reason (kept
    under the state dir); markdown shown safe; a combined question of three agents answered one
    agent alone, then the rest with the recommendations."""
    scenario = OfflineScenario.parse(
        "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#2,TICKET_AGENT#3"
    )
    single = f"solo-{workflow_id[3:]}-interrupt-1"  # a run id the run filter tells apart
    async with (
        build_worker(client, task_queue, LlmSettings(), scenario=scenario),
        inbox_cli(client) as link,
        async_playwright() as playwright,
    ):
        simple = await start_question(client, task_queue, single, reason=MARKDOWN)
        run = await start(client, task_queue, workflow_id, question_gather_seconds=10)
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, headless=True
        )
        try:
            page = await browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda dialog: dialogs.append(dialog.message))
            await page.goto(link)
            fan_out = page.locator("details.card", has_text="ticket-agent-1").filter(
                has=page.locator(f'summary .run:text-is("{workflow_id}")')
            )
            await fan_out.wait_for(timeout=90_000)
            line = await fan_out.locator("summary.line").text_content() or ""
            assert workflow_id in line and "TICKET_DISPATCH" in line and "ago" in line, line
            assert not await fan_out.get_attribute("open"), "a line until opened"

            # filters: by run, by kind, by words
            mine = card(single)
            await page.fill("#filters input[name=run]", workflow_id)
            await page.wait_for_selector(mine, state="detached", timeout=WAIT_MS)
            assert await fan_out.count() == 1
            assert "run=" in page.url, "the filters live in the address"
            await page.fill("#filters input[name=run]", "")
            await page.wait_for_selector(mine, state="attached", timeout=WAIT_MS)
            await page.select_option("#filters select[name=kind]", "PAUSE")
            await page.wait_for_selector(mine, state="detached", timeout=WAIT_MS)
            await page.locator("#none-waiting", has_text="No question matches").wait_for()
            await page.select_option("#filters select[name=kind]", "")
            await page.fill("#filters input[name=q]", "the docs")
            await page.wait_for_selector(mine, state="attached", timeout=WAIT_MS)
            await fan_out.wait_for(state="detached", timeout=WAIT_MS)
            await page.fill("#filters input[name=q]", "")
            await fan_out.wait_for(timeout=WAIT_MS)

            # markdown, sanitized: emphasis renders, no tag of the model's becomes HTML
            await page.locator(f"{mine} > summary").click()
            reason = page.locator(f"{mine} div.reason")
            assert await reason.locator("strong").text_content() == "Pick one."
            assert await reason.locator("img, script, a").count() == 0
            assert "<img src=x onerror=alert(3)>" in (await reason.text_content() or "")

            # ignore, with a reason: the line leaves, is counted, and comes back on asking
            await page.fill(f"{mine} form.ignore input[name=reason]", "a test question")
            await page.locator(f"{mine} form.ignore button").click()
            await page.wait_for_selector(mine, state="detached", timeout=WAIT_MS)
            await page.locator("#ignored-count", has_text="1 ignored question").wait_for()
            kept = Path(os.environ["AGENTS_STATE_DIR"]) / FILE_NAME
            assert "a test question" in kept.read_text()
            await page.check("#filters input[name=ignored]")
            note = page.locator(f"{mine} .ignored-note")
            await note.wait_for(state="attached", timeout=WAIT_MS)
            assert "a test question" in (await note.text_content() or "")
            await page.uncheck("#filters input[name=ignored]")
            await page.wait_for_selector(mine, state="detached", timeout=WAIT_MS)

            # the fan-out: reason shared once, one part per agent; one agent answered alone
            await fan_out.locator("summary.line").click()
            first_id = await fan_out.get_attribute("data-id")
            parts = fan_out.locator(".part")
            assert await parts.count() == 3
            opened = await fan_out.bounding_box()
            first = await parts.first.locator("select").first.bounding_box()
            assert opened and first, "the opened card and its first control are shown"
            height = opened["height"]
            assert height < SCREEN_PX, f"three agents' question is {height} px tall"
            assert first["y"] - opened["y"] < SCREEN_PX / 2, "the first control is in view at once"
            assert "3 TICKET_AGENT agents need a decision" in (
                await fan_out.locator(".heading").text_content() or ""
            )
            await fan_out.locator("button.part-only", has_text="ticket-agent-1").click()
            done = page.locator(f"{card(first_id or '')}.answered")
            await done.wait_for(timeout=WAIT_MS)
            assert "ticket-agent-2" in (await done.locator(".ack").text_content() or "")
            rest = page.locator("details.card:not(.answered)").filter(
                has=page.locator(f'summary .run:text-is("{workflow_id}")')
            )
            await rest.wait_for(timeout=WAIT_MS)  # the other two, asked again at once
            assert await rest.get_attribute("open") is not None, "opened where the person was"
            assert await rest.locator(".part").count() == 2
            rest_id = await rest.get_attribute("data-id") or ""
            await rest.locator("button.accept").click()
            await page.locator(f"{card(rest_id)}.answered .result").wait_for(timeout=WAIT_MS)
            await asyncio.wait_for(run.result(), 90)
            assert dialogs == [], "no script of a question ran"
        finally:
            await browser.close()
            await simple.terminate("test over")


async def test_the_page_shows_a_banner_when_temporal_goes_away() -> None:
    """The dev server this test started stops: the open page shows the banner at its next
    refresh; an answer sent then says at once that nothing was sent and keeps what the person
    gave; a reload is a page with the banner (503) that claims no empty list; the inbox logs
    one line."""
    stderr: list[str] = []
    environment = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=dev_server_args(),
    )
    task_queue, question = f"tq-{uuid.uuid4()}", f"outage-{uuid.uuid4()}-interrupt-1"
    async with (
        environment,
        inbox_cli(environment.client, stderr) as link,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, headless=True
        )
        try:
            page = await browser.new_page()
            async with build_worker(environment.client, task_queue, LlmSettings()):
                await start_question(environment.client, task_queue, question)
                first = await page.goto(link)
                assert first is not None and first.status == 200
                assert await page.locator("#trouble").is_hidden()
                mine = card(question)
                await page.locator(f"{mine} form.answer").wait_for(
                    state="attached", timeout=WAIT_MS
                )
            await environment.shutdown()
            banner = page.locator("#trouble", has_text="did not list the questions")
            await banner.wait_for(timeout=WAIT_MS)
            await page.locator(f"{mine} > summary").click()
            await page.locator(f"{mine} input.custom").fill("keep me")
            started = time.monotonic()
            await page.locator(f"{mine} button.send").click()
            problem = page.locator(f"{mine} form.answer p.problem", has_text="nothing was sent")
            await problem.wait_for(timeout=WAIT_MS)
            waited = time.monotonic() - started
            assert waited < 3, f"the person waited {waited:.1f} s to learn nothing was sent"
            assert await page.locator(f"{mine} input.custom").input_value() == "keep me"
            assert await page.locator(f"{mine} input[value=CUSTOM]").is_checked()
            await page.wait_for_timeout(3_000)  # a few refreshes of an outage
            reloaded = await page.reload()
            assert reloaded is not None and reloaded.status == 503
            assert await page.locator("#trouble").is_visible()
            assert await page.locator("#none-waiting").is_hidden(), "the list is unknown, not empty"
            body = await page.locator("body").text_content() or ""
            assert "Internal Server Error" not in body and "Traceback" not in body
            assert "No answered question yet" not in body
        finally:
            await browser.close()
    (written,) = stderr
    said = [line for line in written.splitlines() if "does not answer" in line]
    assert len(said) == 1, written


ODD = "  naïve “curly” 'single' \"double\" <b>bold</b> &amp; = ünïcödé 😀 \\  two  spaces "
"""A person's own approach as typed: unicode, quotes, markup, an ``=``, a backslash, runs of
spaces, spaces at both ends (kept: a write-in reaches its agent exactly as typed)."""
ODD_LINES = "first line <i>x</i>\nsecond “line”\n\n  indented 😀"
"""Free text over lines, as typed in the text box (a blank line, an indented one)."""
UI = "http://ui.example:8233"


async def test_what_a_person_types_reaches_the_agent_as_typed_in_chromium(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The single form: an own approach and free text arrive in the answer the workflow
    records byte for byte; the card names the person as the list does; the Temporal UI links
    of a full ``TEMPORAL_UI_URL`` are not doubled; a question answered elsewhere keeps what the
    person was typing and says who answered."""
    agents = AgentWorkflowClient(client, task_queue)
    typed, elsewhere = f"{workflow_id}-a-interrupt-1", f"{workflow_id}-b-interrupt-1"
    async with (
        build_worker(client, task_queue, LlmSettings()),
        inbox_cli(client, ui_url=f"{UI}/namespaces/default/workflows") as link,
        async_playwright() as playwright,
    ):
        first = await start_question(client, task_queue, typed)
        second = await start_question(client, task_queue, elsewhere)
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, headless=True
        )
        try:
            page = await browser.new_page()
            await page.goto(link)
            mine = card(typed)
            await page.wait_for_selector(mine, timeout=WAIT_MS)
            await page.locator(f"{mine} > summary").click()
            run_ui = await page.locator(f"{mine} a.ui-run").get_attribute("href")
            assert run_ui == f"{UI}/namespaces/default/workflows/{workflow_id}-a"
            question_ui = await page.locator(f"{mine} a.ui-question").get_attribute("href")
            assert question_ui == f"{UI}/namespaces/default/workflows/{typed}"

            await page.locator(f"{mine} input.custom").fill(ODD)
            assert await page.locator(f"{mine} input[value=CUSTOM]").is_checked()
            await page.locator(f"{mine} textarea").fill(ODD_LINES)
            await page.locator(f"{mine} button.send").click()
            answered = page.locator(f"{mine}.answered")
            await answered.wait_for(timeout=WAIT_MS)
            name = person_name()
            assert f"Resolved by: {name} (HUMAN)" in (await answered.text_content() or "")
            assert "Resolved by: HUMAN" not in (await answered.text_content() or "")

            # answered elsewhere while a person types: the text stays, with who answered
            other = card(elsewhere)
            await page.locator(f"{other} > summary").click()
            await page.locator(f"{other} textarea").fill("half-typed")
            await agents.resolve(
                elsewhere,
                InterruptResolution.model_validate({"selectedChoices": {"cache": "B"}}),
                answered_by="grace",
            )
            note = page.locator(f"{other} .gone-note", has_text="Answered elsewhere by grace")
            await note.wait_for(timeout=WAIT_MS)
            assert await page.locator(f"{other} textarea").input_value() == "half-typed"
            assert await page.locator(f"{other} button.send").is_disabled()
            await page.locator(f"{other} button.dismiss").click()
            await page.wait_for_selector(other, state="detached", timeout=WAIT_MS)
        finally:
            await browser.close()
        got = InterruptOutcome.model_validate(await first.result()).resolution
        assert got.selected_choices == {"cache": OptionKey.CUSTOM}
        assert got.custom_inputs == {"cache": ODD}, "the own approach, byte for byte"
        assert got.free_text == ODD_LINES, "the free text, byte for byte"
        assert got.answered_by == name
        await second.result()


async def test_a_fan_out_grid_sends_each_agents_own_answer_and_keeps_the_others_in_chromium(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A combined question of three agents as a grid: typing a row's own approach chooses
    CUSTOM; answering one agent alone sends its own text, and the question asked again opens
    under it with what the person gave the other two, which the next send sends as given. The
    agent filter finds it by the dispatched agents' type, exactly; the run's picture shows the
    agents waiting; its UI link is not doubled for a bare ``TEMPORAL_UI_URL``."""
    scenario = OfflineScenario.parse(
        "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#2,TICKET_AGENT#3"
    )
    own_1, own_2 = "agent one: " + ODD, "agent two: " + ODD
    async with (
        build_worker(client, task_queue, LlmSettings(), scenario=scenario),
        inbox_cli(client, ui_url=UI + "/") as link,
        async_playwright() as playwright,
    ):
        run = await start(client, task_queue, workflow_id, question_gather_seconds=10)
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, headless=True
        )
        try:
            page = await browser.new_page()
            await page.goto(link)
            mine = page.locator("details.card").filter(
                has=page.locator(f'summary .run:text-is("{workflow_id}")')
            )
            await mine.wait_for(timeout=90_000)
            await page.fill("#filters input[name=agent]", "ticket_agent")
            await page.wait_for_timeout(1_500)  # a refresh or two with the filter
            assert await mine.count() == 1, "the dispatched agents' type finds their question"
            await page.fill("#filters input[name=agent]", "TICKET")
            await mine.wait_for(state="detached", timeout=WAIT_MS)
            await page.fill("#filters input[name=agent]", "")
            await mine.wait_for(timeout=WAIT_MS)

            graph = await page.request.get(f"{link.split('?')[0]}runs/{workflow_id}/graph.svg")
            assert re.search(r"TICKET_AGENT</text><text[^>]*>\? waiting</text>", await graph.text())

            await mine.locator("summary.line").click()
            run_ui = await mine.locator("a.ui-run").get_attribute("href")
            assert run_ui == f"{UI}/namespaces/default/workflows/{workflow_id}"
            first_id = await mine.get_attribute("data-id") or ""
            row = {k: mine.locator(f'tr.part[data-key="ticket-agent-{k}"]') for k in (1, 2, 3)}
            await row[1].locator("input.custom").fill(own_1)
            await row[2].locator("input.custom").fill(own_2)
            assert await row[2].locator("select").first.input_value() == "CUSTOM"
            await row[3].locator("select").first.select_option("B")
            await row[3].locator("select").nth(1).select_option("no")
            await mine.locator("textarea").fill("for all of you")
            await row[1].locator("button.part-only").click()
            await page.locator(f"{card(first_id)}.answered").wait_for(timeout=WAIT_MS)

            rest = page.locator("details.card:not(.answered)").filter(
                has=page.locator(f'summary .run:text-is("{workflow_id}")')
            )
            await rest.wait_for(timeout=WAIT_MS)  # asked again at once
            rest_id = await rest.get_attribute("data-id") or ""
            assert await rest.get_attribute("open") is not None, "it stays open"
            follows = await page.evaluate(
                "id => document.getElementById(id).nextElementSibling.id", f"q-{first_id}"
            )
            assert follows == f"q-{rest_id}", "it stays where the person was answering"
            again = {k: rest.locator(f'tr.part[data-key="ticket-agent-{k}"]') for k in (2, 3)}
            assert await again[2].locator("select").first.input_value() == "CUSTOM"
            assert await again[2].locator("input.custom").input_value() == own_2
            assert await again[3].locator("select").first.input_value() == "B"
            assert await again[3].locator("select").nth(1).input_value() == "no"
            assert await rest.locator("textarea").input_value() == "for all of you"
            await rest.locator("button.send").click()
            await page.locator(f"{card(rest_id)}.answered").wait_for(timeout=WAIT_MS)
        finally:
            await browser.close()
        alone = await client.get_workflow_handle(first_id).result()
        got = InterruptOutcome.model_validate(alone).resolution
        assert got.selected_choices == {"ticket-agent-1/approach": OptionKey.CUSTOM}
        assert got.custom_inputs == {"ticket-agent-1/approach": own_1}, "byte for byte"
        rest_answer = await client.get_workflow_handle(rest_id).result()
        got = InterruptOutcome.model_validate(rest_answer).resolution
        assert got.selected_choices == {
            "ticket-agent-2/approach": OptionKey.CUSTOM,
            "ticket-agent-3/approach": OptionKey.B,
        }
        assert got.custom_inputs == {"ticket-agent-2/approach": own_2}, "byte for byte"
        assert got.confirmations == {
            "ticket-agent-2/add-tests": True,
            "ticket-agent-3/add-tests": False,
        }
        assert got.free_text == "for all of you"
        await asyncio.wait_for(run.result(), 90)


async def test_a_card_from_the_listing_gives_way_to_the_read_one_unless_typed_in_in_chromium(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Questions carry their cards: the page shows the newest at once, answer forms included,
    and fetches the bodies of those past ``WHOLE_CARDS`` it rendered as lines; once its
    refreshes have read them, the card nobody touched gives way to the one read, while the one a
    person started answering keeps what they typed (the refreshes are held until then)."""
    untouched, typed = f"{workflow_id}-a-interrupt-1", f"{workflow_id}-b-interrupt-1"
    older = [f"{workflow_id}-old-{n:02}-interrupt-1" for n in range(WHOLE_CARDS)]
    async with (
        build_worker(client, task_queue, LlmSettings()),
        inbox_cli(client) as link,
        async_playwright() as playwright,
    ):
        handles = list(
            await asyncio.gather(
                *(start_question(client, task_queue, i, carded=True) for i in older)
            )
        )
        handles += [
            await start_question(client, task_queue, i, carded=True) for i in (untouched, typed)
        ]
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, headless=True
        )
        try:
            page = await browser.new_page()
            typing = asyncio.Event()

            async def held(route: Route) -> None:
                await typing.wait()
                await route.continue_()

            await page.route("**/questions*", held)
            await page.goto(link)
            for interrupt_id in (untouched, typed):
                early = page.locator(f"{card(interrupt_id)}.early form.answer")
                await early.wait_for(state="attached", timeout=WAIT_MS)
            oldest = page.locator(f"{card(older[0])} form.answer")  # past WHOLE_CARDS: a line
            await oldest.wait_for(state="attached", timeout=WAIT_MS)  # while no refresh runs
            mine = card(typed)
            await page.locator(f"{mine} > summary").click()
            await page.locator(f'{mine} textarea[name="text"]').fill("half an answer")
            typing.set()
            read = page.locator(f"{card(untouched)}:not(.early) form.answer")
            await read.wait_for(state="attached", timeout=WAIT_MS)
            assert "early" in (await page.locator(mine).get_attribute("class") or "")
            assert await page.locator(f'{mine} textarea[name="text"]').input_value() == (
                "half an answer"
            )
        finally:
            await browser.close()
            for handle in handles:
                await handle.terminate("test over")
