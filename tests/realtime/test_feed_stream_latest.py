"""FeedStream's ``latest_only``: of the live events the feed hands over together, only the last
selected one is delivered (workAvailable's wake-ups); a replay of what was logged
before the stream started, and a stream without it, deliver every selected event."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, cast

from server.api.events.streams import FeedStream
from server.realtime import EventFeed

# Events by seq: odd ones are selected, even ones not. 1 to 3 were logged before the stream started.
BATCHES = [[1, 2, 3, 5, 7], [8], [9, 10, 11], [13]]


@dataclass
class Logged:
    seq: int


class Feed:
    async def position(self, tenant_id: str) -> int:
        return 3

    async def follow(self, tenant_id: str, after: int) -> AsyncGenerator[list[Logged], None]:
        for batch in BATCHES:
            yield [Logged(e) for e in batch if e > after]


def odd(event: Logged) -> int | None:
    return event.seq if event.seq % 2 else None


async def delivered(**kw: Any) -> list[int]:
    stream = FeedStream(cast(EventFeed, Feed()), "t", 0, cast(Any, odd), ("t",), **kw)
    return [payload async for payload in stream]


async def test_latest_only_delivers_the_replay_whole_then_the_last_selected_event_of_each_batch() -> None:
    # 1 and 3 replayed; 5 and 7 live together: 7; [8] selects nothing: no message; 9 and 11: 11.
    assert await delivered(latest_only=True) == [1, 3, 7, 11, 13]


async def test_by_default_every_selected_event_is_delivered() -> None:
    assert await delivered() == [1, 3, 5, 7, 9, 11, 13]
