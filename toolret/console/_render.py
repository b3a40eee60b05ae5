"""Pages from Mako templates shipped in the package (``toolret/console/templates``): HTML
escaped by default, the figures formatted in one place (``score``, ``ms``)."""

from __future__ import annotations

import functools
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.requests import Request

__all__ = ["margin", "ms", "render", "score"]


@functools.cache
def _lookup() -> Any:
    # Mako comes with alembic: no new dependency (it ships no type hints)
    from mako.lookup import TemplateLookup  # type: ignore[import-untyped]

    return TemplateLookup(
        directories=[str(files("toolret.console") / "templates")],
        default_filters=["h"],
        input_encoding="utf-8",
        strict_undefined=True,
    )


def score(value: float | None) -> str:
    """A score or a signal as the pages show it (and the tests compare)."""
    return "—" if value is None else f"{value:.4f}"


def margin(value: float | None) -> str:
    """The cut's margin: as a score, or in scientific notation when a score would show 0."""
    if value is None or abs(value) >= 5e-5:
        return score(value)
    return f"{value:.1e}"


def ms(value: float | None) -> str:
    """Milliseconds, one decimal."""
    return "—" if value is None else f"{value:.1f} ms"


def render(name: str, data: dict[str, Any], request: Request) -> str:
    """Page ``name`` (``templates/<name>.html``) showing ``data``."""
    root = str(request.scope.get("root_path", "")).rstrip("/")
    template = _lookup().get_template(f"{name}.html")
    return str(
        template.render(
            d=data, root=root, page=name, score=score, margin=margin, ms=ms, query=request.url.query
        )
    )
