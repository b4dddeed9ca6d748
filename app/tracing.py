"""Optional OpenTelemetry tracing: ``AGENTS_TRACES`` names where spans go.

``otlp`` sends them over OTLP/HTTP to ``OTEL_EXPORTER_OTLP_ENDPOINT`` (OpenTelemetry's own
variables configure the exporter); ``console`` prints them on stderr. Unset, nothing is traced and
OpenTelemetry is not imported. Every client (the CLI's, a worker's) then carries
``temporalio.contrib.opentelemetry.OpenTelemetryPlugin``: a run is one trace from the command that
started it through its workflows, child workflows and activities (spans StartWorkflow,
RunWorkflow, StartActivity, RunActivity, ...), across processes and machines by Temporal headers.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter
    from temporalio.plugin import SimplePlugin

TRACES_VARIABLE = "AGENTS_TRACES"
EXPORTERS = ("otlp", "console")
SERVICE_NAME = "agent-interrupts"

_installed = False


def traces_exporter(env: Mapping[str, str] = os.environ) -> str | None:
    """``AGENTS_TRACES``, checked: ``otlp``, ``console``, or None (no tracing)."""
    value = (env.get(TRACES_VARIABLE) or "").strip().lower()
    if not value:
        return None
    if value not in EXPORTERS:
        raise ValueError(
            f"{TRACES_VARIABLE}={value!r} names no exporter: use otlp (spans to "
            "OTEL_EXPORTER_OTLP_ENDPOINT) or console (spans on stderr), or unset it"
        )
    return value


def tracing_plugins(env: Mapping[str, str] = os.environ) -> list[SimplePlugin]:
    """The client plugins ``AGENTS_TRACES`` asks for: none, or OpenTelemetry's, with this
    process's tracer provider installed (once) to export where it says."""
    exporter = traces_exporter(env)
    if exporter is None:
        return []
    try:
        from temporalio.contrib.opentelemetry import OpenTelemetryPlugin

        if exporter == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            install_tracer_provider(OTLPSpanExporter(), batch=True)
        else:
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            install_tracer_provider(ConsoleSpanExporter(out=sys.stderr), batch=False)
    except ImportError:
        raise ValueError(
            f"{TRACES_VARIABLE}={exporter} needs OpenTelemetry: pip install -e '.[tracing]', "
            "or unset it"
        ) from None
    return [OpenTelemetryPlugin(add_temporal_spans=True)]


def install_tracer_provider(exporter: SpanExporter, *, batch: bool) -> None:
    """Make a replay-safe tracer provider exporting to ``exporter`` (in batches, or each span as
    it ends) this process's provider; the first call wins (OpenTelemetry allows one)."""
    global _installed
    if _installed:
        return
    import opentelemetry.trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    from temporalio.contrib.opentelemetry import create_tracer_provider

    provider = create_tracer_provider(resource=Resource.create({"service.name": SERVICE_NAME}))
    provider.add_span_processor(
        BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    )
    opentelemetry.trace.set_tracer_provider(provider)
    _installed = True


def flush_traces(timeout_ms: int = 5000) -> None:
    """Send the spans still buffered (before a process ends without running atexit hooks)."""
    if not _installed:
        return
    import opentelemetry.trace

    provider = opentelemetry.trace.get_tracer_provider()
    force_flush = getattr(provider, "force_flush", None)
    if force_flush is not None:
        force_flush(timeout_ms)
