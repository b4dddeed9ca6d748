"""The ``agents`` command line: the parser (each command's options built only when it is the
one named), the errors every command may meet, and the entry point."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_interrupts.app.cli.answer import (
    cmd_fork,
    cmd_forks,
    cmd_interrupt,
    cmd_resolve,
    fork_options,
    interrupt_options,
    resolve_options,
)
from agent_interrupts.app.cli.encryption import cmd_codec, cmd_keys, codec_options, keys_options
from agent_interrupts.app.cli.export import add_selection, cmd_export, cmd_stats, export_options
from agent_interrupts.app.cli.inbox import cmd_inbox, inbox_options
from agent_interrupts.app.cli.run import (
    cmd_follow,
    cmd_list,
    cmd_run,
    cmd_status,
    follow_options,
    run_options,
)
from agent_interrupts.app.cli.session import NoWorker
from agent_interrupts.app.cli.stack import cmd_down, cmd_env, cmd_up

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from temporalio.service import RPCError

    from agent_interrupts.app.config import TemporalSettings

DESCRIPTION = (
    "Supervisor SDK and command line for the agent workflows (``agents ...`` after install)."
)
"""The line ``agents --help`` opens with."""


def parser_for(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The command line. Every command is listed, but only the options of the command ``argv``
    names are built (some load the module their choices come from): ``agents --help`` and
    ``agents list`` load nothing they do not use."""
    named = next((word for word in argv if not word.startswith("-")), None)
    parser = argparse.ArgumentParser(prog="agents", description=DESCRIPTION)
    parser.add_argument("--verbose", action="store_true", help="show library logs (httpx ...)")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(
        name: str, handler: object, help: str, aliases: Sequence[str] = ()
    ) -> argparse.ArgumentParser | None:
        """The command's parser when ``argv`` names it (its options to add), else None."""
        p = sub.add_parser(name, help=help, aliases=list(aliases))
        p.set_defaults(handler=handler, json=False)
        return p if named in (name, *aliases) else None

    if up := command("up", cmd_up, "start the local Temporal server and worker (idempotent)"):
        up.add_argument("--status", action="store_true", help="only say what runs where")
    command("down", cmd_down, "stop the local stack of this state directory")
    command(
        "env",
        cmd_env,
        "print `export TEMPORAL_ADDRESS=... TEMPORAL_NAMESPACE=...` of the server commands use "
        '(the local stack, started if needed), for: eval "$(agents env)"',
    )
    if run := command("run", cmd_run, "start a run for a goal and follow it to its result"):
        run_options(run)
    if follow := command("follow", cmd_follow, "follow a run again"):
        follow_options(follow)
        follow.add_argument("workflow_id")
    lister = command("list", cmd_list, "recent runs; --waiting: questions waiting for a person")
    if lister:
        lister.add_argument("--waiting", action="store_true", help="the inbox of waiting questions")
        lister.add_argument(
            "--limit", type=int, default=20, help="rows per page (with --waiting: at most 1000)"
        )
        lister.add_argument(
            "--page",
            metavar="TOKEN",
            help="with --waiting: the page a listing's 'next page' line names (default the first)",
        )
        lister.add_argument(
            "--run", metavar="ID", help="with --waiting: only runs whose id starts with ID"
        )
        lister.add_argument(
            "--agent", metavar="NAME", help="with --waiting: only questions NAME asked (its origin)"
        )
        lister.add_argument(
            "--wide",
            action="store_true",
            help="with --waiting: each question on its row's one line, unwrapped (for grep)",
        )
        lister.add_argument("--json", action="store_true", help="machine-readable rows")
    inbox = command("inbox", cmd_inbox, "answer waiting questions in the browser (a web inbox)")
    if inbox:
        inbox_options(inbox)
    status = command(
        "status",
        cmd_status,
        "show a run's picture, phase, history and events, or an interrupt's question and events",
    )
    if status:
        status.add_argument("workflow_id")
        status.add_argument("--json", action="store_true", help="print the raw status query result")
    resolve = command(
        "resolve", cmd_resolve, "answer an interrupt (no answers given: show it, or ask)"
    )
    if resolve:
        resolve_options(resolve)
    fork = command(
        "fork",
        cmd_fork,
        "start a new run from a past question of a run, answered another way, or from one of its "
        "agent steps, run again (docs/forks.md)",
    )
    if fork:
        fork_options(fork)
    if forks := command("forks", cmd_forks, "list the runs forked from a run"):
        forks.add_argument("workflow_id")
        forks.add_argument("--json", action="store_true", help="machine-readable rows")
    interrupt = command(
        "interrupt",
        cmd_interrupt,
        "ask the running agent to interrupt and re-route (a supervisor's event; alias: event)",
        aliases=["event"],
    )
    if interrupt:
        interrupt_options(interrupt)
    if exporter := command("export", cmd_export, "write training data (JSONL) from finished runs"):
        export_options(exporter)
        add_selection(exporter)
    if keys := command("keys", cmd_keys, "encryption keys: rotate prints a new key and setting"):
        keys_options(keys)
    if codec := command(
        "codec", cmd_codec, "serve the codec server alone (the inbox serves it too)"
    ):
        codec_options(codec)
    if stats := command("stats", cmd_stats, "success rates over finished runs, beside targets"):
        stats.add_argument("--json", action="store_true", help="print the rates as JSON")
        add_selection(stats)
    return parser


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
    args = parser_for(sys.argv[1:] if argv is None else argv).parse_args(argv)
    import asyncio

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
