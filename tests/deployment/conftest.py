"""Operating the server: readiness, several instances behind a proxy, backups.

The broker and instance fixtures (the shared Redis, private redis-servers a test may kill, `flightdeck
serve` processes) are the realtime tests'; the browser fixtures are the e2e tests'.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.deployment.proxy import Nginx, nginx_binary
from tests.e2e.conftest import browser_page, dashboard_built
from tests.realtime.conftest import private_redis, redis_server_binary, redis_url, start_instances
from tests.realtime.instances import Instance, StartInstances

__all__ = [
    "browser_page",
    "dashboard_built",
    "private_redis",
    "redis_server_binary",
    "redis_url",
    "start_instances",
    "topology",
]

GRACE = 20  # FLIGHTDECK_SHUTDOWN_GRACE_SECONDS for the instances behind the proxy


@pytest.fixture
async def topology(
    redis_url: str, start_instances: StartInstances, tmp_path: Path
) -> AsyncIterator[tuple[Nginx, list[Instance]]]:
    """The deployment guide's topology: nginx in front of two instances on PostgreSQL and Redis."""
    instances = await start_instances(redis_url, extra_env={"FLIGHTDECK_SHUTDOWN_GRACE_SECONDS": str(GRACE)})
    proxy = Nginx(nginx_binary(), tmp_path / "nginx", [i.port for i in instances])
    try:
        await proxy.start()
        yield proxy, instances
    finally:
        proxy.stop()
