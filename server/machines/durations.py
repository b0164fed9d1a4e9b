"""Durations as the seed writes them: "500ms", "1s", "5m", "2h", "1d", or several at once ("1h30m")."""

from __future__ import annotations

import re
from datetime import timedelta

from ..echo import shown

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


# The longest duration a definition may name: longer ones overflow the datetimes they are added to
# ("99999999999d" did, as an unexpected error); the retry back-off is capped at the same year.
LONGEST_DURATION = timedelta(days=365)


class BadDuration(ValueError):
    pass


def check_duration(name: str, value: object, *, zero: bool = False) -> None:
    """``BadDuration`` unless ``value`` is a timedelta longer than zero (or zero, when ``zero``) and no
    longer than ``LONGEST_DURATION``: what every value object holding a duration checks when it is
    built, so a duration no definition could name cannot be built by any other path either."""
    if not isinstance(value, timedelta):
        raise BadDuration(f"{name} must be a duration, got {value!r}")
    shortest = "zero" if zero else "longer than zero"
    if not (timedelta(0) <= value if zero else timedelta(0) < value) or value > LONGEST_DURATION:
        raise BadDuration(f"{name} must be {shortest} and at most 365d, got {value}")


def parse_duration(text: str) -> timedelta:
    """The duration ``text`` names; ``BadDuration`` for anything else, zero included."""
    value = text.strip()
    if not value:
        raise BadDuration("a duration must not be empty; write it like 30s, 5m or 1h30m")
    seconds = 0.0
    pos = 0
    for match in _PART.finditer(value):
        if match.start() != pos:
            break
        seconds += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        pos = match.end()
    if pos != len(value):
        raise BadDuration(f"{shown(text)} is not a duration; write it like 30s, 5m or 1h30m")
    if seconds <= 0:
        raise BadDuration(f"{shown(text)} must be longer than zero")
    if not seconds <= LONGEST_DURATION.total_seconds():
        raise BadDuration(f"{shown(text)} is longer than the longest duration allowed, 365d")
    return timedelta(seconds=seconds)


def format_duration(delta: timedelta) -> str:
    """The shortest of "90s", "5m", "2h", "1d" that is exact; seconds otherwise."""
    seconds = delta.total_seconds()
    for unit in ("d", "h", "m"):
        size = _UNIT_SECONDS[unit]
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    if seconds == int(seconds):
        return f"{int(seconds)}s"
    return f"{round(seconds * 1000)}ms"
