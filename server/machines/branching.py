"""Branching conditions (DESIGN.md): data evaluated in order after a step completes; first match fires.

A condition reads one field of the completed step -- ``confidence``, ``resultSummary`` or a key of the
step's result data -- compares it with ``op`` against ``value`` and, on a match, either skips forward
to ``target_step_order`` (``skip_to``) or fails the plan (``fail``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class BranchOp(StrEnum):
    LT = "lt"
    LTE = "lte"
    GT = "gt"
    GTE = "gte"
    EQ = "eq"
    NE = "ne"
    CONTAINS = "contains"


class BranchAction(StrEnum):
    SKIP_TO = "skip_to"
    FAIL = "fail"


CONFIDENCE = "confidence"
RESULT_SUMMARY = "resultSummary"
_ORDERING = {BranchOp.LT, BranchOp.LTE, BranchOp.GT, BranchOp.GTE}


@dataclass(frozen=True)
class BranchingCondition:
    after_step_order: int
    field: str
    op: BranchOp
    value: Any
    action: BranchAction
    target_step_order: int | None = None


@dataclass(frozen=True)
class StepOutcome:
    """What a completed step reported, as far as branching can see it."""

    confidence: float | None
    result_summary: str | None
    result_data: Mapping[str, Any]


@dataclass(frozen=True)
class ConditionProblem:
    index: int
    field: str
    message: str


def validate_conditions(conditions: Sequence[BranchingCondition], step_count: int) -> list[ConditionProblem]:
    """Every problem with a plan's conditions; empty when they are all valid."""
    problems: list[ConditionProblem] = []
    for i, cond in enumerate(conditions):

        def bad(field: str, message: str, i: int = i) -> None:
            problems.append(ConditionProblem(i, field, message))

        if not 1 <= cond.after_step_order <= step_count:
            bad("afterStepOrder", f"step {cond.after_step_order} does not exist (plan has {step_count})")
        if not cond.field:
            bad("field", "field must name confidence, resultSummary or a result data key")
        if cond.op in _ORDERING and not _is_number(cond.value) and not isinstance(cond.value, str):
            bad("value", f"{cond.op} needs a number or a string to compare with")
        if cond.action is BranchAction.SKIP_TO:
            target = cond.target_step_order
            if target is None:
                bad("targetStepOrder", "skip_to needs a targetStepOrder")
            elif not 1 <= target <= step_count:
                bad("targetStepOrder", f"step {target} does not exist (plan has {step_count})")
            elif target <= cond.after_step_order:
                bad("targetStepOrder", f"step {target} is not after step {cond.after_step_order}")
        elif cond.target_step_order is not None:
            bad("targetStepOrder", "fail takes no targetStepOrder")
    return problems


def first_matching_condition(
    conditions: Iterable[BranchingCondition], outcome: StepOutcome
) -> BranchingCondition | None:
    """The first condition (in the given order) whose comparison holds for ``outcome``."""
    for cond in conditions:
        if condition_matches(cond, outcome):
            return cond
    return None


def condition_matches(cond: BranchingCondition, outcome: StepOutcome) -> bool:
    actual = _read_field(cond.field, outcome)
    if actual is None:
        return False
    return _compare(actual, cond.op, cond.value)


def _read_field(field: str, outcome: StepOutcome) -> Any:
    if field == CONFIDENCE:
        return outcome.confidence
    if field == RESULT_SUMMARY:
        return outcome.result_summary
    return outcome.result_data.get(field)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)


def _kind(value: Any) -> str:
    """Booleans, numbers and strings never compare with each other (True is not 1, "0.6" is not 0.6)."""
    if isinstance(value, bool):
        return "bool"
    if _is_number(value):
        return "number"
    return type(value).__name__


def _compare(actual: Any, op: BranchOp, expected: Any) -> bool:
    if op in (BranchOp.EQ, BranchOp.NE):
        if _kind(actual) != _kind(expected):
            return False
        return bool(actual == expected) if op is BranchOp.EQ else bool(actual != expected)
    if op is BranchOp.CONTAINS:
        if isinstance(actual, str):
            return isinstance(expected, str) and expected in actual
        if isinstance(actual, list | tuple):
            return expected in actual
        if isinstance(actual, Mapping):
            return expected in actual
        return False
    # Ordering compares numbers with numbers and strings with strings; anything else never matches.
    if _is_number(actual) and _is_number(expected):
        pass
    elif not (isinstance(actual, str) and isinstance(expected, str)):
        return False
    if op is BranchOp.LT:
        return bool(actual < expected)
    if op is BranchOp.LTE:
        return bool(actual <= expected)
    if op is BranchOp.GT:
        return bool(actual > expected)
    return bool(actual >= expected)
