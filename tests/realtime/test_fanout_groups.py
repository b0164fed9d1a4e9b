"""Identical event subscriptions form one group: one pass over the feed, one render per event, whatever
position each subscriber started from; a subscriber that stops reading leaves the group and loses nothing."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from server.config import Settings
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.realtime.rawws import EVENT_SEQS, RawSubscription, read_seqs

pytestmark = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


async def _groups(live: LiveServer) -> dict[str, int]:
    fanout = live.app.state.graphql.fanout
    return {key: len(group.members) for key, group in fanout.groups.items()}


async def _make_events(client: GraphQLClient, plans: int) -> None:
    for _ in range(plans):
        await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})


async def _position(live: LiveServer) -> int:
    return int(await live.app.state.runtime.feed.position("default"))


async def test_subscribers_from_different_positions_share_one_group_and_one_render_per_event(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    await _make_events(client, 2)
    before = live_server.call(_position(live_server))
    fanout = live_server.app.state.graphql.fanout
    subs = [
        await RawSubscription.open(live_server.ws_url, EVENT_SEQS, {"after": after}) for after in (0, 1, None)
    ]
    try:
        # the replays: the first two catch up on their own before joining
        assert await read_seqs(subs[0], before, within=10) == list(range(1, before + 1))
        assert await read_seqs(subs[1], before, within=10) == list(range(2, before + 1))
        for _ in range(100):
            if list(live_server.call(_groups(live_server)).values()) == [3]:
                break
            await asyncio.sleep(0.02)
        assert list(live_server.call(_groups(live_server)).values()) == [3]  # one group, every member in it

        renders_before = fanout.renders
        await _make_events(client, 2)
        total = live_server.call(_position(live_server))
        live = list(range(before + 1, total + 1))
        for sub in subs:
            assert await read_seqs(sub, total, within=10) == live
        assert fanout.renders - renders_before == len(live)  # once per event, not once per subscriber
    finally:
        for sub in subs:
            await sub.close()


async def test_different_filters_are_different_groups_and_each_gets_only_its_events(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    query = "subscription($kinds: [String!]) { events(filter: {kinds: $kinds}) { seq kind } }"
    created = await RawSubscription.open(live_server.ws_url, query, {"kinds": ["plan_modified"]})
    everything = await RawSubscription.open(live_server.ws_url, query, {})
    try:
        for _ in range(100):
            if sorted(live_server.call(_groups(live_server)).values()) == [1, 1]:
                break
            await asyncio.sleep(0.02)
        assert sorted(live_server.call(_groups(live_server)).values()) == [1, 1]
        await _make_events(client, 1)
        total = live_server.call(_position(live_server))
        assert (await created.next())["events"]["kind"] == "plan_modified"
        kinds = [(await everything.next())["events"]["kind"] for _ in range(total)]
        assert "plan_modified" in kinds
        assert len(kinds) == total
    finally:
        await created.close()
        await everything.close()


async def test_a_selection_that_depends_on_variables_is_served_alone_and_still_works(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    query = "subscription($full: Boolean!) { events(after: 0) { seq kind @include(if: $full) } }"
    brief = await RawSubscription.open(live_server.ws_url, query, {"full": False})
    full = await RawSubscription.open(live_server.ws_url, query, {"full": True})
    try:
        await _make_events(client, 1)
        assert await brief.next() == {"events": {"seq": 1}}
        assert (await full.next())["events"]["kind"]
        assert live_server.call(_groups(live_server)) == {}
    finally:
        await brief.close()
        await full.close()


async def test_a_stalled_reader_leaves_the_group_without_holding_up_the_others_and_loses_nothing(
    db_url: str, clock: Any
) -> None:
    live = start_server(Settings(database_url=db_url, feed_ring_size=16), clock)
    producer = GraphQLClient(live.url)
    try:
        slow = await RawSubscription.open(
            live.ws_url, EVENT_SEQS, {"after": 0}, recv_buffer=4096, max_queue=1
        )
        fast = await RawSubscription.open(live.ws_url, EVENT_SEQS, {"after": 0})
        for _ in range(100):
            if list(live.call(_groups(live)).values()) == [2]:
                break
            await asyncio.sleep(0.02)

        async def shrink() -> None:  # the slow one's server side: tiny socket and transport buffers
            connections = [c for c in live.server.server_state.connections if hasattr(c, "conn")]
            for connection in connections:
                if connection.transport.get_extra_info("peername")[1] == slow.ws.local_address[1]:
                    sock = connection.transport.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
                    connection.transport.set_write_buffer_limits(high=4096)

        live.call(shrink())
        while live.call(_position(live)) < 400:  # far more than the buffers hold
            await _make_events(producer, 20)
        total = live.call(_position(live))
        # the fast one gets everything while the slow one reads nothing
        assert await read_seqs(fast, total, within=30) == list(range(1, total + 1))
        assert list(live.call(_groups(live)).values()) == [1]  # only the fast one is still joined
        # the slow one reads at last: every event, once, in order
        assert await read_seqs(slow, total, within=60) == list(range(1, total + 1))
        await _make_events(producer, 1)
        after = live.call(_position(live))
        assert await read_seqs(slow, after, within=10) == list(range(total + 1, after + 1))
        await slow.close()
        await fast.close()
    finally:
        await producer.aclose()
        stop_server(live)


async def _render_synthetic(live: LiveServer, first_seq: int, count: int) -> tuple[int, int]:
    """Render made-up events through the one group's shared path: the bytes kept by two equal windows of
    ``count`` events, after a warm-up that brings every cache to its working size."""
    import tracemalloc

    from server.realtime.feed import LoggedEvent

    fanout = live.app.state.graphql.fanout
    (group,) = fanout.groups.values()
    at = live.clock.now()
    seqs = iter(range(first_seq, first_seq + 200 + 2 * count))

    async def render(n: int) -> None:
        for seq, _ in zip(seqs, range(n), strict=False):
            data = {"stepOrder": seq % 7, "note": "x" * 40}
            await fanout.render(
                group.prepared,
                LoggedEvent(seq, "default", "step", f"s{seq}", "plan", "p", "k", "a", "b", "t", data, at),
            )

    await render(200)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        await render(count)
        middle = tracemalloc.get_traced_memory()[0]
        await render(count)
        return middle - start, tracemalloc.get_traced_memory()[0] - middle
    finally:
        tracemalloc.stop()


async def test_rendering_many_events_through_one_group_keeps_memory_flat(db_url: str, clock: Any) -> None:
    # A group lives as long as its subscribers, so what it keeps per rendered event is a leak: graphql-core
    # memoizes collected sub-fields per executor, and per-event copies of one executor share that memo.
    live = start_server(Settings(database_url=db_url, feed_ring_size=16), clock)
    sub = await RawSubscription.open(
        live.ws_url, "subscription { events { seq kind entityId data createdAt } }", {}
    )
    try:
        for _ in range(100):
            if list(live.call(_groups(live)).values()) == [1]:
                break
            await asyncio.sleep(0.02)
        assert list(live.call(_groups(live)).values()) == [1]
        first, second = live.call(_render_synthetic(live, 1_000_000, 3000), within=120)
        # Unfixed, each window of 3000 events kept ~6 MB (~2 KB per event); the render cache holds 16.
        assert second < 100_000, f"{second} bytes kept by the second 3000 events (first: {first})"
    finally:
        await sub.close()
        stop_server(live)


@pytest.mark.parametrize(
    "selection",
    [
        "seq kind entityType entityId rootType rootId fromState toState actor data createdAt __typename",
        "n: seq when: createdAt seq what: data kind kind",  # aliases, a field twice
    ],
)
async def test_a_plain_events_selection_renders_exactly_as_graphql_core_would(
    runtime: Any, selection: str
) -> None:
    from dataclasses import replace

    from server.api.context import make_context
    from server.api.events.types import EventType
    from server.api.schema import build_schema
    from server.auth import DEV_PRINCIPAL
    from server.realtime.fanout import Fanout
    from server.realtime.feed import LoggedEvent

    fanout = Fanout(build_schema(runtime.settings), runtime.settings)
    prepared = await fanout.prepare(
        f"subscription {{ events(after: 0) {{ {selection} }} }}",
        None,
        None,
        make_context(runtime, DEV_PRINCIPAL),
    )
    assert prepared is not None
    assert prepared.projection is not None  # the fast path is taken
    slow = replace(prepared, key=prepared.key + "/executed", projection=None)
    for n, (from_state, data) in enumerate(
        [(None, {}), ("pending", {"a": [1, 2.5, None, "é"], "b": {"c": True}})]
    ):
        event = LoggedEvent(
            n + 1,
            "default",
            "step",
            "e-1",
            "plan",
            "p-1",
            "step_transitioned",
            from_state,
            "done",
            "dev",
            data,
            runtime.clock.now(),
        )
        payload = EventType.from_row(event)
        assert await fanout.render(prepared, payload) == await fanout.render(slow, payload)
