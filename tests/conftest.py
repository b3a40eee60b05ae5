"""Shared fixtures: each family lives in its own module and is re-exported here."""

from tests.support.fixtures_pg import *  # noqa: F403
from tests.support.fixtures_redis import *  # noqa: F403
from tests.support.gate_summary import pytest_terminal_summary  # noqa: F401
