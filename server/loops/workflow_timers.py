"""The workflow timer (seed 002 §3): timeouts, retries whose back-off is over, queued workflows.

``run_workflow_timers`` is its ``run_once``. One pass, in this order: workflow timeouts (they override
step timeouts, seed §3.4), step timeouts, retries due, then queued workflows move to executing where
their tenant has a free slot. ``services/workflows/timeouts.py`` finds the candidates and acts on each,
one transaction per workflow (per tenant for promotion).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..services.runtime import Runtime
from ..services.workflows import timeouts as timers
from .runner import each_item

LOOP = "workflow-timers"
TIMER = "workflow-timer"


@dataclass
class TimerPass:
    workflows_timed_out: list[str] = field(default_factory=list)
    steps_timed_out: list[str] = field(default_factory=list)
    retries_due: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)


async def run_workflow_timers(runtime: Runtime) -> TimerPass:
    now = runtime.clock.now()
    done = TimerPass()
    async with runtime.db.reader() as session:
        overdue = await timers.workflows_past_deadline(session, now)
    for d in (await each_item(runtime, LOOP, TIMER, overdue, timers.time_out_workflow))[0]:
        if d.result:
            done.workflows_timed_out.append(d.key)
    async with runtime.db.reader() as session:
        overdue_steps = await timers.workflows_with_steps_past_deadline(session, now)
    for timed_out in (await each_item(runtime, LOOP, TIMER, overdue_steps, timers.time_out_steps))[0]:
        done.steps_timed_out += timed_out.result
    async with runtime.db.reader() as session:
        retries = await timers.workflows_with_retries_due(session, now)
    for due in (await each_item(runtime, LOOP, TIMER, retries, timers.mark_retries_due))[0]:
        done.retries_due += due.result
    async with runtime.db.reader() as session:
        queued = await timers.tenants_with_queued_workflows(session)
    for promoted in (await each_item(runtime, LOOP, TIMER, queued, timers.promote_tenant))[0]:
        done.promoted += promoted.result
    return done
