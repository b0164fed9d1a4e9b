"""Background loops: each runs ``run_once`` every interval, logs failures and keeps going.

A timer's ``run_once`` reads what is due through a service, then hands each item to ``each_item``:
one transaction per item, as the timer's admin principal, with its own error handling, so one bad
item costs one log line and one ``flightdeck_loop_item_failures`` count, never the rest of the pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..auth import Principal, Role
from ..metrics import items_of, record_item_failure, record_loop_pass
from ..services.runtime import Runtime, Tx, unit_of_work

logger = logging.getLogger(__name__)
R = TypeVar("R")


@dataclass(frozen=True)
class Done(Generic[R]):
    """One item a pass handled: its tenant, its key and what the service returned."""

    tenant_id: str
    key: str
    result: R


async def each_item(
    runtime: Runtime,
    loop: str,
    actor: str,
    items: Iterable[tuple[str, str]],
    action: Callable[[Tx, str], Awaitable[R]],
) -> tuple[list[Done[R]], list[tuple[str, str]]]:
    """Run ``action`` on each (tenant, key) in a transaction of its own, as ``actor`` (an admin of the
    item's tenant). An item whose transaction raises is rolled back, logged once and skipped; the others
    go on. Returns what was done and the (tenant, key) pairs that failed."""
    done: list[Done[R]] = []
    failed: list[tuple[str, str]] = []
    for tenant_id, key in items:
        try:
            async with unit_of_work(runtime, Principal(tenant_id, Role.ADMIN, actor)) as tx:
                result = await action(tx, key)
        except Exception:
            failed.append((tenant_id, key))
            record_item_failure(loop)
            logger.exception("loop %s: item %s of tenant %s failed; the pass goes on", loop, key, tenant_id)
            continue
        done.append(Done(tenant_id, key, result))
    return done, failed


class Loop:
    def __init__(self, name: str, interval: float, run_once: Callable[[], Awaitable[Any]]) -> None:
        self.name = name
        self.interval = interval
        self.run_once = run_once
        self.runs = 0
        # Monotonic time of the last run that finished without an error (of the start until there is
        # one), and what the last failed run raised: readiness reads both.
        self.last_ok: float | None = None
        self.last_error: str | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        self.last_ok = time.monotonic()
        self._task = asyncio.create_task(self._run(), name=f"loop:{self.name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def late(self, now: float, slack: float) -> float | None:
        """Seconds since the last good run when that is longer than the interval plus ``slack``."""
        since = now - (self.last_ok if self.last_ok is not None else now)
        return since if since > self.interval + slack else None

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            try:
                result = await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.last_error = type(exc).__name__
                record_loop_pass(self.name, started, ok=False, items=0)
                logger.exception("loop %s failed; it runs again in %.1fs", self.name, self.interval)
            else:
                self.last_ok = time.monotonic()
                self.last_error = None
                record_loop_pass(self.name, started, ok=True, items=items_of(result))
            self.runs += 1
            await asyncio.sleep(self.interval)
