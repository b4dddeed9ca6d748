"""Answer and steer: ``agents resolve`` (answer a question) and ``interrupt`` (a supervisor's
event)."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent_interrupts.app.cli.session import as_option, interactive, open_session

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from agent_interrupts.app.config import TemporalSettings
    from agent_interrupts.app.sdk import StartedFork
    from agent_interrupts.models.interrupt_events import InterruptRequestEvent
    from agent_interrupts.models.interrupt_flow import InterruptInput, InterruptStatus
    from agent_interrupts.models.interrupts import InterruptResolution


@dataclass(frozen=True)
class ResolvePlan:
    """What ``agents resolve`` does with its flags, decided before it reads the question."""

    answers: bool
    """The flags carry an answer (or a stop, or where to continue)."""
    ask: bool
    """No answer given and a terminal to ask in: ask there."""
    show: bool
    """Print the question (no answer given, or ``--show``)."""


def plan_resolve(args: argparse.Namespace, interactive: bool) -> ResolvePlan:
    """The plan of ``agents resolve`` from its parsed flags (pure); ``interactive``: a person at
    the terminal may be asked."""
    answers = bool(args.choice or args.custom or args.confirm or args.text or args.stop) or bool(
        args.continue_at
    )
    return ResolvePlan(answers, ask=not answers and interactive, show=not answers or args.show)


async def cmd_resolve(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.answering import (
        example_flags,
    )
    from agent_interrupts.app.follow import answer
    from agent_interrupts.app.people import person_name
    from agent_interrupts.app.sdk import ResolutionRejected, accepted
    from agent_interrupts.app.terminal_input import LineReader
    from agent_interrupts.models.interrupts import Door

    async with open_session(settings, args.interrupt_id) as session:
        agents = session.agents
        agents.person = person_name(args.as_name)
        plan = plan_resolve(args, interactive(args))
        if plan.ask:
            reader = LineReader()
            try:
                await answer(agents, args.interrupt_id, reader, session.ui_url)
            finally:
                reader.close()
            return 0
        if plan.answers and (closed := await agents.answered_already(args.interrupt_id)):
            render.error(closed)  # who answered what (its history: no worker needed)
            return 1
        question = await agents.interrupt_status(args.interrupt_id)
        if plan.show:
            render.question(args.interrupt_id, question.origin, question.request)
        if not plan.answers:
            render.note(
                f"answer with flags, e.g.: agents resolve {args.interrupt_id} "
                + example_flags(question.request)
            )
            return 0
        resolution = resolution_of_flags(args, question)
        try:
            ack = await agents.resolve(args.interrupt_id, resolution, door=Door.CLI)
        except ResolutionRejected as err:
            render.error(str(err))
            return 1
    render.console.print(f"accepted: {accepted(ack.message, question)}", markup=False)
    return 0


def resolution_of_flags(
    args: argparse.Namespace, question: InterruptStatus | InterruptInput
) -> InterruptResolution:
    """The answer resolve's flags give ``question`` (``agents resolve`` and ``agents fork``)."""
    from agent_interrupts.app.answering import (
        resolution_from_flags,
        stop_resolution,
        with_continue_at,
    )
    from agent_interrupts.models.team_build import team_of

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
    return resolution


async def cmd_fork(args: argparse.Namespace, settings: TemporalSettings) -> int:
    """``agents fork RUN --at QUESTION_ID`` and an answer: a new run from the state RUN held
    when it asked, its question answered this way; ``--at STEP``: the step runs again, with
    ``--guidance`` (``docs/forks.md``)."""
    from temporalio.service import RPCError

    from agent_interrupts.app import render
    from agent_interrupts.app.people import person_name
    from agent_interrupts.models.errors import ForkRefused
    from agent_interrupts.models.interrupts import Door

    answers = args.choice or args.custom or args.confirm or args.text
    if "-interrupt-" not in args.at:  # an agent step of the run
        return await _fork_at_step(args, settings, bool(answers or args.stop or args.continue_at))
    if args.guidance is not None or args.model is not None:
        render.error("--guidance and --model are for a fork at an agent step, not a question")
        return 2
    if not (answers or args.stop or args.continue_at):
        render.error(
            "give the fork's answer with resolve's flags: --choice, --custom, --confirm, "
            "--text, --continue-at or --stop"
        )
        return 2
    async with open_session(settings, args.workflow_id) as session:
        agents = session.agents
        agents.person = person_name(args.as_name)
        try:
            question = await agents.question_input(args.at)
        except (ValueError, RPCError):
            question = None
        if question is None or question.orchestrator_id != args.workflow_id:
            render.error(
                f"{args.at} is not a question of {args.workflow_id} (`agents status "
                f"{args.workflow_id}` lists its questions)"
            )
            return 1
        resolution = resolution_of_flags(args, question)
        try:
            fork = await agents.fork(
                args.workflow_id, at=args.at, resolution=resolution, door=Door.CLI
            )
        except ForkRefused as err:
            render.error(str(err))
            return 1
    return _forked(args, fork)


async def _fork_at_step(
    args: argparse.Namespace, settings: TemporalSettings, answered: bool
) -> int:
    """``agents fork RUN --at STEP [--guidance TEXT]``: the step runs again in a new run."""
    from agent_interrupts.app import render
    from agent_interrupts.app.people import person_name
    from agent_interrupts.models.errors import ForkRefused

    if answered:
        render.error(
            f"{args.at} is an agent step: give --guidance (resolve's answer flags are for a "
            "question, <run id>-interrupt-<n>)"
        )
        return 2
    async with open_session(settings, args.workflow_id) as session:
        agents = session.agents
        try:
            fork = await agents.fork(
                args.workflow_id,
                at=args.at,
                guidance=args.guidance,
                model=args.model,
                forked_by=person_name(args.as_name),
            )
        except ForkRefused as err:
            render.error(str(err))
            return 1
    return _forked(args, fork)


def _forked(args: argparse.Namespace, fork: StartedFork) -> int:
    from agent_interrupts.app import render

    if args.json:
        render.console.print_json(
            data={
                "workflowId": fork.workflow_id,
                "questionId": fork.question_id,
                "fork": fork.link.to_wire(),
            }
        )
        return 0
    answered = f"; its question {fork.question_id} was answered" if fork.question_id else ""
    render.console.print(
        f"forked {args.workflow_id} at {args.at}: {fork.workflow_id} "
        f"({fork.link.carried_bytes} bytes of state carried){answered}. Follow it: "
        f"agents follow {fork.workflow_id}",
        markup=False,
    )
    return 0


async def cmd_forks(args: argparse.Namespace, settings: TemporalSettings) -> int:
    """``agents forks RUN``: the runs forked from RUN, with their points and answers."""
    from agent_interrupts.app import render

    async with open_session(settings, None) as session:
        listed = await session.agents.forks(args.workflow_id)
    if args.json:
        render.console.print_json(data=[f.model_dump(mode="json", by_alias=True) for f in listed])
        return 0
    if not listed:
        render.console.print(f"{args.workflow_id} has no forks", markup=False)
        return 0
    for fork in listed:
        link = fork.link
        where = link.point.label() if link else "?"
        answer = answer_flags(link.answer) if link and link.answer else ""
        who = f" by {link.forked_by}" if link and link.forked_by else ""
        render.console.print(
            f"{fork.workflow_id}  {fork.status}  at {where}{who}  {answer}", markup=False
        )
    return 0


def answer_flags(resolution: InterruptResolution) -> str:
    """An answer as the flags that give it (``--choice scope=B --confirm tests=no``)."""
    flags = [f"--choice {i}={k.value}" for i, k in resolution.selected_choices.items()]
    flags += [f"--custom {i}={json.dumps(t)}" for i, t in resolution.custom_inputs.items()]
    flags += [f"--confirm {i}={'yes' if v else 'no'}" for i, v in resolution.confirmations.items()]
    if resolution.free_text:
        flags.append(f"--text {json.dumps(resolution.free_text[:80])}")
    if resolution.continue_at:
        flags.append(f"--continue-at {resolution.continue_at}")
    if resolution.stop_run:
        flags.append(f"--stop {json.dumps(resolution.stop_run[:80])}")
    return " ".join(flags)


def fork_options(fork: argparse.ArgumentParser) -> None:
    fork.add_argument("workflow_id", help="the run to fork (its OrchestratorWorkflow id)")
    fork.add_argument(
        "--at",
        required=True,
        metavar="QUESTION_ID|STEP",
        help="the run's question to answer another way (orchestrator-1a2b-interrupt-1), or an "
        "agent step of the run to run again (its node id, planning-orchestrator-005); agents "
        "status RUN lists both",
    )
    fork.add_argument(
        "--guidance", metavar="TEXT", help="at a step: a person's guidance for the step's agent"
    )
    fork.add_argument(
        "--model", help="at a step: the model its agent's call uses instead of the worker's"
    )
    fork.add_argument("--choice", action="append", default=[], metavar="ID=OPTION")
    fork.add_argument("--custom", action="append", default=[], metavar='ID="TEXT"')
    fork.add_argument("--confirm", action="append", default=[], metavar="ID=yes|no")
    fork.add_argument("--text", help="free text for the agent")
    fork.add_argument("--stop", metavar='"REASON"', help="the fork stops at the question")
    fork.add_argument(
        "--continue-at",
        metavar="AGENT",
        help="send the fork on to one of the asking agent's routes instead of back to it",
    )
    fork.add_argument("--json", action="store_true", help="print the fork's id and link as JSON")
    as_option(fork)


def event_from_args(args: argparse.Namespace) -> InterruptRequestEvent:
    """Build an InterruptRequestEvent from ``agents interrupt`` flags."""
    from uuid import uuid4

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
            "eventId": args.event_id or str(uuid4()),
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


async def cmd_interrupt(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from pydantic import ValidationError

    from agent_interrupts.app import render
    from agent_interrupts.app.sdk import EventRejected
    from agent_interrupts.models.errors import describe_validation_error

    try:
        event = event_from_args(args)
    except ValidationError as err:
        render.error(f"invalid event: {describe_validation_error(err)}")
        return 2
    async with open_session(settings, args.workflow_id) as session:
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


def resolve_options(resolve: argparse.ArgumentParser) -> None:
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
    as_option(resolve)


def interrupt_options(interrupt: argparse.ArgumentParser) -> None:
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
