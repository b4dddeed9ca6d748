"""Connect to Temporal with the one data converter (``app.data_converter``, encrypting when
AGENTS_ENCRYPTION_KEYS is set); connection problems are one line."""

from __future__ import annotations

import re
from typing import Any

from temporalio.client import Client
from temporalio.runtime import Runtime
from temporalio.service import RPCError

from agent_interrupts.app.config import TemporalSettings
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.process_exit import guard_interpreter_exit
from agent_interrupts.app.tracing import tracing_plugins

UNREACHABLE = (RPCError, RuntimeError, OSError, TimeoutError)
"""What a Temporal call raises when the server is away, restarting or does not answer."""

_REFUSED_CREDENTIALS = re.compile(r"unauthenticated|permission|api key|\b40[13]\b")
"""What the SDK's error says when the server refused our credentials."""


class ConnectionProblem(Exception):
    """Temporal could not be reached or refused us; the message names the setting to check."""


async def connect(
    settings: TemporalSettings, address: str | None = None, runtime: Runtime | None = None
) -> Client:
    """A client for ``address`` (or the settings' address) with the envconfig TLS/API key, on
    ``runtime`` (default: the SDK's; a worker's may serve metrics), traced when
    ``AGENTS_TRACES`` says so (its workers too)."""
    target = address or settings.address
    if not target:
        raise ConnectionProblem("no Temporal address: set TEMPORAL_ADDRESS (host:port)")
    options: dict[str, Any] = {"namespace": settings.namespace, **settings.connect_config}
    plugins = tracing_plugins()
    if plugins:
        options["plugins"] = plugins
    converter = data_converter()  # a bad key setting is its one line before any connection
    guard_interpreter_exit()
    try:
        return await Client.connect(target, data_converter=converter, runtime=runtime, **options)
    except RuntimeError as err:
        raise ConnectionProblem(connect_error_message(target, settings, str(err))) from None


def connect_error_message(address: str, settings: TemporalSettings, detail: str) -> str:
    """One line: what failed at ``address`` and which setting to check.

    The SDK's ``detail`` names the address, so the address is taken out before reading it (port
    40181 is not an HTTP 401), and status codes count only as whole numbers.
    """
    lowered = detail.replace(address, "<address>").lower()
    if settings.uses_tls and any(
        word in lowered for word in ("invalidcontenttype", "tls", "ssl", "certificate", "handshake")
    ):
        cause = "TEMPORAL_API_KEY turns TLS on" if settings.uses_api_key else "TLS is on"
        return (
            f"cannot connect to Temporal at {address}: the TLS handshake failed ({cause}); "
            "for a server without TLS unset TEMPORAL_API_KEY or set TEMPORAL_TLS=false, "
            "else check TEMPORAL_ADDRESS and the TEMPORAL_TLS_* settings"
        )
    if _REFUSED_CREDENTIALS.search(lowered):
        return (
            f"cannot connect to Temporal at {address}: the server refused the credentials; "
            "check TEMPORAL_API_KEY (or the TLS client certificate) and TEMPORAL_NAMESPACE"
        )
    if "namespace" in lowered:
        return (
            f"cannot connect to Temporal at {address}: namespace {settings.namespace!r} "
            "was not found; check TEMPORAL_NAMESPACE"
        )
    if settings.address is None:
        return (
            f"cannot connect to Temporal at {address}: nothing answers there; start the local "
            "stack (agents up), or set TEMPORAL_ADDRESS to your server"
        )
    return (
        f"cannot connect to Temporal at {address}: nothing answers there; check "
        "TEMPORAL_ADDRESS (or unset it to use the local server of `agents up`)"
    )
