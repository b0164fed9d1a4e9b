"""One pass over the feed for every identical subscription: a group's driver renders each event once and
writes it to each member's socket in turn.

A member is one subscriber's operation. It starts on its own: from its ``after`` position it follows the
feed and sends with ordinary backpressure until it is level with the group, then joins. Joined, it costs
the group one socket write per event and nothing else: no task wakes up for it.

The driver never waits for a member. uvicorn's send completes without suspending unless the connection's
write buffer is over its high-water mark; a send that would have to wait is abandoned before it writes
anything, and that member is detached: it goes back to following on its own from the last event it got,
at the pace its connection allows (reading from the table once it falls behind the ring), and rejoins
when it has caught up. So a slow subscriber costs neither the others nor memory, and loses nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import aclosing
from typing import TYPE_CHECKING

from ..api.events.streams import FeedStream
from ..metrics import DELIVERY_LAG

if TYPE_CHECKING:
    from .fanout import Fanout, Prepared

logger = logging.getLogger(__name__)

SendText = Callable[[str], Awaitable[None]]


class Member:
    __slots__ = ("detached", "is_active", "pos", "prefix", "send")

    def __init__(self, operation_id: str, send: SendText, pos: int, is_active: Callable[[], bool]) -> None:
        self.prefix = '{"id":' + json.dumps(operation_id) + ',"type":"next","payload":'
        self.send = send
        self.pos = pos  # the last seq this member has been given, or has no need of
        self.is_active = is_active
        self.detached = asyncio.Event()

    async def deliver(self, text: str) -> None:
        await self.send(self.prefix + text + "}")

    def deliver_now(self, text: str) -> bool:
        """Send if the connection takes it without waiting; False (nothing sent) if it would wait or fails."""
        coro = self.send(self.prefix + text + "}")
        assert isinstance(coro, Coroutine)
        try:
            coro.send(None)
        except StopIteration:
            return True
        except Exception:  # the connection is gone; the member's own task will see it too
            return False
        coro.close()  # suspended before writing anything (waiting for the buffer to drain)
        return False


class Group:
    def __init__(self, fanout: Fanout, prepared: Prepared) -> None:
        self.fanout = fanout
        self.prepared = prepared
        self.stream: FeedStream = prepared.stream
        self.position = self.stream.start  # every event up to here has been handed to the members
        self.members: dict[Member, None] = {}  # joined members, in joining order
        self.refs = 0  # members joined or catching up
        self.alive = True
        self.task = asyncio.create_task(self._drive(), name=f"fanout:{self.stream.tenant_id}")

    def try_join(self, member: Member) -> bool:
        """Join if ``member`` is level with the group (it needs nothing the group has already passed)."""
        if not self.alive or member.pos < self.position:
            return False
        self.members[member] = None
        return True

    def detach(self, member: Member) -> None:
        if member in self.members:
            del self.members[member]
            member.detached.set()

    def leave(self, member: Member) -> bool:
        """Drop ``member`` for good; True when it was the last one (the caller then stops the group)."""
        self.members.pop(member, None)
        self.refs -= 1
        return self.refs == 0

    async def _drive(self) -> None:
        feed, stream = self.stream.feed, self.stream
        try:
            async with aclosing(feed.follow(stream.tenant_id, self.position)) as batches:
                async for batch in batches:
                    for event in batch:
                        payload = stream.select(event)
                        if payload is not None and self.members:
                            text = await self.fanout.render(self.prepared, payload)
                            self._send(event.seq, text)
                            lag = self.prepared.context.runtime.clock.now() - event.created_at
                            DELIVERY_LAG.observe(max(0.0, lag.total_seconds()))
                        self.position = event.seq
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("fan-out group for tenant %s failed; its members go on alone", stream.tenant_id)
        self.alive = False
        for member in list(self.members):
            self.detach(member)

    def _send(self, seq: int, text: str) -> None:
        for member in list(self.members):
            if seq <= member.pos:
                continue  # it joined ahead of the group and has this one already
            if not member.is_active():
                self.members.pop(member, None)  # completed: its task is being cancelled
            elif member.deliver_now(text):
                member.pos = seq
                self.fanout.sends += 1
            else:
                self.detach(member)


async def run_member(fanout: Fanout, prepared: Prepared, member: Member) -> None:
    """Serve one subscriber until it is cancelled: on its own until level with the group, then joined."""
    group = fanout.acquire_group(prepared)
    try:
        while True:
            if not group.try_join(member):
                await _catch_up(fanout, prepared, member, group)
            await member.detached.wait()
            member.detached.clear()
    finally:
        fanout.release_group(group, member)


async def _catch_up(fanout: Fanout, prepared: Prepared, member: Member, group: Group) -> None:
    stream = prepared.stream
    async with aclosing(stream.feed.follow(stream.tenant_id, member.pos)) as batches:
        async for batch in batches:
            for event in batch:
                payload = stream.select(event)
                if payload is not None:
                    text = await fanout.render(prepared, payload)
                    # Written straight into the socket's buffer; waited for only when it is full.
                    if not member.deliver_now(text):
                        await member.deliver(text)
                    fanout.sends += 1
                member.pos = event.seq
            if group.try_join(member):
                return
