"""Run and follow: ``agents run``, ``follow``, ``list`` and ``status``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_interrupts.app.cli.session import (
    Session,
    as_option,
    interactive,
    open_session,
    worker_polls,
)

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from agent_interrupts.app.config import TemporalSettings
    from agent_interrupts.app.sdk import AgentWorkflowClient
    from agent_interrupts.models.forks import ListedFork


WorkerChoice = Literal["stack team", "stack scenario", "in process", "already serving"]
"""Which worker serves a new run: the local stack's for its team file or for its offline
scenario, one in this process (``--worker``), or one that already polls the queue."""


@dataclass(frozen=True)
class RunPlan:
    """What ``agents run`` arranges before it starts the run, decided once from its options."""

    worker: WorkerChoice
    queue: str
    """The task queue the run starts on (the local stack names its scenario worker's queue)."""
    team_elsewhere: bool
    """A team file's team runs on a configured server's worker, which must serve that file."""


SCENARIO_NEEDS_A_WORKER = (
    "--scenario shapes the offline model of a worker this command starts; against "
    "TEMPORAL_ADDRESS add --worker (an in-process worker on its own task queue), "
    "or unset TEMPORAL_ADDRESS to use the local stack"
)


def plan_run(
    task_queue: str, *, team_file: bool, scenario: str | None, in_process: bool, local: bool
) -> RunPlan | str:
    """The plan of ``agents run`` on ``task_queue`` (pure): ``team_file`` when ``--team`` names
    a file, ``in_process`` for ``--worker``, ``local`` when commands use the local stack; a
    one-line problem instead when nothing would run the ``scenario``."""
    from agent_interrupts.app.stack import scenario_queue

    if scenario and not in_process and not local:
        return SCENARIO_NEEDS_A_WORKER
    queue = scenario_queue(task_queue, scenario) if scenario else task_queue
    if in_process:
        return RunPlan("in process", queue, team_elsewhere=False)
    if local and team_file:
        return RunPlan("stack team", queue, team_elsewhere=False)
    if local and scenario:
        return RunPlan("stack scenario", queue, team_elsewhere=False)
    return RunPlan("already serving", task_queue, team_elsewhere=team_file and not local)


async def cmd_run(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from temporalio.exceptions import WorkflowAlreadyStartedError

    from agent_interrupts.activities.offline_model import OfflineScenario
    from agent_interrupts.activities.tools.workspace import is_git_url
    from agent_interrupts.app import render
    from agent_interrupts.app.config import llm_settings_from_env, notify_settings_from_env
    from agent_interrupts.app.stack import LocalStack
    from agent_interrupts.app.worker_setup import build_worker
    from agent_interrupts.models.limits import MAX_GOAL_CHARS
    from agent_interrupts.models.team_files import (
        TEAMS_SETTING,
        TeamFileError,
        configured_teams,
        resolve_team,
        setting_team_file,
    )
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
    if team is not None and team_file is None:  # a name: a team of this shell's AGENTS_TEAMS
        team_file = setting_team_file(team.name, os.environ)  # is served as its file would be
    named = [a.name for a in team.agents] if team is not None else []
    scenario = OfflineScenario.parse(args.scenario, named)  # a bad one: a one-line ValueError
    plan = plan_run(
        settings.task_queue,
        team_file=team_file is not None,
        scenario=args.scenario or None,
        in_process=args.worker,
        local=LocalStack(settings).serves(settings.address),
    )
    if isinstance(plan, str):
        render.error(plan)
        return 2
    async with AsyncExitStack() as resources:
        session = await resources.enter_async_context(open_session(settings))
        agents = session.agents
        queue = plan.queue
        gap: str | None = None
        if (
            plan.worker == "stack team"
            and session.stack is not None
            and team is not None
            and team_file
        ):
            if await session.stack.serve_team(team, team_file, queue):
                render.note(f"the local stack's worker serves team {team.name} ({team_file})")
            gap = session.stack.notifications_gap(queue)
        elif plan.worker == "stack scenario" and session.stack is not None and args.scenario:
            queue = await session.stack.ensure_scenario_worker(args.scenario)
            gap = session.stack.notifications_gap(queue)
        elif plan.worker == "in process":
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
        if plan.team_elsewhere and team is not None:
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
        return await follow_run(args, session, handle.id)


def _team_file(choice: str) -> Path | None:
    """The team file ``--team`` names, when it names one (not a served team's name)."""
    from agent_interrupts.models.team_files import TEAM_FILE

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
    if interactive(args):
        reader = LineReader()
        try:
            reply = await reader.read("Follow it instead? [Y/n] ")
        finally:
            reader.close()
        if reply.strip().lower() in ("", "y", "yes"):
            return await follow_run(args, session, args.id)
    render.note(f"follow it with: agents follow {args.id}")
    return 1


async def follow_run(args: argparse.Namespace, session: Session, workflow_id: str) -> int:
    """Follow to the end; Ctrl-C stops following only."""
    from asyncio import CancelledError

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
            interactive=interactive(args),
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
    except CancelledError:
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


async def cmd_follow(args: argparse.Namespace, settings: TemporalSettings) -> int:
    async with open_session(settings, args.workflow_id) as session:
        return await follow_run(args, session, args.workflow_id)


async def cmd_list(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.workflows import visibility

    async with open_session(settings) as session:
        agents = session.agents
        missing = await agents.search_attributes_missing()
        if missing:
            render.error(
                f"the namespace lacks the search attributes {', '.join(missing)}; create them: "
                + " && ".join(visibility.create_commands(settings.namespace))
            )
            return 1
        if args.waiting:
            return await _list_waiting(args, agents)
        runs = await agents.runs(limit=args.limit)
        if args.json:
            print(json.dumps([_wire(row) for row in runs], indent=2, default=str))
        else:
            render.runs(runs)
        return 0


async def _list_waiting(args: argparse.Namespace, agents: AgentWorkflowClient) -> int:
    """One page of waiting questions, narrowed on the server; the next page's command after it
    (on stderr with ``--json``, whose stdout stays the rows' array)."""
    from agent_interrupts.app import render
    from agent_interrupts.app.sdk import QUESTION_QUERY_TIMEOUT
    from agent_interrupts.app.waiting_pages import (
        WaitingFilter,
        WaitingFilterError,
        token_bytes,
        token_text,
    )

    narrowed = WaitingFilter(run=args.run or "", agent=args.agent or "")
    try:
        page = await agents.waiting_page(args.limit, token_bytes(args.page), narrowed)
    except WaitingFilterError as err:
        render.error(str(err))
        return 2
    questions = await agents.read_waiting(page.executions, QUESTION_QUERY_TIMEOUT)
    rows = [q.row() for q in questions]
    if args.json:
        print(json.dumps([_wire(row) for row in rows], indent=2, default=str))
    else:
        render.waiting(rows, datetime.now(UTC), wide=args.wide)
    if (token := token_text(page.next_token)) is not None:
        narrowing = "".join(
            f" --{name} {value}"
            for name, value in (("run", args.run), ("agent", args.agent))
            if value
        )
        more = f"next page: agents list --waiting --limit {args.limit}{narrowing} --page {token}"
        print(more, file=sys.stderr if args.json else sys.stdout)
    return 0


def _wire(row: object) -> dict[str, object]:
    return {
        "".join(w.capitalize() if i else w for i, w in enumerate(k.split("_"))): v
        for k, v in vars(row).items()
    }


async def cmd_status(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render

    async with open_session(settings, args.workflow_id) as session:
        if session.stack is None:  # a configured server: say at once when no worker answers
            await worker_polls(session, args.workflow_id)
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
        forks = [] if args.json else await _forks(session.agents, args.workflow_id)
    if args.json:
        print(json.dumps(status.model_copy(update={"history": entries}).to_wire(), indent=2))
    else:
        from agent_interrupts.app.run_picture import fork_branches

        render.status(status, entries, end, fork_branches(forks, status.fork))
    return 0


async def _forks(agents: AgentWorkflowClient, workflow_id: str) -> list[ListedFork]:
    """The run's forks, for its picture (none where the namespace cannot list them)."""
    from temporalio.service import RPCError

    try:
        return await agents.forks(workflow_id)
    except RPCError:
        return []


def run_options(run: argparse.ArgumentParser) -> None:
    from agent_interrupts.models.state import DEFAULT_MAX_STEPS

    run.add_argument("goal", help="what the agents should achieve")
    run.add_argument("--id", help="workflow id (default: orchestrator-<random>)")
    run.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS, help="agent step limit")
    run.add_argument(
        "--scenario",
        help="offline-model scenario naming the team's agents: 'interrupt=AGENT;delay=AGENT:2'",
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
    follow_options(run)


def follow_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-input",
        action="store_true",
        help="never ask in the terminal; answer with `agents resolve` or the Temporal UI",
    )
    p.add_argument("--json", action="store_true", help="print only the raw final result")
    as_option(p)
    p.add_argument(
        "--stop-at-question",
        action="store_true",
        help="stop following when a question waits for a person (the run keeps waiting)",
    )
