"""Background loops: each runs ``run_once`` every interval, logs failures and keeps going."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..metrics import items_of, record_loop_pass

logger = logging.getLogger(__name__)


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
