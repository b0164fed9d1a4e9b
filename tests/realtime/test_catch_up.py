"""A replay (`events(after: 0)`) of thousands of events: batched reads, payloads written once, many
frames per write. Every event arrives once and in order, the replay hands over to
live events without a gap or a repeat, a reader that stops holds the server to a bounded buffer, and a
live subscriber of the same selection is never held behind somebody's replay."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from typing import Any

import pytest
import websockets

from server.auth import Role, create_key, revoke_key
from server.config import Settings
from server.db.engine import Database
from server.events.log import EventBuffer, write_events
from server.realtime.fanout_group import FRAMES_PER_WRITE
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.realtime.rawws import RawSubscription, SubscriptionEnded, read_seqs

LOGGED = 4_000
SELECTION = "seq kind entityType entityId rootType rootId fromState toState actor data createdAt"
REPLAY = f"subscription Replay($after: Int) {{ events(after: $after) {{ {SELECTION} }} }}"
EVENTS_PAGE = (
    "query Page($after: Int!) { events(after: $after, first: 100) "
    f"{{ edges {{ node {{ {SELECTION} }} }} }} }}"
)


async def _log(database_url: str, count: int, clock: Any, tenant: str = "default") -> None:
    """``count`` events written straight into the log (as the bench does), with assorted data."""
    db = Database(database_url)
    try:
        for start in range(0, count, 1000):
            buffer = EventBuffer(tenant, "test", clock.now())
            for n in range(start, min(count, start + 1000)):
                buffer.record(
                    "step_transitioned",
                    entity_type="step",
                    entity_id=str(uuid.uuid4()),
                    root_type="plan",
                    root_id=f"plan-{n % 7}",
                    from_state="pending" if n % 3 else None,
                    to_state="in_progress",
                    data={"n": n, "note": 'é ✓ " \\', "list": [1, 2.5, None, True]},
                )
            async with db.transaction() as session:
                await write_events(session, buffer)
    finally:
        await db.dispose()


async def _position(live: LiveServer) -> int:
    return int(await live.app.state.runtime.feed.position("default"))


async def _members(live: LiveServer) -> list[Any]:
    return [member for group in live.app.state.graphql.fanout.groups.values() for member in group.members]


async def _until(check: Any, within: float = 20) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not await check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def _all_nodes(client: GraphQLClient) -> list[dict[str, Any]]:
    """Every event through the history query (the ORM and Strawberry's own rendering)."""
    nodes: list[dict[str, Any]] = []
    while True:
        data = await client.execute(EVENTS_PAGE, {"after": nodes[-1]["seq"] if nodes else 0})
        page = [edge["node"] for edge in data["events"]["edges"]]
        if not page:
            return nodes
        nodes.extend(page)


async def test_a_replay_of_thousands_of_events_is_complete_in_order_once_and_then_live(
    db_url: str, clock: Any
) -> None:
    await _log(db_url, LOGGED, clock)
    live = start_server(Settings(database_url=db_url), clock)
    client = GraphQLClient(live.url)
    replay = await RawSubscription.open(live.ws_url, REPLAY, {"after": 0})
    try:
        received = [(await replay.next())["events"] for _ in range(LOGGED // 2)]
        # Committed mid-replay: they must follow the logged events, once each, with no gap.
        for _ in range(3):
            await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        middle = live.call(_position(live))
        while len(received) < middle:
            received.append((await replay.next())["events"])
        assert [event["seq"] for event in received] == list(range(1, middle + 1))
        # Level: it joined the group, and was written to through the batched writer.
        await _until(lambda: _joined(live, 1))
        (member,) = live.call(_members(live))
        assert type(member.frames).__name__ == "ProtocolFrames"
        # Live from here on.
        await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        total = live.call(_position(live))
        assert await read_seqs(replay, total, within=20) == list(range(middle + 1, total + 1))
        # Each event exactly as the history query renders it (SQLite's text and PostgreSQL's jsonb and
        # timestamptz both go through the replay's own row conversion).
        nodes = await _all_nodes(client)
        assert received == nodes[:middle]
        assert received[5]["data"] == {"n": 5, "note": 'é ✓ " \\', "list": [1, 2.5, None, True]}
    finally:
        await replay.close()
        await client.aclose()
        stop_server(live)


async def _on_server(live: LiveServer, coro: Any) -> Any:
    return live.call(coro)


async def _joined(live: LiveServer, count: int) -> bool:
    return len(live.call(_members(live))) == count


def _server_side(live: LiveServer, port: int) -> Any:
    """The uvicorn protocol serving the connection from the client's ``port``."""
    for connection in live.server.server_state.connections:
        if hasattr(connection, "conn") and connection.transport.get_extra_info("peername")[1] == port:
            return connection
    raise AssertionError("no such connection")


async def _open_slow(live: LiveServer, token: str | None = None) -> tuple[RawSubscription, Any]:
    """A replay to a client that reads nothing after the acknowledgement, its buffers and the server's
    for it shrunk before it subscribes; and the uvicorn protocol serving it."""
    found: list[Any] = []

    async def shrink(ws: Any) -> None:
        async def on_server() -> None:
            protocol = _server_side(live, ws.local_address[1])
            protocol.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            protocol.transport.set_write_buffer_limits(high=4096)
            found.append(protocol)

        live.call(on_server())

    sub = await RawSubscription.open(
        live.ws_url,
        REPLAY,
        {"after": 0},
        token=token,
        recv_buffer=4096,
        max_queue=1,
        before_subscribe=shrink,
    )
    return sub, found[0]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_a_replay_to_a_reader_that_stops_holds_a_bounded_buffer_and_loses_nothing(
    db_url: str, clock: Any
) -> None:
    await _log(db_url, LOGGED, clock)
    live = start_server(Settings(database_url=db_url), clock, keepalive=False)
    try:
        slow, protocol = await _open_slow(live)

        async def paused() -> bool:
            return not protocol.writable.is_set()

        await _until(lambda: _on_server(live, paused()))
        for _ in range(5):  # paused, it stays paused and writes nothing more
            buffered = protocol.transport.get_write_buffer_size()
            # The high-water mark, plus at most one write of FRAMES_PER_WRITE messages (~400 bytes each
            # here) made just before the pause: not the log.
            assert buffered <= 4096 + FRAMES_PER_WRITE * 1024, buffered
            await asyncio.sleep(0.05)
        assert protocol.transport.get_write_buffer_size() == buffered
        # It reads at last: everything, once, in order.
        assert await read_seqs(slow, LOGGED, within=120) == list(range(1, LOGGED + 1))
        await slow.close()
    finally:
        stop_server(live)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_a_live_subscriber_is_not_held_behind_a_replay_of_the_same_selection(
    db_url: str, clock: Any
) -> None:
    await _log(db_url, LOGGED, clock)
    live = start_server(Settings(database_url=db_url), clock, keepalive=False)
    client = GraphQLClient(live.url)
    try:
        stuck, _ = await _open_slow(live)
        current = await RawSubscription.open(live.ws_url, REPLAY, {"after": None})
        # The group started at the live end: the subscriber from now on joined it at once, the replay
        # did not (it is on its own, stopped by its reader).
        await _until(lambda: _joined(live, 1))
        (member,) = live.call(_members(live))
        (group,) = live.app.state.graphql.fanout.groups.values()
        assert group.position >= LOGGED
        assert member.pos >= LOGGED
        await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        total = live.call(_position(live))
        assert await read_seqs(current, total, within=20) == list(range(LOGGED + 1, total + 1))
        assert await read_seqs(stuck, total, within=120) == list(range(1, total + 1))
        await stuck.close()
        await current.close()
    finally:
        await client.aclose()
        stop_server(live)


async def test_under_another_server_each_message_is_one_ordinary_send() -> None:
    from server.realtime.frames import MessageFrames, frame_writer

    sent: list[str] = []
    gate = asyncio.Event()

    async def send_text(text: str) -> None:
        if text == "full":
            await gate.wait()  # a connection whose buffer is full
        sent.append(text)

    writer = frame_writer({"type": "websocket"}, send_text)
    assert isinstance(writer, MessageFrames)
    assert writer.write_now(["a", "b"]) == 2
    assert writer.write_now(["c", "full", "d"]) == 1  # stops before the one that would wait
    assert sent == ["a", "b", "c"]
    gate.set()
    await writer.write(["full", "d"])
    assert sent == ["a", "b", "c", "full", "d"]


async def _keys(db_url: str, clock: Any, *names: str) -> dict[str, tuple[str, str]]:
    db = Database(db_url)
    try:
        return {name: await create_key(db, "acme", Role.VIEWER, name, clock.now()) for name in names}
    finally:
        await db.dispose()


async def _revoke_all(db_url: str, clock: Any, *key_ids: str) -> None:
    db = Database(db_url)
    try:
        for key_id in key_ids:
            assert await revoke_key(db, key_id, clock.now())
    finally:
        await db.dispose()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_a_revoked_replay_to_a_reader_that_reads_nothing_is_dropped_and_holds_up_no_other_close(
    db_url: str, clock: Any
) -> None:
    """The close (4403) of a connection whose reader reads nothing cannot be written (it waits, like
    every send, for room in the buffer). It must neither keep that connection open nor hold up the
    close of the others revoked in the same pass: it is dropped after its time to close."""
    keys = await _keys(db_url, clock, "stuck", "other")
    await _log(db_url, LOGGED, clock, tenant="acme")
    live = start_server(Settings(database_url=db_url, auth_cache_seconds=0.3), clock, keepalive=False)
    try:
        slow, protocol = await _open_slow(live, token=keys["stuck"][1])  # watched first: closed first

        async def paused() -> bool:
            return not protocol.writable.is_set()

        async def replaying() -> int:
            return sum(group.refs for group in live.app.state.graphql.fanout.groups.values())

        async def dropped() -> bool:
            return bool(protocol.disconnected)

        await _until(lambda: _on_server(live, paused()))
        assert live.call(replaying()) == 1  # stopped by its reader, mid-replay
        other = await RawSubscription.open(live.ws_url, REPLAY, {"after": None}, token=keys["other"][1])
        await _revoke_all(db_url, clock, keys["stuck"][0], keys["other"][0])
        # The other connection gets its 4403 within the cache time, not after the stuck one's close.
        await asyncio.wait_for(other.ws.wait_closed(), 0.3 + 2.0)
        assert other.ws.close_code == 4403
        # The stuck one is dropped once its time to close (max(auth_cache_seconds, 1 s)) is up.
        await _until(lambda: _on_server(live, dropped()), within=10)
        seqs: list[int] = []
        with contextlib.suppress(SubscriptionEnded, websockets.ConnectionClosed):
            while True:
                seqs.append((await slow.next(within=30))["events"]["seq"])
        assert slow.ws.close_code == 1006  # dropped: no closing handshake
        # What it got before: from the start, no gap, and far from the whole log.
        assert seqs == list(range(1, len(seqs) + 1))
        assert len(seqs) < LOGGED // 2
        await _until(lambda: _on_server(live, _none_left(replaying())))
        assert live.app.state.graphql.key_watch.connections == 0
    finally:
        stop_server(live)


async def _none_left(count: Any) -> bool:
    return await count == 0
