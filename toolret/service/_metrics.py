"""``/metrics``: toolret's OpenTelemetry metrics (``toolret.retrieval._metrics``) as Prometheus
text.

The library only records through ``opentelemetry-api``; a process that serves installs the
SDK's ``MeterProvider`` with the Prometheus reader (``opentelemetry-exporter-prometheus``) on a
registry of its own, and ``/metrics`` renders that registry. Instruments created before the
provider was installed bind to it (the API's proxies). A process whose application installed
its own SDK provider first keeps it: the service then has no ``/metrics`` of its own.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from toolret._extras import require

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

__all__ = ["CONTENT_TYPE", "install_prometheus", "render"]

log = logging.getLogger("toolret.serve")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def install_prometheus() -> CollectorRegistry | None:
    """Install an SDK meter provider exporting to a new Prometheus registry, and return the
    registry; None (logged) when another SDK provider is installed already."""
    require(
        "serve",
        "opentelemetry.sdk",
        "opentelemetry.exporter.prometheus",
        purpose="serving /metrics",
    )
    from opentelemetry import metrics
    from opentelemetry.exporter.prometheus import PrometheusMetricReader
    from opentelemetry.sdk.metrics import MeterProvider
    from prometheus_client import CollectorRegistry

    if isinstance(metrics.get_meter_provider(), MeterProvider):
        log.warning(
            "toolret: an OpenTelemetry SDK meter provider is installed already; "
            "/metrics is left to it (export from it with its own reader)"
        )
        return None
    registry = CollectorRegistry()
    metrics.set_meter_provider(
        MeterProvider(metric_readers=[PrometheusMetricReader(registry=registry)])
    )
    return registry


def render(registry: CollectorRegistry) -> bytes:
    """The registry's metrics in the Prometheus text format."""
    from prometheus_client import generate_latest

    return generate_latest(registry)
