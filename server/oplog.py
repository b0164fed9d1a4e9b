"""The operation log writer: a bounded queue drained in batches by one background task. The MCP
tool-call log uses the same writer with its own table (``model``) and records.

Recording never delays a response: ``submit`` only enqueues, and when the queue is full the record is
dropped and counted rather than waited for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, insert

from .db.engine import Database
from .db.models import Base, OperationLog

logger = logging.getLogger(__name__)

STOP_DRAIN_SECONDS = 10.0  # how long stop() lets the writer finish what it holds


@dataclass(frozen=True)
class OperationRecord:
    tenant_id: str
    actor: str
    operation_name: str
    operation_type: str
    duration_ms: float
    error: bool
    at: datetime


class OperationLogWriter:
    """Writes records (dataclasses whose fields are ``model``'s columns, ``at`` for created_at)."""

    def __init__(
        self, db: Database, *, model: type[Base] = OperationLog, max_queue: int = 10_000, batch: int = 500
    ) -> None:
        self._db = db
        self._model = model
        self._queue: asyncio.Queue[Any] = asyncio.Queue(max_queue)
        self._batch = batch
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0
        self.written = 0

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    def submit(self, record: Any) -> None:
        try:
            self._queue.put_nowait(record)
        except asyncio.QueueFull:
            self.dropped += 1

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"{self._model.__tablename__}-writer")

    async def stop(self) -> None:
        """Write what is queued, then stop."""
        if self._task is None:
            return
        # Let the task write the batch it holds: cancelling it mid-batch would lose records it has
        # already taken off the queue. Bounded, so a database that is gone cannot hang shutdown.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._queue.join(), STOP_DRAIN_SECONDS)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        await self.flush()

    async def flush(self) -> None:
        while not self._queue.empty():
            await self._write(self._take_batch())

    def _take_batch(self) -> list[Any]:
        items: list[Any] = []
        while len(items) < self._batch and not self._queue.empty():
            items.append(self._queue.get_nowait())
        return items

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            try:
                await asyncio.sleep(0.05)  # let a burst collect into one transaction
                batch += self._take_batch()
                await self._write(batch)
            except Exception:
                logger.exception("could not write %d %s records", len(batch), self._model.__tablename__)
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _write(self, batch: list[Any]) -> None:
        if not batch:
            return
        rows = []
        for r in batch:
            # The record's own attributes, shallow (``asdict`` copied every field recursively).
            row = dict(vars(r))
            row["created_at"] = row.pop("at")
            rows.append(row)
        async with self._db.transaction() as session:
            # Core, not the ORM's bulk path: the rows are plain values, nothing to track.
            await session.execute(insert(cast(Table, self._model.__table__)), rows)
        self.written += len(batch)
