"""Connection problems are one line naming the setting to check (app/connect.py).

CI once told a person that the server refused the credentials when nothing listened on port
40181: the SDK's error names the address, and "401" was read as an HTTP status.
"""

from __future__ import annotations

import socket

import pytest

from agent_interrupts.app.config import TemporalSettings
from agent_interrupts.app.connect import ConnectionProblem, connect, connect_error_message


def _closed_port_holding(digits: str) -> int:
    """A loopback port nothing listens on whose number contains ``digits``."""
    for port in range(10_000, 65_536):
        if digits not in str(port):
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port  # free to bind, so nothing listens there
    raise AssertionError(f"no free port holding {digits}")


@pytest.mark.parametrize("digits", ["401", "403"])
async def test_a_port_that_looks_like_a_status_is_nothing_answering(digits: str) -> None:
    address = f"127.0.0.1:{_closed_port_holding(digits)}"
    settings = TemporalSettings(address=address)
    with pytest.raises(ConnectionProblem) as raised:
        await connect(settings)
    message = str(raised.value)
    assert "nothing answers there" in message and address in message
    assert "credentials" not in message and "\n" not in message


def test_a_refused_key_names_the_credentials_and_a_status_alone_counts() -> None:
    settings = TemporalSettings(address="127.0.0.1:40181")
    refused = connect_error_message(
        settings.address or "", settings, "status: 401 Unauthorized from 127.0.0.1:40181"
    )
    assert "TEMPORAL_API_KEY" in refused and "credentials" in refused
    gone = connect_error_message(
        settings.address or "", settings, "tcp connect error 127.0.0.1:40181 refused"
    )
    assert "TEMPORAL_ADDRESS" in gone and "credentials" not in gone
