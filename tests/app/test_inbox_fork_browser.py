"""Trying another answer in headless Chromium (Debian's ``chromium``, driven by Playwright): a
person looks at an answered question in ``agents inbox``, has a wrong answer refused as answering
refuses it, picks another way, and follows the link to the fork, which goes on down the other
route while the parent stays as it was; both runs' pictures (the inbox's and ``agents status``)
show the fork as a branch."""

from __future__ import annotations

import asyncio

from playwright.async_api import async_playwright
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.teams.software.agents import AgentType
from tests.app.test_inbox_browser import CHROMIUM, FLAGS, WAIT_MS, inbox_cli, pytestmark
from tests.support.cli import client_py
from tests.support.interrupts import answer_offered, start, wait_for_interrupt

__all__ = ["pytestmark"]  # skipped where Debian's chromium is missing, as the inbox's test

ASKER = AgentType.PLANNING_COLLECTOR
OTHER_ROUTE = AgentType.ORCHESTRATOR_COLLECTOR


async def test_a_person_tries_another_answer_and_follows_the_fork(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None and pending.origin_agent_type == ASKER
        question = pending.workflow_id
        offered = answer_offered((await agents.interrupt_status(question)).request)
        await agents.resolve(question, offered, answered_by="ada")
        await asyncio.wait_for(handle.result(), 60)
        parent_events = len([e async for e in handle.fetch_history_events()])

        async with inbox_cli(client) as link, async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=FLAGS, headless=True
            )
            try:
                page = await browser.new_page()
                base = link.split("?")[0].rstrip("/")
                await page.goto(link)
                answered = page.locator(f'[id="a-{question}"]')
                await answered.wait_for(timeout=WAIT_MS)
                await answered.locator("a.try-another").click()
                form = page.locator("form.fork")
                await form.wait_for(timeout=WAIT_MS)
                assert "ada" in (await page.locator(".taken").text_content() or "")

                custom = form.locator("input[type=radio][value=CUSTOM]").first
                await custom.check()
                await form.locator("button.send").click()
                problem = page.locator("form.fork p.problem")
                await problem.filter(has_text="CUSTOM").wait_for(timeout=WAIT_MS)
                assert await agents.forks(workflow_id) == [], "a refused answer forks nothing"

                for choice in await form.locator("fieldset.choice").all():
                    await choice.locator("input[type=radio]").first.check()
                await form.locator("details.ways > summary").click()
                await form.locator("select").select_option(str(OTHER_ROUTE))
                await form.locator("button.send").click()
                fork_link = page.locator("a.fork-link")
                await fork_link.wait_for(timeout=WAIT_MS)
                fork_id = (await fork_link.text_content() or "").strip()
                assert fork_id.startswith(f"{workflow_id}-fork-")
                await asyncio.wait_for(client.get_workflow_handle(fork_id).result(), 60)

                await fork_link.click()
                parent_line = page.locator("ul.branches li.parent")
                await parent_line.wait_for(timeout=WAIT_MS)
                said = await parent_line.text_content() or ""
                assert f"this run is a fork of {workflow_id} at {question}" in said, said
                picture = await page.request.get(base + f"/runs/{fork_id}/graph.svg")
                assert picture.ok and f"⑂ parent {workflow_id}" in await picture.text()

                await page.locator("ul.branches li.parent a").click()
                fork_line = page.locator("ul.branches li.fork")
                await fork_line.wait_for(timeout=WAIT_MS)
                assert fork_id in (await fork_line.text_content() or "")
                assert "COMPLETED" in (await fork_line.text_content() or "")
                picture = await page.request.get(base + f"/runs/{workflow_id}/graph.svg")
                drawn = await picture.text()
                assert f"⑂ fork {fork_id}" in drawn and 'class="branch"' in drawn

                forged = await page.request.post(
                    base + "/fork", form={"interrupt": question, "choice.approach": "A"}
                )
                assert forged.status == 403, "the inbox's forms' CSRF guard"
                elsewhere = await page.request.get(base + "/runs/some-other-run")
                assert elsewhere.status == 404
            finally:
                await browser.close()

        listed = await agents.forks(workflow_id)
        assert [f.workflow_id for f in listed] == [fork_id]
        link_of = listed[0].link
        assert link_of is not None and link_of.answer is not None
        assert link_of.answer.continue_at == OTHER_ROUTE and link_of.answer.door == "inbox"
        assert len([e async for e in handle.fetch_history_events()]) == parent_events, (
            "the parent is untouched"
        )
        shown = await client_py(client, "status", workflow_id)
        assert shown.returncode == 0, shown.stderr
        assert f"⑂ fork {fork_id}" in shown.stdout, shown.stdout
