"""Input checks shared by the services; each failure names the input field it is about."""

from __future__ import annotations

import json
import math
import re
import uuid
from typing import Any

from ..echo import shown
from ..errors import ErrorCode, Problem, ServiceError, invalid
from ..limits import text_problem_for

# An id in its canonical form (what ``str(UUID)`` gives back, and what every id the server hands out
# is) is taken as it is; any other spelling goes through ``uuid.UUID``, which costs several times more.
_CANONICAL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def parse_id(value: str, field: str) -> str:
    """The canonical form of an id, or VALIDATION_FAILED for anything that is not one."""
    if type(value) is str and _CANONICAL_ID.fullmatch(value):
        return value
    try:
        return str(uuid.UUID(value))
    except (ValueError, AttributeError, TypeError):
        raise invalid(f"{field} is not a valid id: {shown(value)}", [field]) from None


def check_text(
    value: str | None, field: list[str], limit: int, *, required: bool = False, short: bool | None = None
) -> None:
    """``short``: a name, title or other short text, which takes no control characters but tab, line
    feed and carriage return (``limits.short_text_problem``); by default, any text of at most
    ``SHORT_TEXT`` bytes. Long free text is refused only what no database stores alike (NUL)."""
    if value is None or value == "":
        if required:
            raise invalid(f"{'.'.join(field)} must not be empty", field)
        return
    if why := text_problem_for(value, limit, short):
        raise invalid(f"{'.'.join(field)} {why}", field)
    size = len(value.encode())
    if size > limit:
        raise invalid(f"{'.'.join(field)} is {size} bytes; the limit is {limit}", field)


def check_json_size(value: Any, field: list[str], limit: int) -> None:
    # The API has already refused NUL, lone surrogates and deep nesting in every JSON argument
    # (api/input_check.py); walking a large value again here would double that cost.
    if value is None:
        return
    try:
        size = len(json.dumps(value, allow_nan=False).encode())
    except ValueError:
        raise invalid(f"{'.'.join(field)} must be JSON without NaN or Infinity", field) from None
    if size > limit:
        raise invalid(f"{'.'.join(field)} is {size} bytes; the limit is {limit}", field)


def check_confidence(value: float | None, field: list[str]) -> None:
    if value is None:
        return
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise invalid(f"{'.'.join(field)} must be a number in [0, 1], got {value}", field)


class Problems:
    """Collects several input problems so one response can report them all."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, message: str, field: list[str]) -> None:
        self.items.append(Problem(ErrorCode.VALIDATION_FAILED, message, field))

    def check(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except ServiceError as exc:
            self.items.extend(exc.problems)

    def raise_if_any(self) -> None:
        if self.items:
            raise ServiceError(self.items)
