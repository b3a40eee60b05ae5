"""docker-compose.yml: Docker does not run here, so the file is parsed and checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from workers import WorkerSettings

COMPOSE = Path(__file__).resolve().parent.parent / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = compose["services"]
    return found


def test_the_four_services_and_no_running_app(services: dict[str, Any]) -> None:
    started = {name for name, service in services.items() if "profiles" not in service}
    assert started == {"postgres", "redis", "migrate", "worker"}


def test_serve_is_opt_in_public_only_with_tokens_and_drains_before_it_is_killed(
    services: dict[str, Any],
) -> None:
    serve = services["serve"]
    assert serve["profiles"] == ["serve"]
    assert serve["command"][:2] == ["toolret", "serve"]
    assert "0.0.0.0" in serve["command"], "in a container: so the tokens are required"
    assert "TOOLRET_SERVE_TOKENS" in serve["environment"]
    assert serve["image"] == services["worker"]["image"]
    assert serve["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert "/readyz" in " ".join(serve["healthcheck"]["test"])
    drain = float(serve["environment"]["TOOLRET_SERVE_DRAIN_SECONDS"])
    assert _seconds(serve["stop_grace_period"]) > drain
    build = services["worker"]["build"]["dockerfile_inline"]
    assert "serve" in build.split("pip install", 1)[1].split("\n")[0]


def test_the_commented_app_example_is_a_valid_service_once_uncommented() -> None:
    lines = COMPOSE.read_text(encoding="utf-8").splitlines()
    start = lines.index("  # app:")
    block = []
    for line in lines[start:]:
        if not line.startswith("  #"):
            break
        block.append(line.replace("  # ", "  ", 1))
    app = yaml.safe_load("\n".join(block))["app"]
    assert "DATABASE_URL" in app["environment"]
    assert "REDIS_URL" in app["environment"], "the not_indexed path enqueues through Redis"
    assert app["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_postgres_is_pgvector_on_18_with_its_data_volume_at_the_18_path(
    services: dict[str, Any], compose: dict[str, Any]
) -> None:
    postgres = services["postgres"]
    assert postgres["image"] == "pgvector/pgvector:pg18"
    mounts = [volume.split(":") for volume in postgres["volumes"]]
    assert [target for _, target in mounts] == ["/var/lib/postgresql"]
    assert mounts[0][0] in compose["volumes"]
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])


def test_redis_has_a_ping_health_check(services: dict[str, Any]) -> None:
    redis = services["redis"]
    assert redis["image"].startswith("redis:")
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_migrate_is_one_shot_alembic_after_a_healthy_postgres(services: dict[str, Any]) -> None:
    migrate = services["migrate"]
    assert migrate["command"] == ["alembic", "upgrade", "head"]
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert migrate["restart"] == "no"
    assert migrate["environment"]["DATABASE_URL"].startswith("postgresql")


def test_worker_waits_for_redis_and_the_migration_and_checks_its_health(
    services: dict[str, Any],
) -> None:
    worker = services["worker"]
    assert worker["command"] == ["arq", "toolret.worker.WorkerSettings"]
    assert worker["depends_on"] == {
        "redis": {"condition": "service_healthy"},
        "migrate": {"condition": "service_completed_successfully"},
    }
    assert worker["healthcheck"]["test"] == [
        "CMD",
        "arq",
        "--check",
        "toolret.worker.WorkerSettings",
    ]


def test_worker_health_key_outlives_the_check_interval(services: dict[str, Any]) -> None:
    """arq's health key lives interval + 1 s; the container checks far less often than that."""
    interval = _seconds(services["worker"]["healthcheck"]["interval"])
    assert WorkerSettings.health_check_interval < interval


def test_worker_and_migrate_share_the_image_and_the_settings(services: dict[str, Any]) -> None:
    worker, migrate = services["worker"], services["migrate"]
    assert worker["image"] == migrate["image"]
    assert worker["environment"] == migrate["environment"]
    environment = worker["environment"]
    assert environment["REDIS_URL"] == "redis://redis:6379/0"
    assert "@postgres:5432/" in environment["DATABASE_URL"]
    assert "TOOLRET_CATALOGS" in environment
    assert "GEMINI_API_KEY" in environment
    assert "alembic" not in worker["command"]


def _seconds(duration: str) -> float:
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for suffix in ("ms", "s", "m", "h"):
        if duration.endswith(suffix):
            return float(duration[: -len(suffix)]) * units[suffix]
    return float(duration)
