"""Supervisor SDK and command line for the agent workflows (``agents ...`` after install).

    agents run "add rate limiting to the gateway"
    agents follow <workflow-id>
    agents list --waiting
    agents inbox [--host H] [--port P] [--token T]
    agents resolve <interrupt-id> --choice ID=B --confirm ID=yes
    agents interrupt <workflow-id> --source PLANNING_ORCHESTRATOR --reason "..."
    agents up --status
    agents export --out data.jsonl [--format openai|native] [--kind K ...] [--split 0.9]
    agents export --check native.jsonl
    agents stats [--query Q] [--json]

With no TEMPORAL_ADDRESS (or Temporal profile), commands use the local stack of the state
directory (``AGENTS_STATE_DIR``, default ``.state``): a Temporal dev server and a worker in the
background that ``agents up`` starts and ``agents down`` stops. ``python client.py`` works too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from temporalio.client import Client
    from temporalio.service import RPCError

    from agent_interrupts.app.config import TemporalSettings
    from agent_interrupts.app.sdk import AgentWorkflowClient, EventRejected, ResolutionRejected
    from agent_interrupts.app.stack import LocalStack
    from agent_interrupts.models.interrupt_events import InterruptRequestEvent

__all__ = ["AgentWorkflowClient", "EventRejected", "ResolutionRejected", "main"]

_SDK_NAMES = ("AgentWorkflowClient", "EventRejected", "ResolutionRejected")


def __getattr__(name: str) -> Any:
    """The SDK's names, loaded on first use: ``from agent_interrupts.client import
    AgentWorkflowClient`` works, and ``agents --help`` does not pay for them."""
    if name in _SDK_NAMES:
        from agent_interrupts.app import sdk

        return getattr(sdk, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
async def _session(
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
        for problem in local.not_started:
            render.note(f"warning: {problem}")
        client = await local_client(info)
        ui: str | None = info.ui_url
        stack = local
        if workflow_id is not None:
            await local.ensure_worker_of(client, workflow_id)
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


async def _worker_polls(session: Session, workflow_id: str) -> None:
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


def _interactive(args: argparse.Namespace) -> bool:
    return sys.stdin.isatty() and not getattr(args, "no_input", False) and not args.json


async def _cmd_run(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from temporalio.exceptions import WorkflowAlreadyStartedError

    from agent_interrupts.activities.offline_model import OfflineScenario
    from agent_interrupts.activities.tools.workspace import is_git_url
    from agent_interrupts.app import render
    from agent_interrupts.app.config import llm_settings_from_env, notify_settings_from_env
    from agent_interrupts.app.stack import LocalStack, scenario_queue
    from agent_interrupts.app.team_files import (
        TEAMS_SETTING,
        TeamFileError,
        configured_teams,
        resolve_team,
    )
    from agent_interrupts.app.worker_setup import build_worker
    from agent_interrupts.models.limits import MAX_GOAL_CHARS
    from agent_interrupts.models.tools import WorkspaceSpec
    from agent_interrupts.models.ui_pages import workflow_page

    if not args.goal.strip():
        render.error('the goal is empty; run: agents run "<what to achieve>"')
        return 2
    if len(args.goal) > MAX_GOAL_CHARS:
        render.error(
            f"the goal has {len(args.goal):,} characters, over the limit of {MAX_GOAL_CHARS:,}; "
            "shorten it"
        )
        return 2
    if args.workspace and not is_git_url(args.workspace) and not Path(args.workspace).is_dir():
        render.error(f"--workspace {args.workspace!r} is neither a directory nor a git URL")
        return 2
    try:
        team = resolve_team(args.team, os.environ) if args.team else None
    except TeamFileError as err:
        for problem in err.problems:
            render.error(problem)
        return 2
    team_file = _team_file(args.team) if team is not None else None
    if args.scenario:
        named = [a.name for a in team.agents] if team is not None else []
        OfflineScenario.parse(args.scenario, named)  # a bad scenario is a one-line ValueError
        if not args.worker and not LocalStack(settings).serves(settings.address):
            render.error(
                "--scenario shapes the offline model of a worker this command starts; against "
                "TEMPORAL_ADDRESS add --worker (an in-process worker on its own task queue), "
                "or unset TEMPORAL_ADDRESS to use the local stack"
            )
            return 2
    async with AsyncExitStack() as resources:
        session = await resources.enter_async_context(_session(settings))
        agents = session.agents
        queue = settings.task_queue
        gap: str | None = None
        if team is not None and team_file and session.stack is not None and not args.worker:
            queue = scenario_queue(queue, args.scenario) if args.scenario else queue
            if await session.stack.serve_team(team, team_file, queue):
                render.note(f"the local stack's worker serves team {team.name} ({team_file})")
            gap = session.stack.notifications_gap(queue)
        elif args.scenario and session.stack is not None and not args.worker:
            queue = await session.stack.ensure_scenario_worker(args.scenario)
            gap = session.stack.notifications_gap(queue)
        elif args.worker:
            scenario = OfflineScenario.parse(
                args.scenario, [a.name for a in team.agents] if team is not None else []
            )
            queue = scenario_queue(queue, args.scenario) if args.scenario else queue
            llm, notify = llm_settings_from_env(), notify_settings_from_env()
            teams = configured_teams(os.environ)
            if team is not None:
                teams[team.name] = team
            await resources.enter_async_context(
                build_worker(
                    agents.client, queue, llm, scenario=scenario, notify=notify, teams=teams
                )
            )
            render.note(f"In-process worker on queue {queue!r}; it stops with this command")
            if session.stack is not None:
                gap = session.stack.notifications_gap(queue, [str(c) for c in notify.channels])
        if gap:
            render.note(gap)
        if team is not None and team_file and session.stack is None and not args.worker:
            render.note(
                f"team {team.name} runs on the worker of {settings.address}: it must serve "
                f"this file's version ({TEAMS_SETTING} there); the run says so if it does not"
            )
        try:
            workspace = (
                WorkspaceSpec(source=args.workspace, ref=args.ref, test_command=args.test_command)
                if args.workspace
                else None
            )
            handle = await agents.start(
                args.goal,
                workflow_id=args.id,
                max_steps=args.max_steps,
                task_queue=queue,
                workspace=workspace,
                shadow_answers=args.shadow_answers,
                controller_autonomy=args.controller_autonomy,
                team=team.name if team is not None else None,
            )
        except WorkflowAlreadyStartedError:
            return await _already_started(args, session)
        if not args.json:
            render.console.print(f"Started [bold]{handle.id}[/]")
            if page := workflow_page(session.ui_url, session.agents.client.namespace, handle.id):
                render.note(f"Temporal UI: {page}")
        return await _follow(args, session, handle.id)


def _team_file(choice: str) -> Path | None:
    """The team file ``--team`` names, when it names one (not a served team's name)."""
    from agent_interrupts.app.team_files import TEAM_FILE

    path = Path(choice).expanduser()
    if path.is_dir():
        path = path / TEAM_FILE
    return path if path.is_file() else None


async def _already_started(args: argparse.Namespace, session: Session) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.terminal_input import LineReader

    described = await session.agents.client.get_workflow_handle(args.id).describe()
    state = described.status.name if described.status else "UNKNOWN"
    render.error(f"a run with id {args.id} already exists ({state})")
    if _interactive(args):
        reader = LineReader()
        try:
            reply = await reader.read("Follow it instead? [Y/n] ")
        finally:
            reader.close()
        if reply.strip().lower() in ("", "y", "yes"):
            return await _follow(args, session, args.id)
    render.note(f"follow it with: agents follow {args.id}")
    return 1


async def _follow(args: argparse.Namespace, session: Session, workflow_id: str) -> int:
    """Follow to the end; Ctrl-C stops following only."""
    from temporalio.client import WorkflowFailureError

    from agent_interrupts.app import render
    from agent_interrupts.app.follow import StoppedAtQuestion, follow
    from agent_interrupts.app.people import person_name
    from agent_interrupts.models.errors import failure_message

    session.agents.person = person_name(args.as_name)
    try:
        result = await follow(
            session.agents,
            workflow_id,
            interactive=_interactive(args),
            ui_url=session.ui_url,
            quiet=args.json,
            stop_at_question=args.stop_at_question,
            local_stack=session.stack is not None,
        )
    except StoppedAtQuestion as stop:
        render.console.print(
            f"\n{workflow_id} waits for an answer to {stop.interrupt_id}. Answer it with "
            f"`agents resolve {stop.interrupt_id}` (or in the Temporal UI), then follow the run "
            f"again: agents follow {workflow_id}"
        )
        return 0
    except asyncio.CancelledError:
        render.console.print(
            f"\nStopped following {workflow_id}; the run goes on. "
            f"Follow it again: agents follow {workflow_id}"
        )
        return 130
    except WorkflowFailureError as err:
        render.error(f"workflow {workflow_id} failed: {failure_message(err)}")
        return 1
    if args.json:
        print(json.dumps(result.to_wire(), indent=2))
    else:
        render.result(workflow_id, result)
    return 0


async def _cmd_follow(args: argparse.Namespace, settings: TemporalSettings) -> int:
    async with _session(settings, args.workflow_id) as session:
        return await _follow(args, session, args.workflow_id)


async def _cmd_up(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.sdk import AgentWorkflowClient
    from agent_interrupts.app.stack import LocalStack, local_client

    stack = LocalStack(settings)
    if not stack.serves(settings.address):
        render.error(
            f"TEMPORAL_ADDRESS is {settings.address}: commands use that server, not a local "
            "stack; to run the local stack anyway, unset TEMPORAL_ADDRESS (and set AGENTS_PORT "
            f"to run it on another port than {settings.port} if that one is taken)"
        )
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


async def _cmd_env(args: argparse.Namespace, settings: TemporalSettings) -> int:
    """``export`` lines of the Temporal address and namespace that commands use, for ``eval``."""
    from agent_interrupts.app import render
    from agent_interrupts.app.stack import LocalStack, assignments

    stack = LocalStack(settings)
    if settings.address is not None and not stack.serves(settings.address):
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


async def _cmd_down(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.stack import LocalStack

    stack = LocalStack(settings)
    stopped = await asyncio.to_thread(stack.down)
    done = f"Stopped the local stack of {stack.dir}." if stopped else "No local stack was running."
    render.console.print(done)
    return 0


async def _cmd_list(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.workflows import visibility

    async with _session(settings) as session:
        agents = session.agents
        missing = await agents.search_attributes_missing()
        if missing:
            render.error(
                f"the namespace lacks the search attributes {', '.join(missing)}; create them: "
                + " && ".join(visibility.create_commands(settings.namespace))
            )
            return 1
        if args.waiting:
            waiting = await agents.waiting(limit=args.limit)
            if args.json:
                print(json.dumps([_wire(row) for row in waiting], indent=2, default=str))
            else:
                render.waiting(waiting, datetime.now(UTC), wide=args.wide)
            return 0
        runs = await agents.runs(limit=args.limit)
        if args.json:
            print(json.dumps([_wire(row) for row in runs], indent=2, default=str))
        else:
            render.runs(runs)
        return 0


def _wire(row: object) -> dict[str, object]:
    return {
        "".join(w.capitalize() if i else w for i, w in enumerate(k.split("_"))): v
        for k, v in vars(row).items()
    }


async def _cmd_status(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render

    async with _session(settings, args.workflow_id) as session:
        if session.stack is None:  # a configured server: say at once when no worker answers
            await _worker_polls(session, args.workflow_id)
        stuck = await session.agents.stuck(args.workflow_id)
        if stuck is not None:  # its queries would wait on workers that cannot replay it
            render.error(stuck)
            return 1
        if await session.agents.is_interrupt(args.workflow_id):
            question = await session.agents.interrupt_status(args.workflow_id)
            if args.json:
                print(json.dumps(question.to_wire(), indent=2))
            else:
                render.interrupt_status(question)
            return 0
        status = await session.agents.status(args.workflow_id)
        entries = await session.agents.blackboard(args.workflow_id)
        end = None if args.json else await session.agents.run_end(args.workflow_id)
    if args.json:
        print(json.dumps(status.model_copy(update={"history": entries}).to_wire(), indent=2))
    else:
        render.status(status, entries, end)
    return 0


def _as_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as",
        dest="as_name",
        metavar="NAME",
        help="the name your answers carry (default: AGENTS_USER, else your login name)",
    )


async def _cmd_resolve(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.answering import (
        example_flags,
        resolution_from_flags,
        stop_resolution,
        with_continue_at,
    )
    from agent_interrupts.app.follow import answer
    from agent_interrupts.app.people import person_name
    from agent_interrupts.app.sdk import ResolutionRejected, accepted
    from agent_interrupts.app.terminal_input import LineReader
    from agent_interrupts.models.team_build import team_of

    async with _session(settings, args.interrupt_id) as session:
        agents = session.agents
        agents.person = person_name(args.as_name)
        answers_given = bool(
            args.choice or args.custom or args.confirm or args.text or args.stop
        ) or bool(args.continue_at)
        if not answers_given and _interactive(args):
            reader = LineReader()
            try:
                await answer(agents, args.interrupt_id, reader, session.ui_url)
            finally:
                reader.close()
            return 0
        if answers_given and (closed := await agents.answered_already(args.interrupt_id)):
            render.error(closed)  # who answered what (its history: no worker needed)
            return 1
        question = await agents.interrupt_status(args.interrupt_id)
        if not answers_given or args.show:
            render.question(args.interrupt_id, question.origin, question.request)
        if not answers_given:
            render.note(
                f"answer with flags, e.g.: agents resolve {args.interrupt_id} "
                + example_flags(question.request)
            )
            return 0
        resolution = (
            stop_resolution(args.stop, args.choice or args.custom or args.confirm or args.text)
            if args.stop is not None
            else resolution_from_flags(
                args.choice,
                args.custom,
                args.confirm,
                args.text,
                request=question.request,
                in_parts=question.answers_in_parts,
            )
        )
        if args.continue_at:
            team = team_of(question.team)
            resolution = with_continue_at(resolution, question.origin, args.continue_at, team=team)
        try:
            ack = await agents.resolve(args.interrupt_id, resolution)
        except ResolutionRejected as err:
            render.error(str(err))
            return 1
    render.console.print(f"accepted: {accepted(ack.message, question)}", markup=False)
    return 0


async def _cmd_inbox(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.config import InboxSettings
    from agent_interrupts.app.inbox.web import (
        create_app,
        inbox_link,
        listening,
        serve,
    )

    inbox = InboxSettings.from_env(host=args.host, port=args.port, token=args.token)
    with listening(inbox) as sock:
        async with _session(settings) as session:
            app = create_app(
                session.agents,
                inbox,
                limit=args.limit,
                ui_url=session.ui_url,
                state_dir=settings.state_dir,
            )
            render.console.print(
                f"Inbox: {inbox_link(inbox)}  (Ctrl-C stops it)", markup=False, soft_wrap=True
            )
            await serve(app, sock)
    return 0


async def _cmd_export(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app.export import Format, Kind
    from agent_interrupts.app.lineage_records import check_file

    if args.check:
        report = check_file(Path(args.check))
        print("\n".join(report.lines()))
        return 1 if report.unresolved else 0
    if not args.out:
        raise ValueError("give --out FILE to export, or --check FILE to verify a native export")
    async with _session(settings) as session:
        summary = await session.agents.export(
            Path(args.out),
            fmt=Format(args.format),
            kinds=[Kind(k) for k in args.kind],
            ids=args.ids,
            query=args.query,
            split=args.split,
            metadata=args.metadata,
            tool_results=Path(args.tool_results) if args.tool_results else None,
        )
    print("\n".join(summary.lines()))
    return 0


async def _cmd_stats(args: argparse.Namespace, settings: TemporalSettings) -> int:
    async with _session(settings) as session:
        lines = (await session.agents.stats(args.ids, args.query)).lines()
    if args.json:
        print(json.dumps([line.to_wire() for line in lines], indent=2))
        return 0
    for line in lines:
        mark = {True: "ok", False: f"below target ({line.short} short)", None: ""}[line.met]
        target = f"target: {_in_words(line.target)}" if line.target else ""
        print(f"{line.name:<56} {line.value:<26} {target:<24} {mark}".rstrip())
        if line.meaning:
            print(f"    {line.meaning}")
    return 0


def _in_words(target: str) -> str:
    """``>= 80%`` -> ``at least 80%``, ``< 2 s each`` -> ``under 2 s each``."""
    for sign, words in ((">= ", "at least "), ("<= ", "at most "), ("< ", "under ")):
        if target.startswith(sign):
            return words + target.removeprefix(sign)
    return target


def _add_selection(command: argparse.ArgumentParser) -> None:
    command.add_argument("ids", nargs="*", metavar="ID", help="workflow ids (newest run)")
    command.add_argument(
        "--query",
        help='Temporal visibility query among closed runs, e.g. "StartTime > '
        "'2026-01-01T00:00:00Z'\" (default with no ID: every closed OrchestratorWorkflow run)",
    )


def event_from_args(args: argparse.Namespace) -> InterruptRequestEvent:
    """Build an InterruptRequestEvent from ``agents interrupt`` flags."""
    from agent_interrupts.models.interrupt_events import InterruptRequestEvent

    extra: dict[str, object] = {}
    if args.choices_file:
        loaded = json.loads(Path(args.choices_file).read_text())
        if isinstance(loaded, list):
            extra["choices"] = loaded
        elif isinstance(loaded, dict):
            extra.update({k: v for k, v in loaded.items() if k in ("choices", "confirmationItems")})
        else:
            raise ValueError(f"{args.choices_file}: expected a JSON list of choices or an object")
    return InterruptRequestEvent.model_validate(
        {
            "eventId": args.event_id or str(uuid.uuid4()),
            "timestamp": datetime.now(UTC).isoformat(),
            "nodeId": args.node,
            "sourceAgentType": args.source,
            "rerouteToAgentType": args.reroute,
            "interruptType": args.type,
            "reason": args.reason,
            "contextForDecision": args.context or "",
            **extra,
        }
    )


async def _cmd_interrupt(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from pydantic import ValidationError

    from agent_interrupts.app import render
    from agent_interrupts.app.sdk import EventRejected
    from agent_interrupts.models.errors import describe_validation_error

    try:
        event = event_from_args(args)
    except ValidationError as err:
        render.error(f"invalid event: {describe_validation_error(err)}")
        return 2
    async with _session(settings, args.workflow_id) as session:
        agents = session.agents
        if args.signal:
            try:
                await agents.signal_interrupt_event(args.workflow_id, event)
            except EventRejected as err:
                render.error(str(err))
                return 1
            render.console.print(
                f"signalled event {event.event_id}; see: agents status {args.workflow_id}"
            )
            return 0
        try:
            ack = await agents.send_interrupt_event(args.workflow_id, event)
        except EventRejected as err:
            render.error(str(err))
            return 1
    render.console.print(f"accepted event {event.event_id}: {ack.message}", markup=False)
    return 0


def _parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The command line. Every command is listed, but only the options of the command ``argv``
    names are built (some load the module their choices come from): ``agents --help`` and
    ``agents list`` load nothing they do not use."""
    named = next((word for word in argv if not word.startswith("-")), None)
    parser = argparse.ArgumentParser(prog="agents", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--verbose", action="store_true", help="show library logs (httpx ...)")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(
        name: str, handler: object, help: str, aliases: Sequence[str] = ()
    ) -> argparse.ArgumentParser | None:
        """The command's parser when ``argv`` names it (its options to add), else None."""
        p = sub.add_parser(name, help=help, aliases=list(aliases))
        p.set_defaults(handler=handler, json=False)
        return p if named in (name, *aliases) else None

    if up := command("up", _cmd_up, "start the local Temporal server and worker (idempotent)"):
        up.add_argument("--status", action="store_true", help="only say what runs where")
    command("down", _cmd_down, "stop the local stack of this state directory")
    command(
        "env",
        _cmd_env,
        "print `export TEMPORAL_ADDRESS=... TEMPORAL_NAMESPACE=...` of the server commands use "
        '(the local stack, started if needed), for: eval "$(agents env)"',
    )
    if run := command("run", _cmd_run, "start a run for a goal and follow it to its result"):
        _run_options(run)
    if follow := command("follow", _cmd_follow, "follow a run again"):
        _follow_options(follow)
        follow.add_argument("workflow_id")
    lister = command("list", _cmd_list, "recent runs; --waiting: questions waiting for a person")
    if lister:
        lister.add_argument("--waiting", action="store_true", help="the inbox of waiting questions")
        lister.add_argument("--limit", type=int, default=20)
        lister.add_argument(
            "--wide",
            action="store_true",
            help="with --waiting: each question on its row's one line, unwrapped (for grep)",
        )
        lister.add_argument("--json", action="store_true", help="machine-readable rows")
    inbox = command("inbox", _cmd_inbox, "answer waiting questions in the browser (a web inbox)")
    if inbox:
        _inbox_options(inbox)
    status = command(
        "status",
        _cmd_status,
        "show a run's picture, phase, history and events, or an interrupt's question and events",
    )
    if status:
        status.add_argument("workflow_id")
        status.add_argument("--json", action="store_true", help="print the raw status query result")
    resolve = command(
        "resolve", _cmd_resolve, "answer an interrupt (no answers given: show it, or ask)"
    )
    if resolve:
        _resolve_options(resolve)
    interrupt = command(
        "interrupt",
        _cmd_interrupt,
        "ask the running agent to interrupt and re-route (a supervisor's event; alias: event)",
        aliases=["event"],
    )
    if interrupt:
        _interrupt_options(interrupt)
    if exporter := command("export", _cmd_export, "write training data (JSONL) from finished runs"):
        _export_options(exporter)
        _add_selection(exporter)
    if stats := command("stats", _cmd_stats, "success rates over finished runs, beside targets"):
        stats.add_argument("--json", action="store_true", help="print the rates as JSON")
        _add_selection(stats)
    return parser


def _run_options(run: argparse.ArgumentParser) -> None:
    from agent_interrupts.models.state import DEFAULT_MAX_STEPS

    run.add_argument("goal", help="what the agents should achieve")
    run.add_argument("--id", help="workflow id (default: orchestrator-<random>)")
    run.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS, help="agent step limit")
    run.add_argument(
        "--scenario",
        help="offline-model scenario, e.g. 'interrupt=PLANNING_ORCHESTRATOR;delay=REVIEW_AGENT:2'",
    )
    run.add_argument(
        "--workspace",
        metavar="PATH|URL",
        help="a local git directory or a git URL the agents may read (pinned to one commit)",
    )
    run.add_argument("--ref", help="with --workspace: branch, tag or commit (default: HEAD)")
    run.add_argument(
        "--team",
        metavar="NAME|PATH",
        help="the team that does the work: a team file (or its directory), or the name of one "
        "the worker serves (shipped, or in AGENTS_TEAMS); default: the software team",
    )
    run.add_argument(
        "--test-command",
        metavar="CMD",
        help="with --workspace: the ticket agents' verification command, run in a sandbox "
        "(default: the workspace's [tool.agents] test-command, else pytest when it has tests)",
    )
    run.add_argument(
        "--shadow-answers",
        action="store_true",
        help="the controller model (CONTROLLER_MODEL) also answers every question a person "
        "answers, recorded and never acted on; agents stats shows how often they agree",
    )
    run.add_argument(
        "--controller-autonomy",
        action="store_true",
        help="the controller answers kinds of question it earned (the worker's "
        "AGENT_AUTONOMY_POLICY and its shadow answers' agreement); a person may overrule",
    )
    run.add_argument(
        "--worker",
        action="store_true",
        help="with TEMPORAL_ADDRESS: also run an in-process worker (needed for --scenario)",
    )
    _follow_options(run)


def _follow_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-input",
        action="store_true",
        help="never ask in the terminal; answer with `agents resolve` or the Temporal UI",
    )
    p.add_argument("--json", action="store_true", help="print only the raw final result")
    _as_option(p)
    p.add_argument(
        "--stop-at-question",
        action="store_true",
        help="stop following when a question waits for a person (the run keeps waiting)",
    )


def _inbox_options(inbox: argparse.ArgumentParser) -> None:
    from agent_interrupts.app.config import DEFAULT_INBOX_HOST, DEFAULT_INBOX_PORT

    inbox.add_argument(
        "--host",
        help=f"address to listen on (default {DEFAULT_INBOX_HOST}); any other than loopback "
        "needs --token",
    )
    inbox.add_argument(
        "--port",
        type=int,
        help=f"port (default: AGENTS_INBOX_PORT, else {DEFAULT_INBOX_PORT})",
    )
    inbox.add_argument(
        "--token",
        help="every request must carry it (the printed link sets a cookie); default: "
        "AGENTS_INBOX_TOKEN",
    )
    inbox.add_argument("--limit", type=int, default=100, help="waiting questions listed")


def _resolve_options(resolve: argparse.ArgumentParser) -> None:
    resolve.add_argument("interrupt_id", help="e.g. orchestrator-1a2b3c4d5e6f-interrupt-1")
    resolve.add_argument("--choice", action="append", default=[], metavar="ID=OPTION")
    resolve.add_argument("--custom", action="append", default=[], metavar='ID="TEXT"')
    resolve.add_argument("--confirm", action="append", default=[], metavar="ID=yes|no")
    resolve.add_argument("--text", help="free text for the agent")
    resolve.add_argument(
        "--stop", metavar='"REASON"', help="stop the run here instead of answering (it fails)"
    )
    resolve.add_argument(
        "--continue-at",
        metavar="AGENT",
        help="send the run on to one of the asking agent's routes (in the run's team) instead "
        "of back to it",
    )
    resolve.add_argument("--show", action="store_true", help="print the question first")
    resolve.add_argument("--no-input", action="store_true", help="never ask in the terminal")
    _as_option(resolve)


def _interrupt_options(interrupt: argparse.ArgumentParser) -> None:
    from agent_interrupts.models.interrupts import InterruptType

    interrupt.add_argument("workflow_id", help="the OrchestratorWorkflow's id")
    interrupt.add_argument(
        "--source",
        required=True,
        type=str.upper,
        metavar="AGENT_TYPE",
        help="the agent of the run's team that should interrupt (must be running)",
    )
    interrupt.add_argument(
        "--reroute",
        type=str.upper,
        metavar="AGENT_TYPE",
        help="where to continue after the answer: an agent of the run's team (default: back to "
        "--source)",
    )
    interrupt.add_argument("--reason", required=True, help="why; the agent is told this")
    interrupt.add_argument(
        "--type", default="HUMAN_REVIEW", choices=[t.value for t in InterruptType]
    )
    interrupt.add_argument("--node", help="the running node's id (default: the node of --source)")
    interrupt.add_argument("--context", help="contextForDecision shown with the question")
    interrupt.add_argument("--choices-file", help="JSON: [{label, value, description}, ...]")
    interrupt.add_argument("--event-id", help="idempotency key (default: a new uuid)")
    interrupt.add_argument(
        "--signal",
        action="store_true",
        help="send as a signal (no answer; problems become workflow events)",
    )


def _export_options(exporter: argparse.ArgumentParser) -> None:
    from agent_interrupts.app.export import Format, Kind

    exporter.add_argument("--out", help="JSONL file to write")
    exporter.add_argument(
        "--check",
        metavar="FILE",
        help="verify a native export instead: every context id it names is defined by a record",
    )
    exporter.add_argument("--format", default="openai", choices=[f.value for f in Format])
    exporter.add_argument(
        "--kind",
        action="append",
        default=[],
        choices=[k.value for k in Kind],
        help="only these kinds (repeat; default: all)",
    )
    exporter.add_argument(
        "--split",
        type=float,
        help="fraction of runs for <out>.train.jsonl (by a stable hash); the rest: .valid",
    )
    exporter.add_argument(
        "--metadata", action="store_true", help="openai format: add each example's metadata"
    )
    exporter.add_argument(
        "--tool-results",
        metavar="DIR",
        help="where the workers kept tool results (default: AGENT_TOOL_RESULTS_DIR, else "
        "<AGENTS_STATE_DIR>/tool-results)",
    )


def _rpc_message(err: RPCError, settings: TemporalSettings | None) -> str:
    """One line for a failed Temporal call."""
    from temporalio.service import RPCStatusCode

    if err.status is RPCStatusCode.UNAVAILABLE:
        where = settings.address if settings and settings.address else "the local stack"
        return (
            f"lost the connection to Temporal at {where} ({err.message}); check TEMPORAL_ADDRESS "
            "or run: agents up --status"
        )
    if "poller" in err.message:
        configured = settings is not None and settings.address is not None
        start = "python worker.py" if configured else "agents up (local stack) or python worker.py"
        return f"no worker serves this workflow's task queue ({err.message}); start one: {start}"
    return f"Temporal said: {err.message}"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser(sys.argv[1:] if argv is None else argv).parse_args(argv)
    from pydantic import ValidationError
    from temporalio.client import WorkflowQueryFailedError
    from temporalio.service import RPCError

    from agent_interrupts.app import render
    from agent_interrupts.app.config import TemporalSettings
    from agent_interrupts.app.connect import ConnectionProblem
    from agent_interrupts.app.logs import configure_logging
    from agent_interrupts.app.stack import StackError
    from agent_interrupts.models.errors import describe_validation_error

    configure_logging(args.verbose, quiet=True)
    settings: TemporalSettings | None = None
    try:
        settings = TemporalSettings.from_env()
        return int(asyncio.run(args.handler(args, settings)))
    except ValidationError as err:
        render.error(f"invalid input: {describe_validation_error(err)}")
        return 2
    except (ValueError, ConnectionProblem, StackError, NoWorker) as err:
        render.error(str(err))
        return 2 if isinstance(err, ValueError) else 1
    except RPCError as err:
        render.error(_rpc_message(err, settings))
        return 1
    except WorkflowQueryFailedError as err:
        render.error(f"the workflow could not answer the query: {err.message}")
        return 1
    except KeyboardInterrupt:
        return 130


def console_script() -> None:
    """The ``agents`` entry point."""
    from agent_interrupts.app.process_exit import exit_now

    exit_now(main())


if __name__ == "__main__":
    console_script()
