"""Stall detection as seed 001 defines it: pure, with ``now`` and the threshold as parameters."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from .plan import StepStatus

DEFAULT_STALL_THRESHOLD = timedelta(minutes=30)
# A longer threshold overflows the datetimes it is subtracted from (1e308 seconds did).
LONGEST_STALL_THRESHOLD = timedelta(days=365)


def stall_threshold_problem(seconds: float) -> str | None:
    """Why ``seconds`` cannot be a stall threshold (NaN and infinities included), or None."""
    if 0 < seconds <= LONGEST_STALL_THRESHOLD.total_seconds():
        return None
    return f"stallThresholdSeconds must be in (0, {LONGEST_STALL_THRESHOLD.total_seconds():.0f}]"


@dataclass(frozen=True)
class StepTimestamp:
    id: str
    status: str
    started_at: datetime | None
    updated_at: datetime


def detect_stalled_steps(
    steps: Iterable[StepTimestamp],
    now: datetime,
    threshold: timedelta = DEFAULT_STALL_THRESHOLD,
) -> list[str]:
    """Ids of in_progress steps running longer than ``threshold`` (startedAt, else updatedAt)."""
    stalled = []
    for step in steps:
        if step.status != StepStatus.IN_PROGRESS:
            continue
        reference = step.started_at if step.started_at is not None else step.updated_at
        if now - reference > threshold:
            stalled.append(step.id)
    return stalled


def is_plan_stalled(
    steps: Iterable[StepTimestamp],
    now: datetime,
    threshold: timedelta = DEFAULT_STALL_THRESHOLD,
) -> bool:
    return bool(detect_stalled_steps(steps, now, threshold))
