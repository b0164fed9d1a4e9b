"""A decision timer in a process of its own, for ``test_deadline_processes``: a runtime on the database
given, a fake clock standing at the instant given (the test's clock, moved past every deadline), and
``run_decision_deadlines`` run pass after pass, as a server's timer loop runs it.

It prints ``ready`` once connected and waits for a line on stdin, so that the test can start both
processes' passes together; then it prints one JSON line: how many decisions it found due when told
to go, and the ids it defaulted, escalated or withdrew.
Run as ``python -m tests.concurrency.deadline_timer_process URL ISO-INSTANT PASSES``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime
from typing import Any

from sqlalchemy import text

from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.loops.decision_deadlines import run_decision_deadlines
from server.services.decisions.deadlines import due_decisions
from server.services.runtime import Runtime


async def main(url: str, instant: str, passes: int) -> None:
    settings = Settings(database_url=url)
    runtime = Runtime(db=Database(url), clock=FakeClock(datetime.fromisoformat(instant)), settings=settings)
    try:
        async with runtime.db.reader() as session:
            await session.execute(text("SELECT 1"))  # connected before the start signal
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        async with runtime.db.reader() as session:
            due = len(await due_decisions(session, runtime.clock.now()))
        done: dict[str, Any] = {"due_at_start": due, "defaulted": [], "escalated": [], "withdrawn": []}
        for _ in range(passes):
            result = await run_decision_deadlines(runtime)
            for name in ("defaulted", "escalated", "withdrawn"):
                done[name].extend(getattr(result, name))
        print(json.dumps(done), flush=True)
    finally:
        await runtime.db.dispose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
