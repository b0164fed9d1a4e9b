"""How archival and retention share the write lock with writers: short batches, and a pause after each.

A batch's transaction holds the database's write lock (SQLite's one writer; on PostgreSQL the tenant's
counter row, which every transaction of the tenant updates). A writer that arrives behind it waits for
the batch, so each batch is sized to hold the lock about ``HOLD_TARGET_SECONDS``. On a quiet machine
writers' p99 is ~11 ms on SQLite; fixed batches of 1,000 events held the lock ~95 ms each (a
100,000-event archive took 19 s at half duty) and the p99 during an archive was 136-260 ms; with short
deletes but 2,000-page vacuum steps one round still reached 207 ms. After each batch the work
waits ``PAUSE_FACTOR`` times as long as the batch held the lock (at most ``MAX_PAUSE_SECONDS``): a
SQLite writer of another process, asleep in its busy handler, would otherwise find the lock taken again
whenever it woke. Batches of ~10 ms with a pause as long (the lock held half the time) still put one
round's p99 at 2.3-2.4x in each of two runs: a writer's wait behind a batch is up to the batch's hold,
and with the lock held half the time half the writers meet one. With both smaller (~5 ms, a quarter
of the time) nine rounds of three runs stayed within 2x (docs/deployment.md).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

HOLD_TARGET_SECONDS = 0.005
PAUSE_FACTOR = 3.0
MAX_PAUSE_SECONDS = 0.5
SMALLEST = 10
FIRST = 100


@dataclass
class BatchSizer:
    """The next batch's size: scaled from the last one so that a batch holds the lock about ``target``
    seconds, at most doubling from one batch to the next, between SMALLEST and ``largest``."""

    largest: int
    target: float = HOLD_TARGET_SECONDS
    size: int = 0

    def __post_init__(self) -> None:
        self.size = max(1, min(self.largest, FIRST))

    def held(self, seconds: float) -> None:
        """Record how long the last batch held the lock."""
        # Growth stops at twofold before the division can overflow (a batch timed at 0 or 1e-300 s).
        grow = self.target / seconds if seconds > 0 else 2.0
        wanted = self.size * 2 if grow >= 2 else int(self.size * grow)
        self.size = max(min(SMALLEST, self.largest), min(self.largest, wanted))


def pause_for(held: float) -> float:
    """How long to wait after a batch that held the lock ``held`` seconds (0 before the first)."""
    return min(held * PAUSE_FACTOR, MAX_PAUSE_SECONDS) if held > 0 else 0.0


@dataclass
class Paced:
    """Batches of at most ``largest`` rows, each sized and followed by its pause as above:
    ``async with paced.batch() as size, db.transaction() as session: ...`` (the transaction inside, so
    that its commit counts as held)."""

    largest: int
    sizer: BatchSizer = field(init=False)
    held: float = 0.0
    # The hold is measured, not scheduled: a stopwatch and a sleep, both replaceable in tests.
    timer: Callable[[], float] = time.perf_counter
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def __post_init__(self) -> None:
        self.sizer = BatchSizer(self.largest)

    @asynccontextmanager
    async def batch(self) -> AsyncIterator[int]:
        if pause := pause_for(self.held):
            await self.sleep(pause)
        began = self.timer()
        yield self.sizer.size
        self.held = self.timer() - began
        self.sizer.held(self.held)
