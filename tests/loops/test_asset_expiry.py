"""The asset TTL timer on both databases, driven by the fake clock (no test sleeps for a TTL)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.dialects import sqlite

from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.mission_models import Asset
from server.loops import asset_expiry
from server.loops.asset_expiry import EXPIRY_TIMER, expire_assets
from server.services.missions import assets as mission_assets
from server.services.missions.assets import due_query
from server.services.runtime import Runtime, Tx
from tests.conftest import GraphQLClient, start_server, stop_server
from tests.services.missions.driver import Crew


@pytest.fixture
async def crew(runtime: Runtime, principal: Principal, clock: FakeClock) -> Crew:
    return Crew(runtime, principal, clock)


async def _asset_in(crew: Crew, state: str, ttl: float = 60) -> str:
    """An asset (TTL ``ttl`` seconds from now) walked to ``state``."""
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id, ttl=ttl)
    path = {
        "PROPOSED": [],
        "PENDING": [("accept_asset",)],
        "IN_PROGRESS": [("accept_asset",), ("start_asset_processing",)],
        "READY": [("accept_asset",), ("start_asset_processing",), ("complete_asset_processing", "x", None)],
        "ERROR": [("reject_asset", "no")],
    }[state]
    for act, *args in path:
        await crew.asset_act(act, asset.id, *args)
    return asset.id


async def test_an_asset_past_its_ttl_expires_exactly_once_with_an_event(
    crew: Crew, runtime: Runtime, clock: FakeClock
) -> None:
    asset_id = await _asset_in(crew, "READY")
    seq = await crew.last_seq()
    clock.advance(timedelta(seconds=59))
    assert await expire_assets(runtime) == []
    clock.advance(timedelta(seconds=1))  # expires_at itself is past the TTL

    [expired] = await expire_assets(runtime)

    assert expired.asset_id == asset_id
    asset = await crew.asset(asset_id)
    assert (asset.status, asset.status_reason) == ("EXPIRED", "TTL exceeded")
    new = await crew.new_events(seq)
    assert [(e.kind, e.from_state, e.to_state) for e in new] == [
        ("asset_transitioned", "READY", "EXPIRED"),
        ("asset_expired", None, None),
    ]
    assert all(e.actor == EXPIRY_TIMER and e.root_id == expired.mission_id for e in new)
    assert new[1].data == {"expiresAt": asset.expires_at.isoformat(), "expiredFrom": "READY"}

    clock.advance(timedelta(hours=1))
    assert await expire_assets(runtime) == []
    assert await crew.last_seq() == new[-1].seq


@pytest.mark.parametrize("state", ["PROPOSED", "PENDING", "IN_PROGRESS", "READY", "ERROR"])
async def test_every_state_but_expired_expires(
    crew: Crew, runtime: Runtime, clock: FakeClock, state: str
) -> None:
    asset_id = await _asset_in(crew, state)
    clock.advance(timedelta(minutes=2))
    seq = await crew.last_seq()
    assert [e.asset_id for e in await expire_assets(runtime)] == [asset_id]
    [move] = await crew.events(kind="asset_transitioned", after=seq)
    assert (move.from_state, move.to_state) == (state, "EXPIRED")


async def test_assets_without_a_ttl_or_not_yet_due_are_left_alone(
    crew: Crew, runtime: Runtime, clock: FakeClock
) -> None:
    mission_id = await crew.approved_mission()
    forever = await crew.propose_asset(mission_id, ttl=None)
    later = await crew.propose_asset(mission_id, ttl=7200)
    clock.advance(timedelta(hours=1))
    seq = await crew.last_seq()
    assert await expire_assets(runtime) == []
    assert [(await crew.asset(a.id)).status for a in (forever, later)] == ["PROPOSED", "PROPOSED"]
    assert await crew.last_seq() == seq


async def test_expiry_does_not_care_about_the_missions_state(
    crew: Crew, runtime: Runtime, clock: FakeClock
) -> None:
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id, ttl=30)
    await crew.cancel_mission(mission_id)
    clock.advance(timedelta(seconds=31))
    assert [e.asset_id for e in await expire_assets(runtime)] == [asset.id]


async def test_two_instances_expiring_at_once_expire_each_asset_exactly_once(
    crew: Crew, runtime: Runtime, clock: FakeClock
) -> None:
    assets = []
    for _ in range(6):
        mission_id = await crew.approved_mission()
        assets += [(await crew.propose_asset(mission_id, ttl=10 + i)).id for i in range(3)]
    clock.advance(timedelta(minutes=1))
    other = Runtime(db=Database(runtime.settings.database_url), clock=clock, settings=runtime.settings)
    try:
        results = await asyncio.gather(*(expire_assets(r) for r in (runtime, other, runtime, other)))
    finally:
        await other.db.dispose()

    expired = sorted(e.asset_id for result in results for e in result)
    assert expired == sorted(assets)
    events = await crew.events(kind="asset_expired")
    assert sorted(e.entity_id for e in events) == sorted(assets)
    seqs = [e.seq for e in await crew.events()]
    assert seqs == list(range(1, len(seqs) + 1))


async def test_the_due_query_uses_the_status_expires_at_index(runtime: Runtime) -> None:
    if not runtime.db.is_sqlite:
        pytest.skip("PostgreSQL's planner prefers sequential scans on tables this small")
    path = runtime.db.url.database
    assert path is not None
    compiled = due_query(datetime(2026, 1, 1, tzinfo=UTC)).compile(
        dialect=sqlite.dialect(), compile_kwargs={"render_postcompile": True}
    )
    params = [compiled.params[name] for name in compiled.positiontup or []]
    params = [p.replace(tzinfo=None).isoformat(" ") if isinstance(p, datetime) else p for p in params]
    connection = sqlite3.connect(path)
    try:
        plan = connection.execute(f"EXPLAIN QUERY PLAN {compiled.string}", params).fetchall()
    finally:
        connection.close()
    details = " / ".join(row[-1] for row in plan)
    assert "assets USING INDEX ix_assets_status_expires" in details, details


async def test_the_server_lifespan_runs_the_expiry_timer_every_interval(
    settings: Settings, clock: FakeClock
) -> None:
    """A real server with a 50 ms interval expires an asset without anyone calling expire_assets."""
    live = start_server(settings.model_copy(update={"asset_expiry_scan_interval_seconds": 0.05}), clock)
    client = GraphQLClient(live.url)
    try:
        mission = await client.execute(
            'mutation { proposeMission(input: { title: "t", goal: "g" }) { mission { id } } }'
        )
        mission_id = mission["proposeMission"]["mission"]["id"]
        asset = await client.execute(
            """mutation($m: ID!) { proposeAsset(input: { missionId: $m, name: "r", ttlSeconds: 30 }) {
                 asset { id status } } }""",
            {"m": mission_id},
        )
        asset_id = asset["proposeAsset"]["asset"]["id"]
        clock.advance(timedelta(seconds=31))
        deadline = asyncio.get_running_loop().time() + 10
        query = "query($m: ID!) { mission(id: $m) { assets { edges { node { id status } } } } }"
        while True:
            data = await client.execute(query, {"m": mission_id})
            [node] = [e["node"] for e in data["mission"]["assets"]["edges"]]
            if node["status"] == "EXPIRED":
                break
            assert asyncio.get_running_loop().time() < deadline, node
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # more passes of the loop add nothing
        history = await client.execute(
            "query($m: ID!) { events(rootId: $m, after: 0) { edges { node { kind entityId } } } }",
            {"m": mission_id},
        )
        kinds = [e["node"]["kind"] for e in history["events"]["edges"] if e["node"]["entityId"] == asset_id]
        assert kinds.count("asset_expired") == 1
    finally:
        await client.aclose()
        stop_server(live)


async def test_an_asset_that_fails_to_expire_is_logged_once_and_the_pass_goes_on(
    crew: Crew,
    runtime: Runtime,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Batches of two: the failing asset is tried once per pass and never keeps the pass going."""
    mission_id = await crew.approved_mission()
    assets = sorted([(await crew.propose_asset(mission_id, ttl=10)).id for _ in range(5)])
    bad = assets[2]
    monkeypatch.setattr(mission_assets, "EXPIRY_BATCH", 2)
    monkeypatch.setattr(asset_expiry, "EXPIRY_BATCH", 2)

    async def expire_or_fail(tx: Tx, asset_id: str) -> Asset | None:
        if asset_id == bad:
            raise RuntimeError("a bad asset")
        return await mission_assets.expire_asset(tx, asset_id)

    monkeypatch.setattr(asset_expiry, "expire_asset", expire_or_fail)
    clock.advance(timedelta(minutes=1))

    with caplog.at_level(logging.ERROR, logger="server.loops.runner"):
        expired = await expire_assets(runtime)

    assert sorted(e.asset_id for e in expired) == [a for a in assets if a != bad]
    assert (await crew.asset(bad)).status == "PROPOSED"
    [record] = [r for r in caplog.records if r.name == "server.loops.runner"]
    assert f"loop asset-expiry: item {bad} of tenant" in record.getMessage()
    # The next pass tries it again, and it expires once it can.
    monkeypatch.setattr(asset_expiry, "expire_asset", mission_assets.expire_asset)
    assert [e.asset_id for e in await expire_assets(runtime)] == [bad]
