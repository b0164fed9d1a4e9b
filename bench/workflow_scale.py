"""In-process cost of one claim plus one completion on workflows of 10, 100 and 1,000 independent steps.

The cost of a claim and of a report must not grow with the workflow: each size is
drained by one worker in-process on a fresh SQLite file, and the median claim+complete pair is reported.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from server.auth import DEV_PRINCIPAL
from server.clock import SystemClock
from server.config import Settings
from server.db.engine import Database
from server.services.runtime import Runtime, unit_of_work
from server.services.workflows import claims, create, reports

SIZES = (10, 100, 1000)
PAIRS = 50  # claim+complete pairs timed per size (all of them for the smallest)


async def pair_ms(database_url: str, steps: int) -> float:
    settings = Settings(database_url=database_url, max_steps=max(SIZES))
    runtime = Runtime(Database(database_url), SystemClock(), settings)
    yaml = "name: bench\nsteps:\n" + "".join(f"  - name: s{i}\n" for i in range(steps))
    try:
        async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
            workflow_id = (await create.create_workflow_from_yaml(tx, yaml)).workflow.id
        async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
            await create.start_workflow(tx, workflow_id)
        timings = []
        for _ in range(min(PAIRS, steps)):
            started = time.perf_counter()
            async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
                claim = await claims.claim_work(tx, "bench", workflow_id)
            assert claim.step is not None, claim
            async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
                await reports.complete_workflow_step(tx, claim.step.id, "bench")
            timings.append((time.perf_counter() - started) * 1000)
    finally:
        await runtime.db.dispose()
    return statistics.median(timings)


def run(fresh_db: Callable[[Path, str], str]) -> dict[str, float]:
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for steps in SIZES:
            url = fresh_db(Path(tmp), f"workflow-scale-{steps}.db")
            results[f"workflow_claim_complete_ms_at_{steps}"] = round(asyncio.run(pair_ms(url, steps)), 2)
    ratio = (
        results[f"workflow_claim_complete_ms_at_{SIZES[-1]}"]
        / results[f"workflow_claim_complete_ms_at_{SIZES[0]}"]
    )
    results[f"workflow_claim_complete_ratio_{SIZES[-1]}_to_{SIZES[0]}"] = round(ratio, 2)
    return results
