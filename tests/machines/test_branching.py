"""Branching conditions (DESIGN.md "Decisions"): comparisons, first match wins, definition checks."""

from __future__ import annotations

from typing import Any

import pytest

from server.machines.branching import (
    BranchAction,
    BranchingCondition,
    BranchOp,
    StepOutcome,
    condition_matches,
    first_matching_condition,
    validate_conditions,
)

OUTCOME = StepOutcome(
    confidence=0.6,
    result_summary="Found 3 peer-reviewed sources",
    result_data={
        "sourceCount": 3,
        "verdict": "mixed",
        "tags": ["climate", "ocean"],
        "meta": {"reviewed": True},
        "flag": True,
    },
)
EMPTY_OUTCOME = StepOutcome(confidence=None, result_summary=None, result_data={})


def _cond(
    field: str,
    op: str,
    value: Any,
    action: str = "fail",
    after: int = 1,
    target: int | None = None,
) -> BranchingCondition:
    return BranchingCondition(
        after_step_order=after,
        field=field,
        op=BranchOp(op),
        value=value,
        action=BranchAction(action),
        target_step_order=target,
    )


def _matches(field: str, op: str, value: Any, outcome: StepOutcome = OUTCOME) -> bool:
    return condition_matches(_cond(field, op, value), outcome)


def test_ops_are_exactly_the_seven_in_design() -> None:
    assert {op.value for op in BranchOp} == {"lt", "lte", "gt", "gte", "eq", "ne", "contains"}
    assert {a.value for a in BranchAction} == {"skip_to", "fail"}


# --- each op on confidence (0.6) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [
        ("lt", 0.7, True),
        ("lt", 0.6, False),
        ("lt", 0.5, False),
        ("lte", 0.6, True),
        ("lte", 0.7, True),
        ("lte", 0.5, False),
        ("gt", 0.5, True),
        ("gt", 0.6, False),
        ("gt", 0.7, False),
        ("gte", 0.6, True),
        ("gte", 0.5, True),
        ("gte", 0.7, False),
        ("eq", 0.6, True),
        ("eq", 0.5, False),
        ("ne", 0.5, True),
        ("ne", 0.6, False),
        ("lt", 1, True),  # int and float compare as numbers
        ("gt", 0, True),
    ],
)
def test_confidence_comparison(op: str, value: Any, expected: bool) -> None:
    assert _matches("confidence", op, value) is expected


def test_confidence_never_contains_anything() -> None:
    assert _matches("confidence", "contains", 0.6) is False
    assert _matches("confidence", "contains", "0.6") is False


# --- each op on resultSummary ("Found 3 peer-reviewed sources") ------------------------------------


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [
        ("contains", "peer-reviewed", True),
        ("contains", "Found 3 peer-reviewed sources", True),
        ("contains", "blog", False),
        ("eq", "Found 3 peer-reviewed sources", True),
        ("eq", "Found 3 sources", False),
        ("ne", "Found 3 sources", True),
        ("ne", "Found 3 peer-reviewed sources", False),
        # strings order with strings, lexicographically
        ("lt", "G", True),
        ("lt", "A", False),
        ("lte", "Found 3 peer-reviewed sources", True),
        ("lte", "E", False),
        ("gt", "A", True),
        ("gt", "G", False),
        ("gte", "Found 3 peer-reviewed sources", True),
        ("gte", "G", False),
    ],
)
def test_result_summary_comparison(op: str, value: Any, expected: bool) -> None:
    assert _matches("resultSummary", op, value) is expected


# --- each op on result data keys -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [
        ("lt", 5, True),
        ("lt", 3, False),
        ("lte", 3, True),
        ("lte", 2, False),
        ("gt", 2, True),
        ("gt", 3, False),
        ("gte", 3, True),
        ("gte", 4, False),
        ("eq", 3, True),
        ("eq", 3.0, True),
        ("eq", 4, False),
        ("ne", 4, True),
        ("ne", 3, False),
    ],
)
def test_numeric_result_data_key_comparison(op: str, value: Any, expected: bool) -> None:
    assert _matches("sourceCount", op, value) is expected


@pytest.mark.parametrize(
    ("field", "op", "value", "expected"),
    [
        ("verdict", "eq", "mixed", True),
        ("verdict", "ne", "mixed", False),
        ("verdict", "contains", "mix", True),
        ("verdict", "lt", "n", True),
        ("tags", "contains", "ocean", True),
        ("tags", "contains", "desert", False),
        ("tags", "contains", "oce", False),  # list membership, not substring of an element
        ("meta", "contains", "reviewed", True),
        ("meta", "contains", "rejected", False),
    ],
)
def test_other_result_data_key_comparison(field: str, op: str, value: Any, expected: bool) -> None:
    assert _matches(field, op, value) is expected


def test_result_data_key_named_like_a_builtin_field_is_not_read_from_result_data() -> None:
    outcome = StepOutcome(confidence=0.9, result_summary="s", result_data={"confidence": 0.1})
    assert _matches("confidence", "gt", 0.5, outcome) is True


# --- missing fields and type mismatches never match ------------------------------------------------

ALL_OPS = [op.value for op in BranchOp]


@pytest.mark.parametrize("op", ALL_OPS)
@pytest.mark.parametrize(
    ("field", "value"),
    [("confidence", 0.5), ("resultSummary", "x"), ("sourceCount", 3), ("absentKey", "x")],
)
def test_missing_field_never_matches_whatever_the_op(field: str, op: str, value: Any) -> None:
    assert _matches(field, op, value, EMPTY_OUTCOME) is False


@pytest.mark.parametrize("op", ALL_OPS)
def test_key_absent_from_result_data_never_matches(op: str) -> None:
    assert _matches("noSuchKey", op, 1) is False


@pytest.mark.parametrize("op", ["lt", "lte", "gt", "gte"])
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("confidence", "0.5"),  # number vs string
        ("confidence", None),
        ("confidence", [0.5]),
        ("resultSummary", 5),  # string vs number
        ("sourceCount", "2"),
        ("sourceCount", True),  # booleans are not numbers
        ("flag", 0),
        ("tags", "ocean"),
        ("meta", 1),
    ],
)
def test_ordering_with_mismatched_types_never_matches(field: str, op: str, value: Any) -> None:
    assert _matches(field, op, value) is False


@pytest.mark.parametrize(
    ("field", "value"),
    [("confidence", "0.6"), ("sourceCount", "3"), ("resultSummary", 3), ("verdict", ["mixed"])],
)
def test_eq_with_mismatched_types_never_matches(field: str, value: Any) -> None:
    assert _matches(field, "eq", value) is False


@pytest.mark.parametrize(
    ("field", "value"),
    [("confidence", 0.6), ("sourceCount", 3), ("flag", True), ("resultSummary", 3), ("verdict", None)],
)
def test_contains_on_non_container_or_with_non_string_needle_never_matches(field: str, value: Any) -> None:
    assert _matches(field, "contains", value) is False


def test_nan_confidence_never_matches_an_ordering() -> None:
    outcome = StepOutcome(confidence=float("nan"), result_summary=None, result_data={})
    assert [_matches("confidence", op, 0.5, outcome) for op in ("lt", "lte", "gt", "gte")] == [False] * 4


# --- first match wins ------------------------------------------------------------------------------


def test_first_matching_condition_in_list_order_wins() -> None:
    no_match = _cond("confidence", "gt", 0.9)
    first = _cond("confidence", "lt", 0.7, action="skip_to", target=3)
    second = _cond("sourceCount", "eq", 3)
    assert first_matching_condition([no_match, first, second], OUTCOME) is first
    assert first_matching_condition([no_match, second, first], OUTCOME) is second


def test_first_matching_condition_is_none_when_nothing_matches() -> None:
    conditions = [_cond("confidence", "gt", 0.9), _cond("verdict", "eq", "strong")]
    assert first_matching_condition(conditions, OUTCOME) is None
    assert first_matching_condition([], OUTCOME) is None


def test_first_matching_condition_stops_at_the_first_match() -> None:
    seen: list[int] = []

    def conditions() -> Any:
        for i, cond in enumerate([_cond("confidence", "gt", 0.9), _cond("confidence", "lt", 0.7)]):
            seen.append(i)
            yield cond
        seen.append(99)
        yield _cond("confidence", "lt", 0.8)

    found = first_matching_condition(conditions(), OUTCOME)
    assert found is not None
    assert found.value == 0.7
    assert seen == [0, 1]


# --- validate_conditions ---------------------------------------------------------------------------

STEPS = 5


def _problems(*conditions: BranchingCondition) -> list[tuple[int, str]]:
    return [(p.index, p.field) for p in validate_conditions(list(conditions), STEPS)]


def test_valid_conditions_have_no_problems() -> None:
    conditions = [
        _cond("confidence", "lt", 0.5, action="skip_to", after=1, target=2),
        _cond("confidence", "lt", 0.5, action="skip_to", after=4, target=5),
        _cond("verdict", "eq", "reject", action="fail", after=5),
        _cond("tags", "contains", "x", action="fail", after=3),
    ]
    assert validate_conditions(conditions, STEPS) == []
    assert validate_conditions([], STEPS) == []


@pytest.mark.parametrize("after", [0, -1, STEPS + 1])
def test_after_step_out_of_range_is_reported(after: int) -> None:
    assert _problems(_cond("confidence", "lt", 0.5, action="fail", after=after)) == [(0, "afterStepOrder")]


def test_after_step_in_a_plan_with_no_steps_is_reported() -> None:
    problems = validate_conditions([_cond("confidence", "lt", 0.5, after=1)], step_count=0)
    assert [(p.index, p.field) for p in problems] == [(0, "afterStepOrder")]


def test_skip_to_without_target_is_reported() -> None:
    problems = validate_conditions([_cond("confidence", "lt", 0.5, action="skip_to", after=2)], STEPS)
    assert [(p.index, p.field) for p in problems] == [(0, "targetStepOrder")]
    assert "skip_to" in problems[0].message


@pytest.mark.parametrize("target", [STEPS + 1, 99])
def test_skip_to_target_that_does_not_exist_is_reported(target: int) -> None:
    problems = validate_conditions(
        [_cond("confidence", "lt", 0.5, action="skip_to", after=2, target=target)], STEPS
    )
    assert [(p.index, p.field) for p in problems] == [(0, "targetStepOrder")]
    assert "does not exist" in problems[0].message


def test_skip_to_target_zero_is_reported() -> None:
    assert _problems(_cond("confidence", "lt", 0.5, action="skip_to", after=2, target=0)) == [
        (0, "targetStepOrder")
    ]


@pytest.mark.parametrize("target", [1, 2, 3])
def test_skip_to_target_backwards_or_at_the_same_step_is_reported(target: int) -> None:
    problems = validate_conditions(
        [_cond("confidence", "lt", 0.5, action="skip_to", after=3, target=target)], STEPS
    )
    assert [(p.index, p.field) for p in problems] == [(0, "targetStepOrder")]
    assert "not after" in problems[0].message


def test_fail_with_a_target_is_reported() -> None:
    problems = validate_conditions([_cond("confidence", "lt", 0.5, action="fail", after=2, target=4)], STEPS)
    assert [(p.index, p.field) for p in problems] == [(0, "targetStepOrder")]
    assert "fail" in problems[0].message


def test_empty_field_is_reported() -> None:
    assert _problems(_cond("", "eq", 1, action="fail", after=1)) == [(0, "field")]


@pytest.mark.parametrize("value", [None, [1], {"a": 1}, True, float("nan")])
def test_ordering_op_with_uncomparable_value_is_reported(value: Any) -> None:
    assert _problems(_cond("confidence", "lt", value, action="fail", after=1)) == [(0, "value")]


def test_several_problems_are_reported_at_once_with_their_indexes() -> None:
    conditions = [
        _cond("confidence", "lt", 0.5, action="skip_to", after=STEPS + 1),  # bad after, no target
        _cond("confidence", "lt", 0.5, action="skip_to", after=1, target=2),  # valid
        _cond("verdict", "eq", "no", action="fail", after=2, target=3),  # fail with target
        _cond("", "gt", None, action="skip_to", after=4, target=4),  # empty field, bad value, same step
    ]
    assert _problems(*conditions) == [
        (0, "afterStepOrder"),
        (0, "targetStepOrder"),
        (2, "targetStepOrder"),
        (3, "field"),
        (3, "value"),
        (3, "targetStepOrder"),
    ]


@pytest.mark.parametrize(
    ("actual", "op", "expected"),
    [
        (0.6, BranchOp.NE, "0.6"),
        (0.6, BranchOp.EQ, "0.6"),
        (True, BranchOp.EQ, 1),
        (1, BranchOp.EQ, True),
        (True, BranchOp.NE, 0),
    ],
)
def test_eq_and_ne_never_match_across_value_kinds(actual: object, op: BranchOp, expected: object) -> None:
    cond = BranchingCondition(1, "flag", op, expected, BranchAction.FAIL)
    assert not condition_matches(cond, StepOutcome(None, None, {"flag": actual}))


def test_ne_matches_a_different_value_of_the_same_kind() -> None:
    cond = BranchingCondition(1, "flag", BranchOp.NE, "b", BranchAction.FAIL)
    assert condition_matches(cond, StepOutcome(None, None, {"flag": "a"}))
