"""The decision timer: ``run_decision_deadlines`` is its ``run_once``; the use case is
``services/decisions/deadlines.py`` (one transaction per decision, exactly once across instances)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..services.decisions.deadlines import DUE_BATCH, act_on_decision, due_decisions
from ..services.runtime import Runtime
from .runner import each_item

LOOP = "decision-deadlines"
TIMER = "decision-deadline"


@dataclass
class DeadlinePass:
    defaulted: list[str] = field(default_factory=list)
    escalated: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)


async def run_decision_deadlines(runtime: Runtime) -> DeadlinePass:
    """One pass: every decision due now is escalated, defaulted or (no longer waiting) withdrawn."""
    result = DeadlinePass()
    failed: set[tuple[str, str]] = set()
    while True:
        async with runtime.db.reader() as session:
            due = [d for d in await due_decisions(session, runtime.clock.now()) if d not in failed]
        done, failures = await each_item(runtime, LOOP, TIMER, due, act_on_decision)
        failed.update(failures)
        for d in done:
            if d.result is not None:
                getattr(result, d.result).append(d.key)
        # A decision escalated now may be due for its default later in the same pass: go again.
        if len(due) < DUE_BATCH and not any(d.result == "escalated" for d in done):
            return result
