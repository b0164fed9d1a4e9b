"""Cursors below the archived part of the log, through a real server and a real graphql-transport-ws
client (gql over websockets), on SQLite and PostgreSQL: `events(after:)` subscriptions, `stallAlerts`,
and the `events` query are refused with HISTORY_TRUNCATED and the seq to resume from; resuming there
gets every retained event once, in order, then live ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gql import GraphQLRequest
from gql.transport.exceptions import TransportQueryError

from server.clock import FakeClock
from server.db.engine import Database
from server.services.retention.archive import archive
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.wsclient import EVENTS, STALL_ALERTS, collect, ws_session
from tests.services.retention.helpers import log_events

PAGE = "query Page($after: Int!) { events(after: $after, first: 100) { edges { node { seq } } } }"


async def _archive_through(db_url: str, clock: FakeClock, logged: int, cut: int, out: Path) -> None:
    db = Database(db_url)
    try:
        await log_events(db, clock, logged)
        await archive(db, "default", cut, out, clock.now())
    finally:
        await db.dispose()


async def _refusal(session: Any, document: str, after: int) -> dict[str, Any]:
    with pytest.raises(TransportQueryError) as refused:
        async for _ in session.subscribe(GraphQLRequest(document, variable_values={"after": after})):
            pass
    errors = refused.value.errors
    assert errors is not None
    (error,) = errors
    return dict(error)


async def test_a_subscription_below_the_cut_off_is_refused_and_resumes_where_the_log_does(
    live_server: LiveServer, client: GraphQLClient, clock: FakeClock, db_url: str, tmp_path: Path
) -> None:
    await _archive_through(db_url, clock, 30, 20, tmp_path)

    async with ws_session(live_server.ws_url) as session:
        for after in (0, 5, 19):
            error = await _refusal(session, EVENTS, after)
            assert error["extensions"] == {"code": "HISTORY_TRUNCATED", "earliestSeq": 21}, error
            assert "resume with after = 20" in error["message"]
        stalls = await _refusal(session, STALL_ALERTS, 3)
        assert stalls["extensions"]["code"] == "HISTORY_TRUNCATED"

        # At the cut-off: every retained event once, in order, then a live one.
        created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        assert created["createResearchPlan"]["userErrors"] == []
        got = await collect(session, EVENTS, {"after": 20}, 11)
        seqs = [r["events"]["seq"] for r in got]
        assert seqs == list(range(21, 32))

    # The history query: a cursor below the cut is refused the same way; 0 lists what is retained.
    answer = await client.post(PAGE, {"after": 7})
    body = answer.json()
    assert body["data"] is None
    assert body["errors"][0]["extensions"] == {"code": "HISTORY_TRUNCATED", "earliestSeq": 21}
    page = await client.execute(PAGE, {"after": 0})
    assert page["events"]["edges"][0]["node"]["seq"] == 21


async def test_latest_seq_stays_put_when_every_event_is_archived(
    live_server: LiveServer, client: GraphQLClient, clock: FakeClock, db_url: str, tmp_path: Path
) -> None:
    await _archive_through(db_url, clock, 12, 12, tmp_path)
    latest = await client.execute("{ latestSeq }")
    assert latest["latestSeq"] == 12
    async with ws_session(live_server.ws_url) as session:
        await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        got = await collect(session, EVENTS, {"after": 12}, 1)
        assert got[0]["events"]["seq"] == 13


async def test_a_subscriber_catching_up_when_its_next_events_are_archived_is_told_and_ended(
    clock: FakeClock, db_url: str, tmp_path: Path
) -> None:
    from server.config import Settings
    from tests.conftest import start_server, stop_server
    from tests.realtime.rawws import SubscriptionEnded
    from tests.realtime.test_catch_up import _on_server, _open_slow, _until

    db = Database(db_url)
    await log_events(db, clock, 5_000, per_tx=500)
    # A ring of 64: the replay is read from the table, a page at a time.
    live = start_server(Settings(database_url=db_url, feed_ring_size=64), clock, keepalive=False)
    try:
        slow, protocol = await _open_slow(live)

        async def paused() -> bool:
            return not protocol.writable.is_set()

        await _until(lambda: _on_server(live, paused()))
        await archive(db, "default", 4_500, tmp_path, clock.now())
        seqs: list[int] = []

        async def read_all() -> None:
            while True:
                seqs.append((await slow.next(within=60))["events"]["seq"])

        with pytest.raises(SubscriptionEnded) as ended:
            await read_all()
        message = str(ended.value)
        assert "'type': 'error'" in message
        assert "HISTORY_TRUNCATED" in message
        assert "'earliestSeq': 4501" in message
        # Everything it got is the log's own prefix: nothing after the hole was handed over.
        assert seqs == list(range(1, len(seqs) + 1))
        assert len(seqs) < 4_500
        await slow.close()
    finally:
        stop_server(live)
        await db.dispose()
