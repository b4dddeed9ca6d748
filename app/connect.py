"""Connect to Temporal with the pydantic data converter."""

from __future__ import annotations

from temporalio.client import Client, TLSConfig
from temporalio.contrib.pydantic import pydantic_data_converter

from app.config import TemporalSettings


async def connect(settings: TemporalSettings, address: str | None = None) -> Client:
    """A client for ``address`` (or the settings' address), TLS and API key as configured."""
    target = address or settings.address
    if not target:
        raise ValueError("no Temporal address: set TEMPORAL_ADDRESS (host:port)")
    tls: TLSConfig | bool = settings.tls
    if settings.tls_cert and settings.tls_key:
        tls = TLSConfig(
            client_cert=settings.tls_cert.read_bytes(),
            client_private_key=settings.tls_key.read_bytes(),
        )
    return await Client.connect(
        target,
        namespace=settings.namespace,
        api_key=settings.api_key,
        tls=tls,
        data_converter=pydantic_data_converter,
    )
