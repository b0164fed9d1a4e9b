"""What an event-log subscription is: a tenant's feed from a position, and which events it delivers.

The ``events`` and ``stallAlerts`` resolvers return a ``FeedStream`` instead of being generators, so
that the fan-out (``server/realtime/fanout.py``) can see what a subscription selects and serve many identical
ones from one pass over the feed. Iterated directly, it is the plain per-subscriber stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Hashable
from contextlib import aclosing
from typing import Any

from ...realtime import EventFeed, LoggedEvent

# Turns an event into the payload to deliver, or None to skip it. Pure and cheap: it runs once per
# event per group of identical subscriptions.
Select = Callable[[LoggedEvent], Any | None]
# Whether ``select`` would deliver an event, without building its payload: for a renderer that writes
# the event itself (the fan-out's plain ``events`` selections).
Accepts = Callable[[LoggedEvent], bool]


class FeedStream(AsyncIterator[Any]):
    def __init__(
        self,
        feed: EventFeed,
        tenant_id: str,
        start: int,
        select: Select,
        identity: Hashable,
        *,
        latest_only: bool = False,
        accepts: Accepts | None = None,
    ) -> None:
        self.feed = feed
        # Of the live events the feed hands over together, deliver only the last one selected: for
        # hints whose newest supersedes the rest (``workAvailable``), so a busy subscriber gets one
        # message per batch instead of one per event. A replay (events already logged when the
        # stream starts) is delivered whole.
        self.latest_only = latest_only
        self.tenant_id = tenant_id
        self.start = start
        self.select = select
        # Equal for two streams whose ``select`` behaves the same (field name and filter arguments).
        self.identity = identity
        self.accepts = accepts
        self._events: AsyncGenerator[Any, None] | None = None

    def __aiter__(self) -> FeedStream:
        return self

    async def __anext__(self) -> Any:
        if self._events is None:
            self._events = self._run()
        return await self._events.__anext__()

    async def aclose(self) -> None:
        if self._events is not None:
            await self._events.aclose()

    async def _run(self) -> AsyncGenerator[Any, None]:
        replay_to = await self.feed.position(self.tenant_id) if self.latest_only else None
        async with aclosing(self.feed.follow(self.tenant_id, self.start)) as batches:
            async for batch in batches:
                if replay_to is None:
                    for payload in map(self.select, batch):
                        if payload is not None:
                            yield payload
                    continue
                live = [p for e in batch if e.seq > replay_to and (p := self.select(e)) is not None]
                for payload in [self.select(e) for e in batch if e.seq <= replay_to] + live[-1:]:
                    if payload is not None:
                        yield payload
