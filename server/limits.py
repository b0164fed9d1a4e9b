"""Every limit on what a client may send, defined once (docs/decisions/0010-input-hardening.md).

The API checks these before anything reaches the database, so SQLite and PostgreSQL refuse exactly
the same inputs: PostgreSQL cannot store a NUL character or a lone UTF-16 surrogate and holds a
VARCHAR(n) to n characters, where SQLite stores all three. The configurable sizes (longest text,
largest result) live in Settings; these are fixed by the schema.
"""

from __future__ import annotations

import math
import re
from typing import Any

SHORT_TEXT = 200
"""Names, session ids, media types, agents, branching fields: the ``String(200)`` columns. Counted in
UTF-8 bytes, so it never exceeds the column's 200 characters."""

URL_TEXT = 2048
"""Longest webhook endpoint URL, in UTF-8 bytes: the ``String(2048)`` column."""

PROGRESS_BYTES = 4096
"""Largest progress payload a heartbeat may carry (serialized JSON, UTF-8 bytes): it is shown on the
step, and heartbeats come often, so it stays small."""

MAX_BATCH_STEPS = 100
"""Most steps one claimWorkflowSteps call may hand out (``maxSteps``) and one completeWorkflowSteps call
may report: each is claimed or reported exactly as a single call would do it."""

MAX_JSON_DEPTH = 32
"""Deepest nesting of objects and arrays in a JSON value (result data, tool parameters, a JSON Schema,
a branching value). Deeper values recurse in every reader of them (jsonschema, the drivers)."""

MAX_REQUEST_DEPTH = 512
"""Deepest nesting of a whole request body. Above MAX_JSON_DEPTH plus the envelope, so a JSON value
nested too deeply still reaches the API and is refused on its field; far below where Python's
recursion limit would turn the next reader of the body into a crash."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")
# C0 control characters but tab, line feed and carriage return (NUL is refused in every text anyway).
_CONTROL = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f]")


def text_problem(value: str) -> str | None:
    """Why this string is not text both databases store alike, or None.

    A surrogate left in a decoded ``str`` is a lone one: JSON's escaped pairs decode to one code point.
    """
    if "\x00" in value:
        return "contains a NUL character (U+0000)"
    if _LONE_SURROGATE.search(value):
        return "contains a lone UTF-16 surrogate, which is not Unicode text"
    return None


def short_text_problem(value: str) -> str | None:
    """``text_problem`` for names, titles and the other short texts
    (docs/decisions/0035-sqlite-connections-timers-shutdown.md): also no C0 control character other than
    tab, line feed and carriage return. They are shown in lists, logs and terminals, where a control
    character only does harm; long free text (reasons, messages, feedback) may carry what a tool printed."""
    if why := text_problem(value):
        return why
    if found := _CONTROL.search(value):
        return (
            f"contains the control character U+{ord(found.group()):04X}; names and short texts take "
            "no control characters but tab, line feed and carriage return"
        )
    return None


def text_problem_for(value: str, limit: int, short: bool | None = None) -> str | None:
    """``short_text_problem`` for a short text (by default, one allowed at most ``SHORT_TEXT`` bytes),
    ``text_problem`` for long free text: the rule every text check of the services applies."""
    if short is None:
        short = limit <= SHORT_TEXT
    return (short_text_problem if short else text_problem)(value)


def json_problem(value: Any) -> str | None:
    """Why this JSON value cannot be stored and read back as JSON alike on both databases, or None.

    Refuses NaN and ±Infinity (not JSON: a stored one makes every later read of it invalid JSON),
    nesting deeper than MAX_JSON_DEPTH, and strings (keys too) that ``text_problem`` refuses.
    """
    # The quick pass says only whether something is wrong (a 1 MB result is checked in tens of
    # milliseconds); the slow one, run only then, says what and where.
    return None if _clean(value, 0) else _describe(value)


def _clean(value: Any, depth: int) -> bool:
    # Plain loops, not all() over generators: this runs once per node of every JSON argument.
    kind = type(value)
    if kind is str:
        return _NOT_TEXT.search(value) is None
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        if depth >= MAX_JSON_DEPTH:
            return False
        for key, child in value.items():
            if type(key) is not str or _NOT_TEXT.search(key) is not None or not _clean(child, depth + 1):
                return False
        return True
    if kind is list:
        if depth >= MAX_JSON_DEPTH:
            return False
        for child in value:  # noqa: SIM110  (a loop: all() over a generator is slower here)
            if not _clean(child, depth + 1):
                return False
        return True
    # int, bool, None; anything else (a subclass) is left to _describe.
    return not isinstance(value, str | float | dict | list)


def _describe(value: Any) -> str | None:
    # Iterative, so a value nested past any limit cannot exhaust the stack while it is described.
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        item, depth, where = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f"{_at(where)}is {item}: JSON has no NaN or Infinity"
        if isinstance(item, str):
            if why := text_problem(item):
                return f"{_at(where)}{why}"
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                return f"is nested deeper than {MAX_JSON_DEPTH} levels"
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return f"{_at(where)}has a key that is not a string"
                    if why := text_problem(key):
                        return f"{_at(where)}has a key that {why}"
                    stack.append((child, depth + 1, f"{where}.{ascii(key)[1:-1]}"))
            else:
                stack.extend((child, depth + 1, f"{where}[{i}]") for i, child in enumerate(item))
    return None


def deeper_than(value: Any, limit: int) -> bool:
    """Whether objects and arrays nest more than ``limit`` levels deep in a parsed JSON document."""
    stack: list[tuple[Any, int]] = [(value, 1)] if type(value) is dict or type(value) is list else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in item.values() if type(item) is dict else item:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


def _at(where: str) -> str:
    return f"at {where.lstrip('.')} " if where else ""
