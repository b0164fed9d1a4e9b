"""The mission-services driver on both databases, with the search tool registered."""

from __future__ import annotations

import pytest

from server.auth import Principal
from server.clock import FakeClock
from server.services.runtime import Runtime
from tests.services.missions.driver import Crew


@pytest.fixture
async def crew(runtime: Runtime, principal: Principal, clock: FakeClock) -> Crew:
    crew = Crew(runtime, principal, clock)
    await crew.register_tool()
    return crew
