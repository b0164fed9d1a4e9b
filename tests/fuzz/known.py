"""Failures the fuzz suite may excuse while their class of defect is known and open.

A failure of the schema fuzzer is excused only when the request has the trait an open class names and
the failure is a crash (5xx, ``"Unexpected error."``, an answer that is not JSON). Every class below is
fixed (docs/decisions/0010-input-hardening.md), so ``INPUT_HARDENING_MERGED`` is True and no crash is
excused; the table names the classes so that the report can say which one a crash belongs to. A corpus
case of a class still open stays xfail through ``xfail_open`` until it is fixed.
"""

from __future__ import annotations

import pytest

from .oracle import UNEXPECTED, Request, Verdict, features

OPEN = "a known open defect"
INPUT_HARDENING_MERGED = True

# trait -> (the class of defect it shows, the databases it failed on)
OPEN_CLASSES: dict[str, tuple[str, tuple[str, ...]]] = {
    "lone surrogate": (
        "strings: a lone UTF-16 surrogate in a string crashes past validation",
        ("sqlite", "postgres"),
    ),
    "NUL": ("strings: a NUL byte in a string crashes PostgreSQL", ("postgres",)),
    "long string": ("strings: a string longer than its column crashes PostgreSQL", ("postgres",)),
    "non-finite": (
        "numbers: a non-finite number (1e309, NaN, Infinity) crashes or is stored",
        ("sqlite", "postgres"),
    ),
    "deep": ("JSON: JSON nested hundreds deep crashes", ("sqlite", "postgres")),
    "malformed body": ("bodies: a malformed request body answers 500", ("sqlite", "postgres")),
}
CRASHES = ("HTTP 5", UNEXPECTED, "not JSON")


def open_class(request: Request, verdict: Verdict, database: str) -> str | None:
    """The open class that explains every problem of this verdict, or None."""
    if INPUT_HARDENING_MERGED or not verdict.problems:
        return None
    if not all(p.startswith(CRASHES) for p in verdict.problems):
        return None
    for trait in sorted(features(request)):
        item, databases = OPEN_CLASSES.get(trait, ("", ()))
        if database in databases:
            return f"{trait}: {item}"
    return None


def xfail_open(reason: str) -> list[pytest.MarkDecorator]:
    """A corpus case that fails until the class of defect it names is fixed."""
    return [pytest.mark.xfail(reason=f"{OPEN}: {reason}", strict=False)]


def xfail_found(reason: str) -> pytest.MarkDecorator:
    """A corpus case that fails on a defect this suite found itself (reported, open)."""
    return pytest.mark.xfail(reason=f"found by the fuzz suite: {reason}", strict=False)
