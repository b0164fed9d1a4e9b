"""The service-layer driver, on both databases (``runtime`` is parametrized over SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from server.auth import Principal
from server.clock import FakeClock
from server.services.runtime import Runtime
from tests.services.helpers import Flight
from tests.services.workflow_helpers import WorkflowFlight


@pytest.fixture
def flight(runtime: Runtime, principal: Principal, clock: FakeClock) -> Flight:
    return Flight(runtime, principal, clock)


@pytest.fixture
def workflows(runtime: Runtime, principal: Principal, clock: FakeClock) -> WorkflowFlight:
    return WorkflowFlight(runtime, principal, clock)
