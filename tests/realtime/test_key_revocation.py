"""Revoking a key closes the WebSockets that authenticated with it, with 4403, at the key watch's next
pass (every auth_cache_seconds); other connections keep streaming."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
import websockets
from websockets.typing import Subprotocol

from server.auth import Role, create_key, revoke_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.realtime.rawws import EVENT_SEQS, RawSubscription
from tests.waiting import patient

CACHE_SECONDS = 0.3
# How late past the cache time a close may come on a loaded machine: the check's own query and the
# close handshake. The wait polls, so a passing run takes only as long as the close does.
SLACK_SECONDS = 2.0


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=CACHE_SECONDS, legacy_graphql_ws=True)


@pytest.fixture
async def keys(settings: Settings, clock: FakeClock) -> dict[str, tuple[str, str]]:
    """(id, key) by name, made before the server starts (so it runs with keys, not in dev mode)."""
    db = Database(settings.database_url)
    try:
        return {
            name: await create_key(db, "acme", role, name, clock.now())
            for name, role in [("revoked", Role.VIEWER), ("kept", Role.VIEWER), ("agent", Role.AGENT)]
        }
    finally:
        await db.dispose()


@pytest.fixture
def server(keys: dict[str, tuple[str, str]], settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    live = start_server(settings, clock)
    assert not live.app.state.dev_mode
    yield live
    stop_server(live)


async def _revoke(settings: Settings, key_id: str, clock: FakeClock) -> float:
    """Revoke through the function `flightdeck keys revoke` calls; returns when it was done."""
    db = Database(settings.database_url)
    try:
        assert await revoke_key(db, key_id, clock.now())
    finally:
        await db.dispose()
    return time.monotonic()


async def _close_code(ws: websockets.ClientConnection, within: float) -> int | None:
    """The close code the server sent, once the connection is closed (fails after ``within`` seconds)."""
    await asyncio.wait_for(ws.wait_closed(), patient(within))
    return ws.close_code


async def test_revoking_a_key_closes_its_subscriptions_with_4403_at_the_next_watch_pass(
    server: LiveServer, keys: dict[str, tuple[str, str]], settings: Settings, clock: FakeClock
) -> None:
    revoked = await RawSubscription.open(server.ws_url, EVENT_SEQS, {"after": 0}, token=keys["revoked"][1])
    kept = await RawSubscription.open(server.ws_url, EVENT_SEQS, {"after": 0}, token=keys["kept"][1])
    agent = GraphQLClient(server.url, keys["agent"][1])
    try:
        await agent.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        assert (await revoked.next())["events"]["seq"] == 1
        assert (await kept.next())["events"]["seq"] == 1
        assert server.call(_watched(server)) == 2

        revoked_at = await _revoke(settings, keys["revoked"][0], clock)
        assert await _close_code(revoked.ws, CACHE_SECONDS + SLACK_SECONDS) == 4403
        # A figure, not a bound: the watch runs every auth_cache_seconds, and how late a pass comes on
        # a loaded machine is the scheduler's; the wait above only detects a close that never comes.
        took = time.monotonic() - revoked_at
        print(f"closed {took:.3f}s after the revocation (auth_cache_seconds={CACHE_SECONDS})")

        # The other key's subscription on the same (shared) stream goes on.
        await agent.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        assert (await kept.next())["events"]["seq"] == 2
        assert server.call(_watched(server)) == 1
    finally:
        await agent.aclose()
        await revoked.close()
        await kept.close()
    await _until_unwatched(server)


async def test_the_legacy_protocol_is_closed_on_revocation_too(
    server: LiveServer, keys: dict[str, tuple[str, str]], settings: Settings, clock: FakeClock
) -> None:
    async with websockets.connect(server.ws_url, subprotocols=[Subprotocol("graphql-ws")]) as ws:
        init = {"type": "connection_init", "payload": {"Authorization": f"Bearer {keys['revoked'][1]}"}}
        await ws.send(json.dumps(init))
        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "connection_ack"
        await _revoke(settings, keys["revoked"][0], clock)
        # Keep-alive messages may still come; the close comes after them.
        assert await _close_code(ws, CACHE_SECONDS + SLACK_SECONDS) == 4403


async def test_a_dev_mode_connection_without_a_key_is_not_watched(
    live_server: LiveServer, settings: Settings, clock: FakeClock
) -> None:
    assert live_server.app.state.dev_mode
    anonymous = await RawSubscription.open(live_server.ws_url, EVENT_SEQS, {"after": 0})
    try:
        assert live_server.call(_watched(live_server)) == 0
    finally:
        await anonymous.close()


async def _watched(live: LiveServer) -> int:
    return int(live.app.state.graphql.key_watch.connections)


async def _until_unwatched(live: LiveServer, within: float = 10) -> None:
    deadline = time.monotonic() + patient(within)
    while live.call(_watched(live)):
        assert time.monotonic() < deadline, "closed connections are still watched"
        await asyncio.sleep(0.05)
