"""The web inbox: ``agents inbox``."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from agent_interrupts.app.cli.session import open_session

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from agent_interrupts.app.config import TemporalSettings


async def cmd_inbox(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.config import InboxSettings, MailDoorSettings, SlackDoorSettings
    from agent_interrupts.app.inbox.slack import PATH, SlackDoor
    from agent_interrupts.app.inbox.web import (
        create_app,
        inbox_link,
        listening,
        serve,
    )
    from agent_interrupts.app.mail_door import MailDoor, start_mail_door
    from agent_interrupts.app.waiting_pages import WaitingFilterError, page_size

    try:
        page_size(args.limit)
    except WaitingFilterError as err:
        render.error(str(err))
        return 2
    inbox = InboxSettings.from_env(host=args.host, port=args.port, token=args.token)
    slack = SlackDoorSettings.from_env()
    mail = MailDoorSettings.from_env()
    with listening(inbox) as sock:
        async with open_session(settings) as session:
            slack_door = None
            if slack is not None:
                slack_door = SlackDoor(
                    session.agents,
                    slack,
                    ui_url=session.ui_url,
                    inbox_url=os.environ.get("AGENTS_INBOX_URL") or None,
                )
            app = create_app(
                session.agents,
                inbox,
                limit=args.limit,
                ui_url=session.ui_url,
                state_dir=settings.state_dir,
                slack=slack_door,
            )
            mail_door = (
                await start_mail_door(MailDoor(session.agents, mail), mail) if mail else None
            )
            render.console.print(
                f"Inbox: {inbox_link(inbox)}  (Ctrl-C stops it)", markup=False, soft_wrap=True
            )
            if slack_door is not None:
                render.console.print(f"Slack door: {PATH} (Slack signs its requests)", markup=False)
            if mail is not None:
                render.console.print(
                    f"Email door: SMTP on {mail.host}:{mail.port}", markup=False, soft_wrap=True
                )
            try:
                await serve(app, sock)
            finally:
                if mail_door is not None:
                    mail_door.close()
    return 0


def inbox_options(inbox: argparse.ArgumentParser) -> None:
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
    inbox.add_argument(
        "--limit", type=int, default=100, help="waiting questions per page (at most 1000)"
    )
