"""Who may answer, from which door, and who was first, through a real dev server and worker.

A worker with answer rules (``AGENTS_ANSWER_RULES``'s TOML) hands each question who may answer
it; the InterruptWorkflow's validator refuses anybody else at every door: the CLI's ``--as``, the
SDK's ``answered_by``, the inbox's named token and the Temporal UI's signal. Each answer records
its door beside its name (``agents status``, the run's events, the export). Two doors answering
at once get one accepted answer and one refusal naming who answered first, and from where.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.config import InboxSettings, answer_rules_from_env
from agent_interrupts.app.export import Format, Kind
from agent_interrupts.app.inbox.web import create_app
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import RESOLVE_SIGNAL
from agent_interrupts.models.interrupts import Door, InterruptResolution
from agent_interrupts.models.state import EventKind
from agent_interrupts.teams.software.agents import AgentType
from tests.support.cli import client_py
from tests.support.interrupts import GOAL, interrupt_status, wait_for_interrupt

BASE = "http://127.0.0.1:8300"
SAME_ORIGIN = {"Origin": BASE, "Sec-Fetch-Site": "same-origin", "X-Inbox-Fetch": "1"}
ANSWER = {"selectedChoices": {"approach": "A"}, "confirmations": {"add-tests": True}}
RULES = """
[groups]
leads = ["ada", "grace"]

[[rules]]
agent = "ORCHESTRATOR"
answer = ["leads"]
"""
MAY = "only ada, grace (group leads) may"
TOKENS = {"linus": "linus-t0ken-for-the-rules-tests", "grace": "grace-t0ken-for-the-rules-tests"}


def _inbox(agents: AgentWorkflowClient) -> httpx.AsyncClient:
    tokens = ", ".join(f"{name}={token}" for name, token in TOKENS.items())
    settings = InboxSettings.from_env({"AGENTS_INBOX_TOKEN": tokens}, host="0.0.0.0")
    app = create_app(agents, settings, limit=100)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)


async def _inbox_answer(
    http: httpx.AsyncClient, person: str, interrupt_id: str, run_id: str
) -> httpx.Response:
    bearer = {"Authorization": f"Bearer {TOKENS[person]}"}
    page = (await http.get(f"/?run={run_id}", headers=bearer)).text
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    return await http.post(
        "/answer",
        data={"csrf": csrf, "interrupt": interrupt_id, "choice.approach": "B"}
        | {"confirm.add-tests": "yes"},
        headers={**SAME_ORIGIN, **bearer},
    )


async def test_a_restricted_question_refuses_the_wrong_person_at_every_door(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(RULES)
    rules = answer_rules_from_env({"AGENTS_ANSWER_RULES": str(path)})
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    run_id = f"rules-{tmp_path.name}"
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, answer_rules=rules):
        handle = await agents.start(GOAL, workflow_id=run_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        asked = pending.workflow_id
        status = await interrupt_status(client, asked)
        assert status.answerers is not None and status.answerers.people == ["ada", "grace"]

        cli = await client_py(
            client, "resolve", asked, "--choice", "approach=B", "--confirm", "add-tests=yes",
            "--as", "bob",
        )  # fmt: skip
        assert cli.returncode != 0 and f"'bob' may not answer this question: {MAY}" in cli.stderr

        try:
            await agents.resolve(
                asked, InterruptResolution.model_validate(ANSWER), answered_by="mallory"
            )
            raise AssertionError("the SDK's answer of a person the rules leave out was taken")
        except ResolutionRejected as err:
            assert f"'mallory' may not answer this question: {MAY}" in str(err)

        async with _inbox(agents) as http:
            shown = await http.get(
                f"/?run={run_id}", headers={"Authorization": f"Bearer {TOKENS['linus']}"}
            )
            assert "may be answered by ada, grace (group leads) only" in shown.text
            refused = await _inbox_answer(http, "linus", asked, run_id)
        assert refused.status_code == 422
        assert "&#39;linus&#39; may not answer this question: only ada, grace" in refused.text

        await client.get_workflow_handle(asked).signal(RESOLVE_SIGNAL, ANSWER)  # the UI's form
        said, listed = await asyncio.gather(
            client_py(client, "status", asked),
            client_py(client, "list", "--waiting", "--wide", "--limit", "1000"),
        )
        assert "may answer: ada, grace (group leads)" in said.stdout, said.stdout
        assert f"{asked} may be answered by ada, grace (group leads)" in listed.stdout, listed
        async with asyncio.timeout(30):
            while not any(
                e.kind is EventKind.WARNING
                and "an answer without a name may not answer" in e.message
                for e in (await interrupt_status(client, asked)).events
            ):
                await asyncio.sleep(0.1)
        assert (await interrupt_status(client, asked)).resolution is None, "still waiting"

        cli = await client_py(
            client, "resolve", asked, "--choice", "approach=B", "--confirm", "add-tests=yes",
            "--as", "ada",
        )  # fmt: skip
        assert cli.returncode == 0, cli.stderr
        assert (await asyncio.wait_for(handle.result(), 60)).summary
        said, run = await asyncio.gather(
            client_py(client, "status", asked), client_py(client, "status", run_id)
        )
        assert "Resolved by: ada (HUMAN) via cli" in said.stdout, said.stdout
        assert f"{asked} by ada (HUMAN) via cli" in run.stdout, run.stdout

    out = tmp_path / "native.jsonl"
    await agents.export(out, fmt=Format.NATIVE, kinds=[Kind.RESOLUTION], ids=[run_id])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    examples = [r for r in rows if r["record"] == "example"]
    assert [(r["answeredBy"], r["door"]) for r in examples] == [("ada", "cli")]
    keys = list(examples[0])
    assert keys[keys.index("answeredBy") + 1] == "door"


def _names(first: str, refusal: str) -> bool:
    """Whether ``refusal`` names the answer that came ``first`` (``grace (HUMAN) via sdk``): an
    open question's validator says it so, a closed question's answer without the kind."""
    closed = first.replace(" (HUMAN)", "")
    return (
        f"already resolved (by {first})" in refusal or f"already answered, by {closed}" in refusal
    )


async def test_two_doors_answering_at_once_get_one_answer_and_one_refusal_naming_the_first(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    """The SDK and the inbox answer three questions at the same moment, then the CLI answers
    each: one answer is taken, every other door is told who answered and from where. Then two
    answers to each of three more questions wait while no worker runs, and the next worker takes
    both in one workflow task: the second is validated once the first is taken."""
    agents = AgentWorkflowClient(client, task_queue)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR})))
    runs = [f"race-{n}-{tmp_path.name}" for n in range(6)]
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handles = [await agents.start(GOAL, workflow_id=run) for run in runs]
        asked = []
        for handle in handles:
            pending = (await wait_for_interrupt(handle)).pending_interrupt
            assert pending is not None
            asked.append(pending.workflow_id)
        async with _inbox(agents) as http:
            for run, interrupt_id in zip(runs[:3], asked[:3], strict=True):
                bearer = {"Authorization": f"Bearer {TOKENS['linus']}"}
                await http.get(f"/?run={run}", headers=bearer)  # listed: the inbox may answer it
                sdk, inbox = await asyncio.gather(
                    agents.resolve(
                        interrupt_id,
                        InterruptResolution.model_validate(ANSWER),
                        answered_by="grace",
                    ),
                    _inbox_answer(http, "linus", interrupt_id, run),
                    return_exceptions=True,
                )
                if isinstance(sdk, BaseException):
                    first = "linus (HUMAN) via inbox"
                    assert isinstance(inbox, httpx.Response) and inbox.status_code == 200
                    assert isinstance(sdk, ResolutionRejected) and _names(first, str(sdk)), sdk
                else:
                    first = "grace (HUMAN) via sdk"
                    assert isinstance(inbox, httpx.Response) and inbox.status_code == 422
                    assert _names(first, inbox.text), inbox.text
                late = await client_py(
                    client, "resolve", interrupt_id, "--choice", "approach=C",
                    "--confirm", "add-tests=no", "--as", "ken",
                )  # fmt: skip
                assert late.returncode != 0, late.stdout
                assert _names(first, late.stderr), late.stderr
        for handle in handles[:3]:
            await asyncio.wait_for(handle.result(), 60)

    cli = AgentWorkflowClient(client, task_queue)  # as ``agents resolve`` answers

    async def both(interrupt_id: str) -> list[object]:
        return await asyncio.gather(
            agents.resolve(
                interrupt_id, InterruptResolution.model_validate(ANSWER), answered_by="grace"
            ),
            cli.resolve(
                interrupt_id,
                InterruptResolution.model_validate(ANSWER),
                answered_by="ken",
                door=Door.CLI,
            ),
            return_exceptions=True,
        )

    waiting = [asyncio.create_task(both(i)) for i in asked[3:]]
    await asyncio.sleep(1)  # both answers of each question wait for a worker
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        for pair, interrupt_id in zip(await asyncio.gather(*waiting), asked[3:], strict=True):
            resolution = (await interrupt_status(client, interrupt_id)).resolution
            assert resolution is not None
            first = f"{resolution.answered_by} (HUMAN) via {resolution.door}"
            taken = [a for a in pair if not isinstance(a, BaseException)]
            refused = [str(a) for a in pair if isinstance(a, BaseException)]
            assert len(taken) == 1 and len(refused) == 1, pair
            assert f"already resolved (by {first}); the answer was not used" in refused[0]
        for handle in handles[3:]:
            await asyncio.wait_for(handle.result(), 60)
