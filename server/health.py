"""Readiness: may this process take traffic now? (``/healthz`` only says that the process is up.)

Ready means the database answers and is migrated to head, the broker is connected when there is one
(``memory://`` is not a broker), and every background loop has finished a run recently. Otherwise
``/readyz`` answers 503 with one reason per failed check, so that a load balancer stops sending traffic
here and an operator reads why. Reasons name the check and the kind of failure, never a URL or a
password; the full error goes to the log.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from .db.engine import Database
from .loops.runner import Loop
from .realtime import NoticeBus

logger = logging.getLogger(__name__)

MIGRATE_HINT = "run `flightdeck migrate`"


class Readiness:
    def __init__(
        self,
        db: Database,
        bus: NoticeBus,
        loops: Sequence[Loop],
        *,
        heads: frozenset[str],
        timeout: float,
        loop_slack: float,
    ) -> None:
        self.db = db
        self.bus = bus
        self.loops = loops
        self.heads = heads
        self.timeout = timeout
        self.loop_slack = loop_slack
        self._failing: list[str] = []

    async def reasons(self) -> list[str]:
        """Why this process is not ready; empty when it is."""
        reasons = [*await self._database(), *self._broker(), *self._late_loops(time.monotonic())]
        if reasons != self._failing:  # log changes only: probes ask every few seconds
            if reasons:
                logger.warning("not ready: %s", "; ".join(reasons))
            else:
                logger.info("ready again")
            self._failing = reasons
        return reasons

    async def _database(self) -> list[str]:
        try:
            async with asyncio.timeout(self.timeout), self.db.reader() as session:
                await session.execute(text("SELECT 1"))
                try:
                    found = await session.scalars(text("SELECT version_num FROM alembic_version"))
                    revisions = frozenset(found)
                except DBAPIError:
                    logger.warning("readiness: no migration table", exc_info=True)
                    return [f"database: not migrated (no alembic_version table); {MIGRATE_HINT}"]
        except TimeoutError:
            return [f"database: no answer within {self.timeout:g}s"]
        except Exception as exc:  # whatever the driver raises, the answer is "not ready", never a 500
            logger.warning("readiness: database check failed", exc_info=True)
            return [f"database: not answering ({_kind(exc)})"]
        if revisions != self.heads:
            at, needed = ", ".join(sorted(revisions)) or "nothing", ", ".join(sorted(self.heads))
            return [f"database: migrated to {at}, the code needs {needed}; {MIGRATE_HINT}"]
        return []

    def _broker(self) -> list[str]:
        if self.bus.url.startswith("memory:") or self.bus.connected.is_set():
            return []
        return [f"broker: not connected (reconnecting; {self.bus.reconnects} attempts so far)"]

    def _late_loops(self, now: float) -> list[str]:
        reasons = []
        for loop in self.loops:
            if not loop.running:
                reasons.append(f"loop {loop.name}: not running")
                continue
            late = loop.late(now, self.loop_slack)
            if late is not None:
                why = f"it runs every {loop.interval:g}s"
                if loop.last_error:
                    why += f"; the last one failed with {loop.last_error}"
                reasons.append(f"loop {loop.name}: no successful run for {late:.0f}s ({why})")
        return reasons


def _kind(exc: BaseException) -> str:
    """The driver's error class (what SQLAlchemy wraps), without its message: that may name hosts."""
    orig = getattr(exc, "orig", None)
    return type(orig if isinstance(orig, BaseException) else exc).__name__
