"""Turning traces on: the process's tracer, from ``SALIENCE_OTEL`` or an application's
provider (see :mod:`salience.telemetry`)."""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from salience.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

MODES = ("off", "on", "console", "otlp")
INSTALL = "pip install 'salience[otel]'"
_lock = threading.Lock()


class _State:
    """The process's tracer (None: traces off) and the mode that made it."""

    tracer: Tracer | None = None
    configured: str | None = None


_state = _State()


def enable(provider: TracerProvider | None = None) -> None:
    """Make spans from now on, with ``provider`` (else the application's global one)."""
    try:
        from opentelemetry import trace
    except ImportError:
        raise ConfigError(f"traces need OpenTelemetry: {INSTALL}") from None
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("salience")
    except PackageNotFoundError:  # (a source tree on the path, not installed)
        release = "unknown"
    if provider is None:
        _state.tracer = trace.get_tracer("salience", release)
    else:
        _state.tracer = provider.get_tracer("salience", release)


def disable() -> None:
    """Stop making spans (those open finish as they are)."""
    _state.tracer = None
    _state.configured = None


def configure(mode: str) -> None:
    """Apply ``SALIENCE_OTEL`` once per process (a later, different mode is ignored: the
    first engine of a process decides, as OpenTelemetry's global provider does)."""
    if mode not in MODES:
        raise ConfigError(f"unknown otel {mode!r}; known: {', '.join(MODES)}")
    if mode == "off" or _state.configured is not None:
        return
    with _lock:
        if _state.configured is not None:
            return
        if mode == "on":
            enable()
        else:
            enable(_provider(mode))
        _state.configured = mode


def _provider(mode: str) -> TracerProvider:
    """A tracer provider of the SDK with the exporter ``mode`` names, set as the global one."""
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider as SdkProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SpanExporter,
        )
    except ImportError:
        raise ConfigError(f"SALIENCE_OTEL={mode} needs the OpenTelemetry SDK: {INSTALL}") from None
    exporter: SpanExporter
    if mode == "console":
        exporter = ConsoleSpanExporter(out=sys.stderr)  # (stdout: a CLI's answer, MCP's wire)
    else:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise ConfigError(f"SALIENCE_OTEL=otlp needs the OTLP exporter: {INSTALL}") from None
        exporter = OTLPSpanExporter()
    provider = SdkProvider(resource=Resource.create({"service.name": "salience"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider
