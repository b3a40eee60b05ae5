"""Shared fixtures: each family lives in its own module and is re-exported here."""

from tests.fixtures_pg import *  # noqa: F403
from tests.fixtures_redis import *  # noqa: F403
from tests.gate_summary import pytest_terminal_summary  # noqa: F401
