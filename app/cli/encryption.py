"""Encryption's commands: ``agents keys rotate`` (a new key, the settings' new value) and
``agents codec`` (the codec server alone); the inbox's codec server (docs/encryption.md)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_interrupts.app.config import InboxSettings, TemporalSettings
    from agent_interrupts.app.inbox.codec_server import CodecServer

DEFAULT_CODEC_PORT = 8301
"""``agents codec``'s port without --port (the inbox's, 8300, serves the same routes)."""


async def cmd_keys(args: argparse.Namespace, settings: TemporalSettings) -> int:
    """``agents keys rotate``: a new key, and the setting's value in two steps (every process
    first learns the new key, then it encrypts)."""
    from agent_interrupts.app.encryption_keys import (
        KEYS_FILE_SETTING,
        KEYS_SETTING,
        KeyRing,
        rotated,
        setting_value,
    )

    ring = KeyRing.from_env()
    keys = rotated(ring.keys if ring else ())
    new, *old = keys
    where = (
        f"the file of {KEYS_FILE_SETTING}" if os.environ.get(KEYS_FILE_SETTING) else KEYS_SETTING
    )
    print(f"# a new key, {new[0]}; the first key of the value encrypts, every key decrypts")
    if old:
        print(
            f"# 1. on every worker, inbox and CLI ({where}): {new[0]} decrypts, "
            f"{old[0][0]} still encrypts"
        )
        print(f"{KEYS_SETTING}={setting_value((*old, new))}")
        print(f"# 2. once every process has step 1: {new[0]} encrypts")
    else:
        print(f"# encryption on: set it on every worker, inbox and CLI ({where})")
    print(f"{KEYS_SETTING}={setting_value(keys)}")
    print(
        "# drop a key only when no open run holds a payload under it (workers refuse to start then)"
    )
    return 0


async def cmd_codec(args: argparse.Namespace, settings: TemporalSettings) -> int:
    """``agents codec``: the codec server alone, behind the inbox's tokens."""
    from agent_interrupts.app import render
    from agent_interrupts.app.config import InboxSettings
    from agent_interrupts.app.inbox.codec_server import codec_app
    from agent_interrupts.app.inbox.web import listening, serve

    inbox = InboxSettings.from_env(
        host=args.host, port=args.port or DEFAULT_CODEC_PORT, token=args.token
    )
    ui = os.environ.get("TEMPORAL_UI_URL") or f"http://127.0.0.1:{settings.ui_port}"
    server = codec_server(inbox, settings.namespace, ui)
    if server is None:
        raise ValueError(
            "agents codec needs the keys: set AGENTS_ENCRYPTION_KEYS (or "
            "AGENTS_ENCRYPTION_KEYS_FILE); agents keys rotate makes one"
        )
    with listening(inbox) as sock:
        render.console.print(
            f"Codec server: {codec_line(inbox, settings.namespace)}  (Ctrl-C stops it)",
            markup=False,
            soft_wrap=True,
        )
        await serve(codec_app(server), sock)
    return 0


def codec_server(inbox: InboxSettings, namespace: str, ui_url: str | None) -> CodecServer | None:
    """The codec server of the settings' keys, None when encryption is off."""
    from agent_interrupts.app.codec import EncryptionCodec
    from agent_interrupts.app.encryption_keys import KeyRing
    from agent_interrupts.app.inbox.codec_server import CodecServer, ui_origins

    ring = KeyRing.from_env()
    if ring is None:
        return None
    return CodecServer(EncryptionCodec(ring), inbox, namespace, ui_origins(ui_url))


def codec_line(inbox: InboxSettings, namespace: str) -> str:
    """Where the codec server answers, and how to call it (no token printed)."""
    host = f"[{inbox.host}]" if ":" in inbox.host else inbox.host
    auth = (
        "send the inbox's token: --codec-auth 'Bearer TOKEN'"
        if inbox.needs_token or inbox.user_header
        else "no token: it decodes for nobody; give --token"
    )
    return (
        f"http://{host}:{inbox.port}/{{namespace}} for temporal --codec-endpoint, "
        f"http://{host}:{inbox.port} for the Web UI (namespace {namespace}); {auth}"
    )


def keys_options(keys: argparse.ArgumentParser) -> None:
    keys.add_argument(
        "action", choices=["rotate"], help="rotate: print a new key and the new value"
    )


def codec_options(codec: argparse.ArgumentParser) -> None:
    codec.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    codec.add_argument("--port", type=int, help=f"port (default {DEFAULT_CODEC_PORT})")
    codec.add_argument("--token", help="every request must carry one (default: AGENTS_INBOX_TOKEN)")
