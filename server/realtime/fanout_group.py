"""One pass over the feed for every identical subscription: a group's driver renders each event once and
writes it to each member's socket in turn.

A group starts at the live end of the log. A member is one subscriber's operation. It starts on its own:
from its ``after`` position it follows the feed and sends with ordinary backpressure until it is level
with the group, then joins. Joined, it costs the group one socket write per batch of events and nothing
else: no task wakes up for it. So a replay (``after: 0``) never holds up the group's live members.

On its own, a member reads the log in pages of ``CATCH_UP_PAGE`` events and writes up to
``FRAMES_PER_WRITE`` messages at a time with one write (``frames.py``), waiting only while its
connection's buffer is full, and lets the loop run between writes, so that live subscribers are served
in between; it holds at most one page.

The driver never waits for a member. A write that would have to wait is not made, and that member is
detached: it goes back to following on its own from the last event it got, at the pace its connection
allows (reading from the table once it falls behind the ring), and rejoins when it has caught up. So a
slow subscriber costs neither the others nor memory, and loses nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING

from ..api.events.streams import FeedStream
from ..metrics import DELIVERY_LAG
from .feed import LoggedEvent
from .frames import FrameWriter

if TYPE_CHECKING:
    from .fanout import Fanout, Prepared

logger = logging.getLogger(__name__)

CATCH_UP_PAGE = 1000  # events read from the table at a time by a member behind the ring
FRAMES_PER_WRITE = 128  # messages a catching-up member writes at once before letting others run


class Member:
    __slots__ = ("detached", "frames", "is_active", "pos", "prefix")

    def __init__(
        self, operation_id: str, frames: FrameWriter, pos: int, is_active: Callable[[], bool]
    ) -> None:
        self.prefix = '{"id":' + json.dumps(operation_id) + ',"type":"next","payload":'
        self.frames = frames
        self.pos = pos  # the last seq this member has been given, or has no need of
        self.is_active = is_active
        self.detached = asyncio.Event()

    def message(self, payload: str) -> str:
        """The graphql-transport-ws ``next`` message carrying ``payload`` (a rendered event)."""
        return self.prefix + payload + "}"

    def write_now(self, rendered: Sequence[tuple[LoggedEvent, str]]) -> bool:
        """Write the events after ``pos`` if the connection takes them without waiting: False when it
        took fewer (those it took count) or is gone."""
        pending = [(event.seq, payload) for event, payload in rendered if event.seq > self.pos]
        if not pending:
            return True
        try:
            written = self.frames.write_now([self.message(payload) for _, payload in pending])
        except Exception:  # the connection is gone; the member's own task will see it too
            return False
        if written:
            self.pos = pending[written - 1][0]
        return written == len(pending)


class Group:
    def __init__(self, fanout: Fanout, prepared: Prepared) -> None:
        self.fanout = fanout
        self.prepared = prepared
        self.stream: FeedStream = prepared.stream
        self.position = self.stream.start  # every event up to here has been handed to the members
        self.members: dict[Member, None] = {}  # joined members, in joining order
        self.refs = 0  # members joined or catching up
        self.alive = True
        self.started = asyncio.Event()  # the group knows where it starts
        self.task = asyncio.create_task(self._drive(), name=f"fanout:{self.stream.tenant_id}")

    def try_join(self, member: Member) -> bool:
        """Join if ``member`` is level with the group (it needs nothing the group has already passed)."""
        if not self.started.is_set() or not self.alive or member.pos < self.position:
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
            # From the live end: a member that starts further back replays on its own, so that the
            # group's live members never wait for somebody's replay.
            self.position = max(self.position, await feed.position(stream.tenant_id))
            self.started.set()
            async with aclosing(feed.follow(stream.tenant_id, self.position)) as batches:
                async for batch in batches:
                    if self.members:
                        rendered = await self.fanout.render_batch(self.prepared, batch)
                        if rendered:
                            self._send(rendered)
                            now = self.prepared.context.runtime.clock.now()
                            for event, _ in rendered:
                                DELIVERY_LAG.observe(max(0.0, (now - event.created_at).total_seconds()))
                    self.position = batch[-1].seq
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("fan-out group for tenant %s failed; its members go on alone", stream.tenant_id)
        self.alive = False
        self.started.set()
        for member in list(self.members):
            self.detach(member)

    def _send(self, rendered: Sequence[tuple[LoggedEvent, str]]) -> None:
        for member in list(self.members):
            if not member.is_active():
                self.members.pop(member, None)  # completed: its task is being cancelled
                continue
            before = member.pos
            if not member.write_now(rendered):
                self.detach(member)
            self.fanout.sends += sum(1 for event, _ in rendered if before < event.seq <= member.pos)


async def run_member(fanout: Fanout, prepared: Prepared, member: Member) -> None:
    """Serve one subscriber until it is cancelled: on its own until level with the group, then joined."""
    group = fanout.acquire_group(prepared)
    try:
        await group.started.wait()
        while True:
            if not group.try_join(member):
                await _catch_up(fanout, prepared, member, group)
            await member.detached.wait()
            member.detached.clear()
    finally:
        fanout.release_group(group, member)


async def _catch_up(fanout: Fanout, prepared: Prepared, member: Member, group: Group) -> None:
    stream = prepared.stream
    async with aclosing(stream.feed.follow(stream.tenant_id, member.pos, page=CATCH_UP_PAGE)) as batches:
        async for batch in batches:
            for start in range(0, len(batch), FRAMES_PER_WRITE):
                part = batch[start : start + FRAMES_PER_WRITE]
                rendered = await fanout.render_batch(prepared, part)
                if rendered:
                    # One write for the part; waits only while the connection's buffer is full.
                    await member.frames.write([member.message(payload) for _, payload in rendered])
                    fanout.sends += len(rendered)
                member.pos = part[-1].seq
                if len(part) == FRAMES_PER_WRITE:
                    await asyncio.sleep(0)  # a replay takes turns with everything else on the loop
            if group.try_join(member):
                return
