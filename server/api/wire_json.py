"""JSON on the wire, strictly: RFC 8259 in (UTF-8, no NaN or Infinity, bounded nesting), RFC 8259 out.

Python's json module reads ``NaN`` and ``Infinity`` and writes them back, and recurses once per
level of nesting; neither is acceptable for what strangers send or for what every client must parse.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from typing import Any, NoReturn

from graphql import GraphQLError
from strawberry.types.scalar import ScalarDefinition, scalar

from ..limits import MAX_REQUEST_DEPTH, deeper_than

logger = logging.getLogger(__name__)


class BadJSON(json.JSONDecodeError):
    """A body that is not JSON we accept; a JSONDecodeError, so WebSocket handlers treat it as one."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "", 0)
        self.reason = reason


def _reject_constant(token: str) -> NoReturn:
    raise BadJSON(f"{token} is not JSON (RFC 8259 has no NaN or Infinity)")


# json.loads with any argument builds a new decoder per call: one, kept, decodes every body.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads(data: str | bytes) -> Any:
    """Parse one JSON document; BadJSON says why one is refused."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJSON(f"the body is not UTF-8 (byte {exc.start})") from None
    if data.startswith("\ufeff"):  # what json.loads refuses before it decodes
        raise BadJSON("the body is not valid JSON: it starts with a byte order mark")
    try:
        value = _DECODER.decode(data)
    except BadJSON:
        raise
    except RecursionError:
        raise BadJSON(f"JSON is nested deeper than {MAX_REQUEST_DEPTH} levels") from None
    except ValueError as exc:  # JSONDecodeError, or an integer past Python's digit limit
        raise BadJSON(f"the body is not valid JSON: {exc}") from None
    # A document cannot nest deeper than it has brackets: most skip the walk.
    if data.count("[") + data.count("{") > MAX_REQUEST_DEPTH and deeper_than(value, MAX_REQUEST_DEPTH):
        raise BadJSON(f"JSON is nested deeper than {MAX_REQUEST_DEPTH} levels")
    return value


# json.dumps with any non-default argument builds a new encoder per call; a replay encodes every event.
_ENCODERS: dict[Callable[[Any], Any] | None, json.JSONEncoder] = {
    None: json.JSONEncoder(separators=(",", ":"), allow_nan=False),
    str: json.JSONEncoder(separators=(",", ":"), allow_nan=False, default=str),
}


def dumps(value: Any, default: Callable[[Any], Any] | None = None) -> str:
    """RFC 8259 JSON. The scalars refuse to serialize NaN and Infinity, so this is a last line: a
    non-finite number that got past them is written as null and logged, never as ``Infinity``."""
    encoder = _ENCODERS.get(default)
    if encoder is None:
        encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False, default=default)
    try:
        return encoder.encode(value)
    except ValueError:
        logger.error("a response held NaN or Infinity; written as null")
        return encoder.encode(_finite(value))


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _serialize_json(value: Any) -> Any:
    # Input refuses NaN and Infinity; one stored before that (SQLite kept them) is a field error, not
    # a response that is not JSON.
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        raise GraphQLError(
            "this stored JSON value holds NaN or Infinity, which JSON cannot represent",
            extensions={"code": "NON_FINITE_NUMBER"},
        ) from None
    return value


ECMA_404 = "https://ecma-international.org/wp-content/uploads/ECMA-404_2nd_edition_december_2017.pdf"
JSON_SCALAR: ScalarDefinition = scalar(
    name="JSON",
    # Strawberry's own wording for its JSON scalar, which this one replaces.
    description=f"The `JSON` scalar type represents JSON values as specified by [ECMA-404]({ECMA_404}).",
    specified_by_url=ECMA_404,
    serialize=_serialize_json,
    parse_value=lambda value: value,
)
"""Strawberry's JSON scalar, except that it never serializes NaN or Infinity."""
