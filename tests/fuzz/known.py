"""Failures of issue 10 items 2-5 that are still open on this branch (fixed on `input-hardening`).

A failure is excused only when the request has the trait the item names and the failure is a crash
(5xx, ``"Unexpected error."``, an answer that is not JSON). Writing on a refusal, accepting an invalid
operation or a slow health probe is never excused. Once the fixes are merged, set
``INPUT_HARDENING_MERGED`` to True: nothing is excused any more and every corpus case must pass.
"""

from __future__ import annotations

import pytest

from .oracle import UNEXPECTED, Request, Verdict, features

ISSUE = "issue 10 (open until input-hardening is merged)"
INPUT_HARDENING_MERGED = False

# trait -> (the item that names it, the databases it fails on)
OPEN_CLASSES: dict[str, tuple[str, tuple[str, ...]]] = {
    "lone surrogate": (
        "item 3: a lone UTF-16 surrogate in a string crashes past validation",
        ("sqlite", "postgres"),
    ),
    "NUL": ("item 3: a NUL byte in a string crashes PostgreSQL", ("postgres",)),
    "long string": ("item 3: a string longer than its column crashes PostgreSQL", ("postgres",)),
    "non-finite": (
        "item 4: a non-finite number (1e309, NaN, Infinity) crashes or is stored",
        ("sqlite", "postgres"),
    ),
    "deep": ("item 3: JSON nested hundreds deep crashes", ("sqlite", "postgres")),
    "malformed body": ("item 2: a malformed request body answers 500", ("sqlite", "postgres")),
}
CRASHES = ("HTTP 5", UNEXPECTED, "not JSON")


def open_class(request: Request, verdict: Verdict, database: str) -> str | None:
    """The open item that explains every problem of this verdict, or None."""
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
    """A corpus case that fails until the named item of issue 10 is fixed."""
    return [] if INPUT_HARDENING_MERGED else [pytest.mark.xfail(reason=f"{ISSUE}: {reason}", strict=False)]


def xfail_found(reason: str) -> pytest.MarkDecorator:
    """A corpus case that fails on a defect this suite found outside issue 10's list (reported, open)."""
    return pytest.mark.xfail(reason=f"found by the fuzz suite, not in issue 10: {reason}", strict=False)
