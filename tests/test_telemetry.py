"""Traces: a recall's stages as spans with their timings, writes, briefings and jobs, and no
span that carries text (OpenTelemetry's SDK with its in-memory exporter)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from salience import Config, Memory, telemetry
from salience.errors import ConfigError
from tests.embedder import WordHashEmbedder

SECRETLESS_TEXTS = [
    "the deploy crane moves containers on pier seven every tuesday",
    "Maya prefers the blue notebook for quarterly planning",
    "the invoice for the harbour cranes is due on the ninth",
]
QUERY = "which crane moves containers on the pier"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.enable(provider)
    try:
        yield exporter
    finally:
        telemetry.disable()
        provider.shutdown()


def _named(exporter: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    found: dict[str, list[ReadableSpan]] = {}
    for span in exporter.get_finished_spans():
        found.setdefault(span.name, []).append(span)
    return found


def _attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def test_a_recall_shows_its_stages_with_their_timings(
    memory: Memory, spans: InMemorySpanExporter
) -> None:
    for text in SECRETLESS_TEXTS:
        memory.remember(text)
    spans.clear()
    found = memory.search(QUERY, limit=2)
    named = _named(spans)
    (recall,) = named["salience.recall"]
    stages = [s for s in spans.get_finished_spans() if s.parent is not None]
    assert {s.name for s in stages} >= {
        "salience.recall.full_text",
        "salience.recall.embed",
        "salience.recall.vectors",
        "salience.recall.fusion",
        "salience.recall.scoring",
    }
    assert recall.context is not None
    assert recall.start_time
    assert recall.end_time
    for stage in stages:  # each a child of the recall (full text too, from its worker)
        assert stage.parent is not None
        assert stage.parent.span_id == recall.context.span_id
        assert stage.start_time
        assert stage.end_time
        assert recall.start_time <= stage.start_time <= stage.end_time <= recall.end_time
    attributes = _attributes(recall)
    assert attributes["salience.profile"] == memory.config.profile
    assert attributes["salience.tenant"] == memory.config.user
    assert attributes["salience.hits"] == len(found) == 2
    assert _attributes(named["salience.recall.full_text"][0])["salience.found"] >= 1


def test_writes_briefings_and_jobs_are_spans(memory: Memory, spans: InMemorySpanExporter) -> None:
    result = memory.remember(SECRETLESS_TEXTS[0])
    memory.briefing()
    job = memory.start_job("test", lambda progress: {"n": 1})
    memory.wait_job(job.id, timeout=10)
    named = _named(spans)
    remember = _attributes(named["salience.remember"][0])
    assert remember["salience.outcome"] == result.outcome.value == "created"
    assert remember["salience.content_bytes"] == len(SECRETLESS_TEXTS[0])
    (row,) = named["salience.write"]
    assert _attributes(row)["salience.kind"] == "remember"
    assert row.parent is not None
    assert row.parent.span_id == named["salience.remember"][0].context.span_id
    briefing = _attributes(named["salience.briefing"][0])
    assert briefing["salience.tokens"] > 0
    assert briefing["salience.tenant"] == memory.config.user
    assert _attributes(named["salience.job"][0])["salience.kind"] == "test"


def test_no_span_carries_memory_text_or_the_query(
    memory: Memory, spans: InMemorySpanExporter
) -> None:
    for text in SECRETLESS_TEXTS:
        memory.remember(text, tags=["harbour"], title="cranes")
    memory.search(QUERY)
    memory.search("cr")  # the short query's substring path
    memory.briefing()
    memory.remember("password=hunter22 for the harbour admin console")  # refused
    words = {w for t in [*SECRETLESS_TEXTS, QUERY, "hunter22", "harbour"] for w in t.split()}
    words = {w for w in words if len(w) > 3}
    assert len(spans.get_finished_spans()) > 10
    for span in spans.get_finished_spans():
        shown = json.dumps([span.name, _attributes(span), [e.name for e in span.events]])
        assert not [w for w in words if w in shown], span.name


def test_a_string_attribute_must_be_a_name() -> None:
    telemetry.enable(TracerProvider())
    try:
        with pytest.raises(TypeError, match="may not hold text"), telemetry.span("x", query="a"):
            pass
        with telemetry.span("x", profile="salience", count=3) as stage:
            stage.set(hits=2)
    finally:
        telemetry.disable()


def test_off_makes_nothing(memory: Memory) -> None:
    assert not telemetry.active()
    with telemetry.span("recall", query="would be refused if made") as stage:
        stage.set(anything="is ignored")  # nothing is made, so nothing is checked
    assert memory.search("anything at all") is not None


def test_off_imports_nothing_of_opentelemetry(tmp_path: Any) -> None:
    code = (
        "import sys; from salience import Config, Memory\n"
        f"c = Config(home={str(tmp_path)!r}, embedder='none')\n"
        "with Memory.open(config=c) as m:\n"
        "    m.remember('the crane on pier seven'); m.search('crane pier'); m.briefing()\n"
        "print(sorted(n for n in sys.modules if n.startswith('opentelemetry')))\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "[]"


def test_an_unknown_mode_is_a_clear_error(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match="unknown otel 'jaeger'"):
        Config(home=tmp_path, otel="jaeger")


def test_console_mode_sets_up_the_sdk(
    tmp_path: Any, embedder: WordHashEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    from opentelemetry import trace

    config = Config(home=tmp_path, otel="console", signal_gate=False)
    try:
        with Memory.open(config=config, embedder=embedder) as engine:
            assert telemetry.active()
            engine.remember("the pier seven crane was serviced")
            provider = trace.get_tracer_provider()
            assert provider.force_flush()  # type: ignore[attr-defined]
    finally:
        telemetry.disable()
        # (its exporter writes to this test's captured stderr: shut down now, not at exit,
        # when that file is closed)
        trace.get_tracer_provider().shutdown()  # type: ignore[attr-defined]
    printed = capsys.readouterr().err
    assert '"name": "salience.remember"' in printed
    assert "crane" not in printed


def test_a_missing_exporter_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    with pytest.raises(ConfigError, match=r"salience\[otel\]"):
        telemetry.configure("otlp")
    assert not telemetry.active()
