"""Drivers for the decision tests, on both databases."""

from __future__ import annotations

import pytest

from server.auth import Principal
from server.clock import FakeClock
from server.services.runtime import Runtime
from tests.services.missions.driver import Crew
from tests.services.workflow_helpers import WorkflowFlight


@pytest.fixture
def workflows(runtime: Runtime, principal: Principal, clock: FakeClock) -> WorkflowFlight:
    return WorkflowFlight(runtime, principal, clock)


@pytest.fixture
async def crew(runtime: Runtime, principal: Principal, clock: FakeClock) -> Crew:
    crew = Crew(runtime, principal, clock)
    await crew.register_tool()
    return crew
