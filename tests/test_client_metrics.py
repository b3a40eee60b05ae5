"""What the client records through OpenTelemetry — and that no message text is ever in it.

The OpenTelemetry SDK (in-memory reader and exporter) plays the application that installs one;
toolret itself depends on the API only.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import socket
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.support.embedders import HangingQueries
from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, Catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode, Reason

SECRET = "Customer Zainab's passport number is X1234567, delete her record"


@pytest.fixture(scope="module")
def telemetry() -> tuple[InMemoryMetricReader, InMemorySpanExporter]:
    """Install an SDK once for this process (OpenTelemetry allows one global provider)."""
    reader = InMemoryMetricReader()
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    trace.set_tracer_provider(tracer_provider)
    return reader, exporter


def _points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    data = reader.get_metrics_data()
    found: dict[str, list[Any]] = {}
    assert data is not None
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


async def test_selections_are_measured_and_no_message_text_is_recorded(
    telemetry: tuple[InMemoryMetricReader, InMemorySpanExporter],
    database_url: str,
    redis_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    reader, exporter = telemetry
    catalog = crm_catalog()
    caplog.set_level(logging.DEBUG)
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=3, time_budget=30, redis_url=redis_url
    ) as client:
        not_indexed = await client.select(catalog, SECRET)
        await client.index(catalog)
        narrowed = await client.select(catalog, SECRET)
        blank = await client.select(catalog, " ")
        edited = Catalog(
            [
                dataclasses.replace(t, description=t.description + " Works offline.")
                if t.name in ("send_email", "create_task")
                else t
                for t in catalog
            ],
            domain_rank=catalog.domain_rank,
        )
        partly = await client.select(edited, SECRET)
        # Feedback on the turn: a called tool the selection bound or not, reported to the queue.
        called = next(t.name for t in catalog.candidates if t.name not in narrowed.names)
        turn = [
            {"role": "user", "content": SECRET},
            {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": called}}]},
        ]
        assert await client.report_turn(catalog, narrowed, turn)
    assert not_indexed.reason is Reason.NOT_INDEXED
    assert narrowed.mode is Mode.NARROWED
    assert blank.reason is Reason.BLANK_MESSAGE
    assert (partly.mode, partly.reason) == (Mode.NARROWED, Reason.PARTLY_INDEXED)

    points = _points(reader)
    counted = {
        (p.attributes["toolret.mode"], p.attributes["toolret.reason"]): p.value
        for p in points["toolret.selections"]
    }
    assert counted[("full", "not_indexed")] >= 1
    assert counted[("narrowed", "none")] >= 1
    assert counted[("full", "blank_message")] >= 1
    assert counted[("narrowed", "partly_indexed")] >= 1
    unranked = {
        p.attributes["toolret.reason"]: p.value for p in points["toolret.selection.unranked_tools"]
    }
    assert unranked == {"partly_indexed": 2}, "tools bound without a vector are counted"
    bound = {
        (p.attributes["toolret.mode"], p.attributes["toolret.reason"]): p
        for p in points["toolret.selection.tools_bound"]
    }
    assert bound[("narrowed", "none")].max == len(narrowed.tools)
    assert bound[("narrowed", "partly_indexed")].max == len(partly.tools) == len(narrowed.tools) + 2
    assert bound[("full", "not_indexed")].max == len(catalog)
    assert sum(p.count for p in points["toolret.selection.duration"]) >= 3
    assert narrowed.schema_tokens is not None
    assert narrowed.tokens_saved is not None
    sent = {
        p.attributes["toolret.reason"]: p
        for p in points["toolret.selection.schema_tokens"]
        if p.attributes["toolret.mode"] == "narrowed"
    }
    assert sent["none"].max == narrowed.schema_tokens
    saved = {
        p.attributes["toolret.reason"]: p
        for p in points["toolret.selection.tokens_saved"]
        if p.attributes["toolret.mode"] == "narrowed"
    }
    assert saved["none"].value >= narrowed.tokens_saved > 0
    steps = {p.attributes["toolret.step"] for p in points["toolret.selection.step.duration"]}
    assert steps == {"embed", "database"}
    assert sum(p.value for p in points["toolret.feedback.misses"]) >= 1

    spans = exporter.get_finished_spans()
    names = {span.name for span in spans}
    assert {"toolret.select", "toolret.embed_query", "toolret.rank_sql"} <= names
    select_spans = [span for span in spans if span.name == "toolret.select"]
    assert {span.attributes["toolret.mode"] for span in select_spans} >= {"full", "narrowed"}

    recorded = json.dumps(
        [span.to_json() for span in spans] + [reader.get_metrics_data().to_json()],  # type: ignore[union-attr]
        default=str,
    )
    for fragment in ("Zainab", "passport", "X1234567", SECRET):
        assert fragment not in recorded
        assert fragment not in caplog.text


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_store_error_and_timeout_are_counted_and_traced(
    telemetry: tuple[InMemoryMetricReader, InMemorySpanExporter], database_url: str
) -> None:
    """The two fail-open reasons an outage shows: a database that refuses connections
    (``store_error``) and a query that outlasts the budget (``timeout``), each in the selection
    counter and on the ``toolret.select`` span, where a dashboard or an alert reads them."""
    reader, exporter = telemetry
    exporter.clear()
    catalog = crm_catalog()
    message = "Delete the duplicate contact for Acme Corp"
    down = f"postgresql://postgres@127.0.0.1:{_closed_port()}/toolret"
    async with ToolRetrievalClient(
        down, embedder=BundledE5Embedder(), k=3, time_budget=30
    ) as client:
        refused = await client.select(catalog, message)
    async with ToolRetrievalClient(database_url, embedder=BundledE5Embedder(), k=3) as owner:
        await owner.index(catalog)
    async with ToolRetrievalClient(
        database_url, embedder=HangingQueries(), k=3, time_budget=0.5
    ) as client:
        late = await client.select(catalog, message)
    assert (refused.mode, refused.reason) == (Mode.FULL, Reason.STORE_ERROR)
    assert (late.mode, late.reason) == (Mode.FULL, Reason.TIMEOUT)

    counted = {
        (p.attributes["toolret.mode"], p.attributes["toolret.reason"]): p.value
        for p in _points(reader)["toolret.selections"]
    }
    assert counted[("full", "store_error")] >= 1
    assert counted[("full", "timeout")] >= 1

    spans = exporter.get_finished_spans()
    reasons = [
        (span.attributes["toolret.mode"], span.attributes["toolret.reason"])
        for span in spans
        if span.name == "toolret.select"
    ]
    assert reasons == [("full", "store_error"), ("full", "timeout")]
    (ranked,) = [span for span in spans if span.name == "toolret.rank_sql"]
    assert ranked.status.status_code is StatusCode.ERROR  # the refused connection, on its span


async def test_a_dependency_down_is_counted_by_its_breaker(
    telemetry: tuple[InMemoryMetricReader, InMemorySpanExporter], database_url: str
) -> None:
    """The embedder's breaker: its change to open, the calls it refused at once, and the
    breakers not closed, by dependency, for an alert on an outage rather than on a reason."""
    reader, _ = telemetry
    catalog = crm_catalog()
    async with ToolRetrievalClient(database_url, embedder=BundledE5Embedder(), k=3) as owner:
        await owner.index(catalog)
    async with ToolRetrievalClient(
        database_url, embedder=HangingQueries(), k=3, time_budget=0.3, reuse=0
    ) as client:
        reasons = [(await client.select(catalog, "Delete Acme")).reason for _ in range(3)]
    assert reasons == [Reason.TIMEOUT, Reason.EMBEDDER_UNAVAILABLE, Reason.EMBEDDER_UNAVAILABLE]
    points = _points(reader)
    changes = {
        (p.attributes["toolret.dependency"], p.attributes["toolret.state"]): p.value
        for p in points["toolret.breaker.changes"]
    }
    assert changes[("embedder", "open")] >= 1
    refused = {
        p.attributes["toolret.dependency"]: p.value for p in points["toolret.breaker.refused"]
    }
    assert refused["embedder"] >= 2
    not_closed = {
        p.attributes["toolret.dependency"]: p.value for p in points["toolret.breaker.open"]
    }
    assert not_closed["embedder"] >= 1
