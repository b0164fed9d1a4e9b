"""The input limits of server/limits.py at their edges, and that the models' columns use them."""

from __future__ import annotations

import math
from typing import Any

import pytest
from sqlalchemy import String

from server.db.models import Base
from server.limits import MAX_JSON_DEPTH, SHORT_TEXT, URL_TEXT, deeper_than, json_problem, text_problem


def nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("a\x00b", "NUL"),
        ("\ud800", "surrogate"),
        ("x\udfff", "surrogate"),
    ],
)
def test_nul_and_lone_surrogates_are_not_text(text: str, says: str) -> None:
    why = text_problem(text)
    assert why is not None
    assert says in why


@pytest.mark.parametrize("text", ["", "plain", "\U0001f600", "\x1b[2J\x07\r\n\t\x7f\u202e", "\\u0000"])
def test_everything_else_is_text(text: str) -> None:
    assert text_problem(text) is None


def test_json_may_nest_exactly_max_json_depth_levels() -> None:
    assert json_problem(nested(MAX_JSON_DEPTH)) is None
    assert json_problem({"a": nested(MAX_JSON_DEPTH - 1)}) is None
    assert json_problem(nested(MAX_JSON_DEPTH + 1)) == f"is nested deeper than {MAX_JSON_DEPTH} levels"
    assert json_problem({"a": nested(MAX_JSON_DEPTH)}) == f"is nested deeper than {MAX_JSON_DEPTH} levels"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"a": [1, math.inf]}, "at a[1] is inf: JSON has no NaN or Infinity"),
        ([{"b": -math.inf}], "at [0].b is -inf: JSON has no NaN or Infinity"),
        (math.nan, "is nan: JSON has no NaN or Infinity"),
        ({"k": "a\x00"}, "at k contains a NUL character (U+0000)"),
        ({"k\ud800": 1}, "has a key that contains a lone UTF-16 surrogate, which is not Unicode text"),
        ({"a": {"b\x00": 1}}, "at a has a key that contains a NUL character (U+0000)"),
    ],
)
def test_a_json_problem_says_what_and_where(value: Any, message: str) -> None:
    assert json_problem(value) == message


@pytest.mark.parametrize(
    "value", [None, True, 0, 10**400, 1.5, "", {}, [], {"a": [1, "b", None, {"c": 2.0}]}]
)
def test_ordinary_json_has_no_problem(value: Any) -> None:
    assert json_problem(value) is None


def test_deeper_than_counts_levels_of_objects_and_arrays() -> None:
    assert not deeper_than(nested(512), 512)
    assert deeper_than(nested(513), 512)
    assert deeper_than({"a": nested(512)}, 512)
    assert not deeper_than("scalar", 0)
    assert deeper_than([], 0)


def test_every_short_text_column_uses_the_one_limit() -> None:
    # Columns a client fills are String(SHORT_TEXT), webhook URLs String(URL_TEXT); the others hold ids
    # (36), tenants and key hashes (64), states and kinds (16, 32, 64) and webhook secrets (128) the
    # server writes itself.
    lengths = {
        column.type.length
        for table in Base.metadata.sorted_tables
        for column in table.columns
        if isinstance(column.type, String) and column.type.length is not None
    }
    assert lengths <= {16, 32, 36, 64, 128, SHORT_TEXT, URL_TEXT}, lengths
