"""`/readyz` against real failures: a dropped database, one behind on its migrations, a dead broker, a
loop stuck behind a lock. Each test watches the answer turn to 503 with the reason, then recover.
`/healthz` stays 200 throughout: the process is up."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from server.clock import FakeClock
from server.config import Settings
from server.db.migrate import head_revisions, upgrade
from tests.conftest import LiveServer, _admin, start_server, stop_server, upgrade_in_thread
from tests.realtime.conftest import PrivateRedis
from tests.realtime.processes import until

on_postgres = pytest.mark.parametrize(
    "db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
on_sqlite = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)

FAST_LOOPS = {
    "stall_scan_interval_seconds": 0.2,
    "workflow_timer_interval_seconds": 0.2,
    "asset_expiry_scan_interval_seconds": 0.2,
    "ready_loop_slack_seconds": 1.0,
    "ready_timeout_seconds": 2.0,
}


class Probe:
    """Asks /readyz and /healthz as a load balancer would."""

    def __init__(self, live: LiveServer) -> None:
        self.http = httpx.AsyncClient(base_url=live.url, timeout=10)
        self.last: tuple[int, list[str]] = (0, [])

    async def ready(self) -> tuple[int, list[str]]:
        response = await self.http.get("/readyz")
        body = response.json()
        assert body["status"] == ("ready" if response.status_code == 200 else "unavailable"), body
        assert response.status_code in (200, 503)
        assert response.headers["cache-control"] == "no-store"
        self.last = (response.status_code, body["reasons"])
        return self.last

    async def until_ready(self, within: float = 20) -> None:
        async def check() -> bool:
            return (await self.ready())[0] == 200

        await until(check, within, f"/readyz 200 (last answer {self.last})")
        assert self.last == (200, [])

    async def until_reason(self, prefix: str, within: float = 20) -> list[str]:
        async def check() -> bool:
            status, reasons = await self.ready()
            return status == 503 and any(r.startswith(prefix) for r in reasons)

        await until(check, within, f"/readyz 503 with a reason starting {prefix!r} (last {self.last})")
        return self.last[1]

    async def until_reasons_are(self, prefixes: list[str], within: float = 20) -> list[str]:
        """Waits for a 503 whose reasons are exactly one per prefix, in order."""

        async def check() -> bool:
            status, reasons = await self.ready()
            return (
                status == 503
                and len(reasons) == len(prefixes)
                and all(r.startswith(p) for r, p in zip(reasons, prefixes, strict=True))
            )

        await until(check, within, f"/readyz 503 with reasons starting {prefixes!r} (last {self.last})")
        return self.last[1]

    async def alive(self) -> bool:
        response = await self.http.get("/healthz")
        return response.status_code == 200 and response.json() == {"status": "ok"}


ProbeServer = Callable[[Settings], Probe]


@pytest.fixture
async def probe_server(clock: FakeClock) -> AsyncIterator[ProbeServer]:
    """Starts a server with the given settings and returns a probe of it; both end after the test."""
    started: list[tuple[LiveServer, Probe]] = []

    def start(settings: Settings) -> Probe:
        live = start_server(settings, clock)
        started.append((live, Probe(live)))
        return started[-1][1]

    yield start
    for live, probe in started:
        await probe.http.aclose()
        stop_server(live)


@on_postgres
async def test_readyz_fails_while_the_database_is_dropped_and_recovers_when_it_is_back(
    db_url: str, probe_server: ProbeServer, postgres_template: str
) -> None:
    probe = probe_server(Settings(database_url=db_url, **FAST_LOOPS))
    await probe.until_ready()

    name = make_url(db_url).database
    await _admin(f'DROP DATABASE "{name}" WITH (FORCE)')
    reasons = await probe.until_reason("database: not answering")
    assert await probe.alive()
    assert "fd_test" not in " ".join(reasons)  # the reason names no database, host or URL
    # Every loop's runs fail on the missing database, so each is reported late as well (each in its
    # own time: the first report of one loop may come a pass before another's).
    await probe.until_reason("loop workflow-timers: no successful run")
    reasons = await probe.until_reason("loop stalls: no successful run")
    assert any(r.startswith("loop stalls:") and "the last one failed with" in r for r in reasons), reasons

    await _admin(f'CREATE DATABASE "{name}" TEMPLATE "{postgres_template}"')
    await probe.until_ready()
    assert await probe.alive()


async def test_readyz_fails_until_the_database_is_migrated_to_head(
    tmp_path: Path, probe_server: ProbeServer
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    probe = probe_server(Settings(database_url=url, **FAST_LOOPS))
    reasons = await probe.until_reason("database: not migrated (no alembic_version table)")
    assert await probe.alive()
    assert all("flightdeck migrate" in r for r in reasons if r.startswith("database"))

    with ThreadPoolExecutor(1) as pool:
        pool.submit(upgrade, url, "0001").result()
    heads = ", ".join(sorted(head_revisions()))
    assert heads != "0001"
    reasons = await probe.until_reason("database: migrated to 0001, the code needs")
    assert f"database: migrated to 0001, the code needs {heads}; run `flightdeck migrate`" in reasons

    upgrade_in_thread(url)
    await probe.until_ready()


@on_sqlite
async def test_readyz_fails_while_the_broker_is_down_and_recovers_when_it_is_back(
    db_url: str, private_redis: PrivateRedis, probe_server: ProbeServer
) -> None:
    probe = probe_server(Settings(database_url=db_url, broadcast_url=private_redis.url, **FAST_LOOPS))
    await probe.until_ready()

    private_redis.kill()
    reasons = await probe.until_reason("broker: not connected")
    assert reasons == [r for r in reasons if r.startswith("broker")]  # the database and loops are fine
    assert await probe.alive()

    await private_redis.start()
    await probe.until_ready()


@on_postgres
async def test_readyz_names_a_loop_that_stopped_finishing_its_runs(
    db_url: str, probe_server: ProbeServer
) -> None:
    probe = probe_server(Settings(database_url=db_url, **FAST_LOOPS))
    await probe.until_ready()

    # The stall monitor reads research_plans on every run; this lock makes it wait, while the database
    # itself still answers every other query.
    dsn = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
    holder = await asyncpg.connect(dsn)
    try:
        lock = holder.transaction()
        await lock.start()
        await holder.execute("LOCK TABLE research_plans IN ACCESS EXCLUSIVE MODE")
        # Only that loop stays named: the database answers and the other loops go on running. On a busy
        # machine another loop may miss its slack for a moment, so the probe waits for the steady answer.
        reasons = await probe.until_reasons_are(["loop stalls: no successful run for"])
        assert "(it runs every 0.2s)" in reasons[0], reasons
        await lock.rollback()
    finally:
        await holder.close()
    await probe.until_ready()
