"""What every answer must be, whatever was asked: no 5xx, JSON, no masked crash, no write on a refusal."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import graphql

UNEXPECTED = "Unexpected error."
# The longest string a column holds on PostgreSQL (SQLite stores any length): past it, a string that
# slipped through validation fails in the database.
LONGEST_COLUMN = 200
DEEP = 64  # nesting past this counts as deep (JSON values, JSON Schemas)


@dataclass
class Request:
    """One thing sent to the server. ``body`` (raw bytes) wins over query and variables."""

    label: str  # the root field, or the corpus case
    kind: str  # query | mutation | negative | corpus
    query: str = ""
    variables: dict[str, Any] | None = None
    who: str = "dev"
    body: bytes | None = None  # with GET: the raw URL query
    headers: dict[str, str] = field(default_factory=dict)  # an empty value removes a default header
    writes: bool = False  # may write when it succeeds: a mutation
    method: str = "POST"  # GET sends query and variables as URL parameters

    def encoded(self) -> bytes:
        if self.body is not None:
            return self.body
        # ensure_ascii keeps lone surrogates as \\udXXX escapes; allow_nan sends NaN/Infinity tokens,
        # as a careless client's json.dumps does.
        payload = {"query": self.query, "variables": self.variables or {}}
        return json.dumps(payload, ensure_ascii=True, allow_nan=True).encode()

    def reproducer(self, limit: int = 600) -> str:
        raw = self.encoded().decode("utf-8", "backslashreplace")
        shown = raw if len(raw) <= limit else f"{raw[:limit]}... ({len(raw)} bytes)"
        who = f" as {self.who}" if self.who != "dev" else ""
        extra = f" headers={self.headers}" if self.headers else ""
        return f"{self.method} /graphql{who}{extra}: {shown}"


@dataclass
class Verdict:
    status: int
    refused: bool
    problems: list[str]
    body: Any = None
    user_error_codes: list[str] = field(default_factory=list)
    media_type: str = ""


class _NotJSON(ValueError):
    pass


def _reject_constant(token: str) -> float:
    raise _NotJSON(f"{token} is not JSON")


def strict_json(raw: bytes) -> Any:
    """Parse as RFC 8259 JSON: NaN and Infinity are not JSON, and neither is invalid UTF-8."""
    return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)


def judge(request: Request, status: int, raw: bytes, content_type: str) -> Verdict:
    problems: list[str] = []
    if status >= 500:
        problems.append(f"HTTP {status}")
    body: Any = None
    try:
        body = strict_json(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        problems.append(f"not JSON ({exc.__class__.__name__}: {str(exc)[:80]})")
    if "json" not in content_type:
        problems.append(f"content-type {content_type!r}")
    errors = body.get("errors") if isinstance(body, dict) else None
    messages = [str(e.get("message")) for e in errors or [] if isinstance(e, dict)]
    if any(UNEXPECTED in m for m in messages):
        problems.append(UNEXPECTED)
    if errors is not None and (not isinstance(errors, list) or not errors or len(messages) != len(errors)):
        problems.append("malformed errors list")
    data = body.get("data") if isinstance(body, dict) else None
    if status == 200 and not isinstance(data, dict) and not errors:
        problems.append("200 without data or errors")
    if request.kind == "negative" and (status == 200 and not errors):
        problems.append("an invalid operation was accepted")
    codes = _user_error_codes(data)
    # A refusal: a request or auth error, a root field that failed, or a userError. An error deeper in
    # a payload (a bad cursor on a list inside it) comes after the root field ran: the mutation holds.
    root_failed = any(not isinstance(e, dict) or len(e.get("path") or []) <= 1 for e in errors or [])
    refused = status != 200 or not isinstance(data, dict) or root_failed or bool(codes)
    return Verdict(status, refused, problems, body, codes, content_type.split(";")[0].strip())


def _user_error_codes(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return []
    codes = []
    for payload in data.values():
        if isinstance(payload, dict):
            for error in payload.get("userErrors") or []:
                if isinstance(error, dict):
                    codes.append(f"{error.get('code')} {'.'.join(map(str, error.get('field') or []))}")
    return codes


# -- what is hostile about a request (to name the class of defect a crash belongs to) --


def features(request: Request) -> set[str]:
    """Traits of the input that hostile requests use: surrogates, NUL, long strings, ..."""
    found: set[str] = set()
    if request.body is not None:
        try:
            payload = json.loads(request.body.decode("utf-8"))
        except (ValueError, RecursionError):
            return {"malformed body"}
        if not isinstance(payload, dict):
            return {"malformed body"}
        query, variables = payload.get("query"), payload.get("variables")
    else:
        query, variables = request.query, request.variables
    _values(variables, found, 0)
    if isinstance(query, str):
        try:
            document = graphql.parse(query, no_location=True, max_tokens=100_000)
        except graphql.GraphQLError:
            _text(query, found)
        else:
            graphql.visit(document, _LiteralVisitor(found))
    return found


def _text(value: str, found: set[str]) -> None:
    if any("\ud800" <= c <= "\udfff" for c in value):
        found.add("lone surrogate")
    if "\x00" in value:
        found.add("NUL")
    if len(value) > LONGEST_COLUMN:
        found.add("long string")


def _values(value: Any, found: set[str], depth: int) -> None:
    if depth > DEEP:
        found.add("deep")
        return
    if isinstance(value, str):
        _text(value, found)
    elif isinstance(value, float) and not math.isfinite(value):
        found.add("non-finite")
    elif isinstance(value, dict):
        for key, item in value.items():
            _text(key, found)
            _values(item, found, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _values(item, found, depth + 1)


class _LiteralVisitor(graphql.Visitor):
    def __init__(self, found: set[str]) -> None:
        super().__init__()
        self.found = found
        self.depth = 0

    def enter_string_value(self, node: graphql.StringValueNode, *_: Any) -> None:
        _text(node.value, self.found)

    def enter_float_value(self, node: graphql.FloatValueNode, *_: Any) -> None:
        if not math.isfinite(float(node.value)):
            self.found.add("non-finite")

    def enter_list_value(self, *_: Any) -> None:
        self._deeper(1)

    def leave_list_value(self, *_: Any) -> None:
        self._deeper(-1)

    def enter_object_value(self, *_: Any) -> None:
        self._deeper(1)

    def leave_object_value(self, *_: Any) -> None:
        self._deeper(-1)

    def _deeper(self, step: int) -> None:
        self.depth += step
        if self.depth > DEEP:
            self.found.add("deep")
