"""A test run stopped by SIGTERM (a time limit's) still says where it stopped, and tears down."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEADLINE = 60.0

BLOCKING = """
import threading
from pathlib import Path

import pytest


@pytest.fixture
def resource(tmp_path_factory):
    yield
    Path({torn_down!r}).touch()


def test_first():
    assert True


def test_blocks(resource):
    Path({started!r}).touch()
    threading.Event().wait()
"""


def test_sigterm_reports_the_interrupted_test_and_runs_its_teardown(tmp_path: Path) -> None:
    started, torn_down = tmp_path / "started", tmp_path / "torn-down"
    module = tmp_path / "test_blocking.py"
    module.write_text(BLOCKING.format(started=str(started), torn_down=str(torn_down)))
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "tests.support.interrupts", "-p",
         "no:cacheprovider", "-c", "/dev/null", "--rootdir", str(tmp_path), "-q", str(module)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + DEADLINE
        while not started.exists():  # polling a file the test writes, with a deadline
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "the blocking test never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 2, output  # pytest's "interrupted"
    assert "SIGTERM during test_blocking.py::test_blocks" in output
    assert "1 passed" in output
    assert torn_down.exists(), "the interrupted test's fixture was torn down"
