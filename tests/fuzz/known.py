"""Failures of issue 10 that are still open: items 2-4 are fixed (``input-hardening``), item 5 is not.

A failure of the schema fuzzer was excused only when the request had the trait an open item names and
the failure was a crash (5xx, ``"Unexpected error."``, an answer that is not JSON). With items 2-4
fixed, ``INPUT_HARDENING_MERGED`` is True and no crash is excused any more. A corpus case of an item
still open (item 5, a ReDoS pattern) stays xfail through ``xfail_open`` until that item is fixed.
"""

from __future__ import annotations

import pytest

from .oracle import UNEXPECTED, Request, Verdict, features

ISSUE = "issue 10 (still open)"
INPUT_HARDENING_MERGED = True

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
    """A corpus case that fails until the named item of issue 10 is fixed (only item 5 is left)."""
    return [pytest.mark.xfail(reason=f"{ISSUE}: {reason}", strict=False)]


def xfail_found(reason: str) -> pytest.MarkDecorator:
    """A corpus case that fails on a defect this suite found outside issue 10's list (reported, open)."""
    return pytest.mark.xfail(reason=f"found by the fuzz suite, not in issue 10: {reason}", strict=False)
