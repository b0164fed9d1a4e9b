"""Background loops: each runs ``run_once`` every interval, logs failures and keeps going."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

logger = logging.getLogger(__name__)


class Loop:
    def __init__(self, name: str, interval: float, run_once: Callable[[], Awaitable[Any]]) -> None:
        self.name = name
        self.interval = interval
        self.run_once = run_once
        self.runs = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"loop:{self.name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("loop %s failed; it runs again in %.1fs", self.name, self.interval)
            self.runs += 1
            await asyncio.sleep(self.interval)
