"""Search attributes and current details: what a person finds in the Temporal UI and inbox,
against a dev server that registers the attributes."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from markdown_it import MarkdownIt
from temporalio.api.sdk.v1 import WorkflowMetadata
from temporalio.client import Client, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupt_flow import InterruptState
from agent_interrupts.models.interrupts import InterruptResolution, InterruptType
from agent_interrupts.models.resolution_rules import resolution_problems
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows import visibility
from tests.models.test_resolution_rules import REQUEST
from tests.support.interrupts import GOAL, wait_for_interrupt


@pytest.mark.parametrize(
    ("state", "kind", "value"),
    [
        (InterruptState.REQUESTED, InterruptType.HUMAN_REVIEW, "WAITING"),
        (InterruptState.REQUESTED, InterruptType.AGENT_REVIEW, "ESCALATED"),
        (InterruptState.WAITING, InterruptType.HUMAN_REVIEW, "WAITING"),
        (InterruptState.TIMED_OUT, InterruptType.HUMAN_REVIEW, "TIMED_OUT"),
        (InterruptState.ESCALATED, InterruptType.HUMAN_REVIEW, "ESCALATED"),
        (InterruptState.RESOLVED, InterruptType.HUMAN_REVIEW, "RESOLVED"),
    ],
)
def test_interrupt_state_values(state: InterruptState, kind: InterruptType, value: str) -> None:
    assert visibility.interrupt_state_value(state, kind) == value


def test_question_markdown_puts_every_option_on_its_own_bullet() -> None:
    lines = visibility.question_markdown(AgentType.REVIEW_AGENT, REQUEST).splitlines()
    bullets = [i for i, line in enumerate(lines) if line.startswith("- **")]
    assert len(bullets) == sum(len(c.options) for c in REQUEST.choices)
    first = bullets[0]
    assert lines[first - 1] == "", "a blank line starts the list, so it never runs together"


HOSTILE = (
    "add <script>alert(1)</script> caching and [click me](javascript:alert(2)) **bold** "
    "<img src=x onerror=alert(3)> &lt;b&gt; `code`\n- item\n1. one\n# heading\n===\n_x_ | ~y~"
)


def test_model_text_renders_as_written_never_as_markup() -> None:
    """The UI and the terminal render the question as markdown; a tag, link, list or
    emphasis a model wrote shows as the characters it wrote (CommonMark with HTML allowed):
    the page has the tags of the same question written in plain words, and the text itself."""
    hostile, plain = _rendered(HOSTILE, "a`b <b>c</b>``"), _rendered("plain words", "plain")
    assert _tags(hostile) == _tags(plain), hostile
    shown = re.sub(r"<[^>]+>", "", hostile)
    shown = shown.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    for line in HOSTILE.splitlines():
        assert line.replace("&", "&amp;") in shown, line


def _rendered(text: str, choice_id: str) -> str:
    """REQUEST with ``text`` as its reason, each choice's question and each option, and
    ``choice_id`` as its choices' id, as HTML."""
    choices = [
        c.model_copy(
            update={
                "choice_id": choice_id,
                "question": text,
                "options": [o.model_copy(update={"description": text}) for o in c.options],
            }
        )
        for c in REQUEST.choices
    ]
    request = REQUEST.model_copy(update={"reason": text, "choices": choices})
    markdown = visibility.question_markdown(AgentType.REVIEW_AGENT, request)
    return MarkdownIt("commonmark", {"html": True}).render(markdown)


def _tags(html: str) -> list[str]:
    return re.findall(r"</?\w+", html)


def test_the_pasteable_answer_is_a_valid_resolution() -> None:
    text = visibility.answer_markdown(
        "run-interrupt-1", AgentType.REVIEW_AGENT, REQUEST, team=SOFTWARE_TEAM
    )
    assert "resolve_validated" in text and "`resolve`" in text
    keys = "/".join(o.key.value for o in REQUEST.choices[0].options)
    assert keys == "A/B/CUSTOM" and "(`approach`: A, B or CUSTOM with a text in" in text
    assert "C, D" not in text, "only the offered options are named"
    pasted = json.loads(re.search(r"```json\n(.*?)\n```", text, re.S)[1])  # type: ignore[index]
    assert resolution_problems(REQUEST, InterruptResolution.model_validate(pasted)) == []
    assert '`{"stopRun": "your reason"}`' in text
    assert '`"continueAt"`: `MERGER_AGENT`, `TICKET_ORCHESTRATOR`.' in text
    code = "".join(re.findall(r"```\w*\n(.*?)```", text, re.S))
    assert max(len(line) for line in code.splitlines()) <= 80, "code lines are not cut off"


async def _current_details(handle: WorkflowHandle) -> str:
    metadata = await handle.query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
    return str(metadata.current_details)


async def _until_waiting(agents: AgentWorkflowClient, interrupt_id: str) -> None:
    """Visibility is eventually consistent: ask again until ``list --waiting``'s query finds
    the question (``waiting()`` would query every question the suite left waiting)."""
    async with asyncio.timeout(60):
        while not await agents.is_listed_waiting(interrupt_id):
            await asyncio.sleep(0.2)


async def test_ui_shows_the_waiting_question_and_the_inbox_lists_it(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    assert await agents.search_attributes_missing() == []
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await agents.start(GOAL, workflow_id=workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        await _until_waiting(agents, pending.workflow_id)

        parent_sa = (await handle.describe()).typed_search_attributes
        assert parent_sa.get(visibility.AGENT_PHASE) == "REVIEW"
        child_sa = (await child.describe()).typed_search_attributes
        assert child_sa.get(visibility.INTERRUPT_STATE) == "WAITING"
        assert child_sa.get(visibility.INTERRUPT_ORIGIN) == "REVIEW_AGENT"
        assert (
            f"waiting for an answer** to `{pending.workflow_id}`"
            in (await _current_details(handle)).lower()
        )

        details = await _current_details(child)
        assert "WAITING for a person" in details and "Send an Update" in details
        pasted = json.loads(re.search(r"```json\n(.*?)\n```", details, re.S)[1])  # type: ignore[index]
        ack = await child.execute_update("resolve_validated", pasted)  # what the UI sends
        assert ack["accepted"] is True
        await asyncio.wait_for(handle.result(), 60)

    assert (await child.describe()).typed_search_attributes.get(
        visibility.INTERRUPT_STATE
    ) == "RESOLVED"
    assert (await handle.describe()).typed_search_attributes.get(
        visibility.AGENT_PHASE
    ) == "COMPLETION"
