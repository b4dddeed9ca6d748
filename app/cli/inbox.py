"""The web inbox: ``agents inbox``."""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import TYPE_CHECKING

from agent_interrupts.app.cli.session import open_session

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from agent_interrupts.app.config import TemporalSettings


async def cmd_inbox(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app import render
    from agent_interrupts.app.cli.encryption import codec_line, codec_server
    from agent_interrupts.app.config import InboxSettings, MailDoorSettings, SlackDoorSettings
    from agent_interrupts.app.imap_door import ImapDoor
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
            codec = codec_server(inbox, settings.namespace, session.ui_url)
            app = create_app(
                session.agents,
                inbox,
                limit=args.limit,
                ui_url=session.ui_url,
                state_dir=settings.state_dir,
                slack=slack_door if slack is not None and slack.signing_secret else None,
                codec=codec,
            )
            socket = None
            if slack_door is not None and slack is not None and slack.app_token is not None:
                from agent_interrupts.app.inbox.slack_socket import SlackSocket

                socket = SlackSocket(slack_door, slack.app_token)
                await socket.connect()
            door = MailDoor(session.agents, mail) if mail else None
            mail_door = await start_mail_door(door, mail) if door and mail and mail.port else None
            polling = (
                asyncio.create_task(ImapDoor(door, mail.imap).run())
                if door and mail and mail.imap
                else None
            )
            render.console.print(
                f"Inbox: {inbox_link(inbox)}  (Ctrl-C stops it)", markup=False, soft_wrap=True
            )
            if codec is not None:
                render.console.print(
                    f"Codec server: {codec_line(inbox, settings.namespace)}",
                    markup=False,
                    soft_wrap=True,
                )
            if slack is not None and slack.signing_secret:
                render.console.print(f"Slack door: {PATH} (Slack signs its requests)", markup=False)
            if socket is not None:
                render.console.print("Slack door: Socket Mode (SLACK_APP_TOKEN)", markup=False)
            if mail is not None and mail.port:
                render.console.print(
                    f"Email door: SMTP on {mail.host}:{mail.port}", markup=False, soft_wrap=True
                )
            if mail is not None and mail.imap is not None:
                render.console.print(
                    f"Email door: IMAP {mail.imap.where} read every {mail.imap.seconds:g} s",
                    markup=False,
                    soft_wrap=True,
                )
            try:
                await serve(app, sock)
            finally:
                if mail_door is not None:
                    mail_door.close()
                if polling is not None:
                    polling.cancel()
                if socket is not None:
                    await socket.close()
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
