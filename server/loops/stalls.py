"""The stall timer: ``scan_stalls`` is its ``run_once`` (the use case is ``services/plans/stalls.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..services.plans.stalls import stall_candidates, stall_plan
from ..services.runtime import Runtime
from .runner import each_item

LOOP = "stalls"
MONITOR = "stall-monitor"


@dataclass(frozen=True)
class StallFound:
    tenant_id: str
    plan_id: str
    step_ids: list[str]


async def scan_stalls(runtime: Runtime) -> list[StallFound]:
    """One pass: stall every executing plan that has a step running past its threshold."""
    async with runtime.db.reader() as session:
        candidates = await stall_candidates(
            session, runtime.clock.now(), runtime.settings.stall_threshold_seconds
        )
    done, _ = await each_item(runtime, LOOP, MONITOR, candidates, stall_plan)
    return [StallFound(d.tenant_id, d.key, d.result) for d in done if d.result]
