"""Operators' view: the worker's metrics on a Prometheus endpoint.

With ``AGENTS_METRICS_ADDRESS`` (``host:port``) the worker's Temporal runtime serves
``http://<host:port>/metrics``: the SDK's own worker metrics (task latencies, slots, polls) and
ours, recorded through the same meter (``activities/metrics.py``, and the workflows' replay-safe
meter): agent steps by agent type and outcome, LLM latency and tokens, questions asked and
answered.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig


def metrics_address(env: Mapping[str, str] = os.environ) -> str | None:
    """``AGENTS_METRICS_ADDRESS``, checked: ``host:port``, or None (no endpoint)."""
    address = (env.get("AGENTS_METRICS_ADDRESS") or "").strip()
    if not address:
        return None
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            f"AGENTS_METRICS_ADDRESS must be host:port (e.g. 127.0.0.1:9464), not {address!r}"
        )
    return address


def metrics_runtime(address: str) -> Runtime:
    """A Temporal runtime whose metrics are served for Prometheus at ``address``."""
    telemetry = TelemetryConfig(metrics=PrometheusConfig(bind_address=address))
    try:
        return Runtime(telemetry=telemetry)
    except Exception as err:  # the core's bind error
        raise ValueError(
            f"cannot serve metrics on AGENTS_METRICS_ADDRESS {address}: {err}; choose a free port"
        ) from None
