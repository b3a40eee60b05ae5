"""The TypeScript integrations with agent frameworks (``@toolret/client/ai-sdk``,
``@toolret/client/langchain``), each driving its real framework package, pinned by
``clients/typescript/package-lock.json``, against the strict local Chat Completions server
(``tests/support/fake_llm.py``) and a live ``toolret serve`` in its own process; then again with
that process hung (SIGSTOP: it accepts connections and never answers) and stopped. The node tests
say what each turn must send and answer, and count the selections and searches it asks for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.fake_llm import FakeLLM
from tests.support.serve_process import start_serve, stop_serve
from tests.support.service_catalog import registration
from tests.support.typescript import node_tests


@contextmanager
def toolret_serve(
    database_url: str, tmp_path: Path
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    url, process = start_serve(database_url, tmp_path / "serve.log")
    try:
        yield url, process
    finally:
        stop_serve(process)


@pytest.mark.parametrize("framework", ["aisdk", "langchain"])
async def test_a_framework_turn_narrows_finds_and_falls_open(
    framework: str, database_url: str, tmp_path: Path
) -> None:
    body = tmp_path / "registration.json"
    body.write_text(json.dumps(registration()), encoding="utf-8")
    with FakeLLM() as fake, toolret_serve(database_url, tmp_path) as (url, process):
        env = {"TOOLRET_URL": url, "TOOLRET_REGISTRATION": str(body), "FAKE_LLM_URL": fake.url}
        live = await node_tests(framework, env)
        assert "ℹ fail 0" in live
        os.kill(process.pid, signal.SIGSTOP)
        try:
            hung = await node_tests(framework, {**env, "TOOLRET_FAILURE": "hung"})
        finally:
            os.kill(process.pid, signal.SIGCONT)
        assert "ℹ fail 0" in hung
        assert stop_serve(process) == 0
        stopped = await node_tests(framework, {**env, "TOOLRET_FAILURE": "stopped"})
        assert "ℹ fail 0" in stopped
    assert fake.rejections == []
