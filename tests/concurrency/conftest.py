"""Two server instances on one database, for the race tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.clock import FakeClock
from server.config import Settings
from tests.conftest import LiveServer, start_server, stop_server


@pytest.fixture
def two_servers(settings: Settings, clock: FakeClock) -> Iterator[tuple[LiveServer, LiveServer]]:
    first = start_server(settings, clock)
    second = start_server(settings, clock)
    yield first, second
    stop_server(first)
    stop_server(second)
