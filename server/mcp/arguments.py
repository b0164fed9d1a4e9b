"""Tool arguments: the JSON Schemas the tools publish, and the check every call's arguments pass.

A tool's schema states every limit (``maxLength``, ``maximum`` ...) so a model can call it right the
first time, but the call is checked in two parts, as GraphQL checks its requests:

- the *shape* (types, required arguments, enum values, no unknown arguments) against the schema with
  its limits left out, as GraphQL's own validation does before a resolver runs;
- every value no database should see (NUL, lone surrogates, non-finite numbers, JSON nested too
  deeply) with the same functions GraphQL's input check uses (server/limits.py);

and the limits themselves by the services, which answer with the same code, message and field as
they do to GraphQL.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Iterable
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from ..echo import clipped
from ..errors import ErrorCode, Problem
from ..limits import SHORT_TEXT, json_problem, text_problem

if TYPE_CHECKING:
    from ..config import Settings

Schema = dict[str, Any]

_LIMITS = frozenset(
    {
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
    }
)
_SCALARS = frozenset({"string", "integer", "number", "boolean", "null"})


# -- building schemas --


def text(description: str, max_length: int | None = None, *, min_length: int | None = None) -> Schema:
    schema: Schema = {"type": "string", "description": description}
    if min_length is not None:
        schema["minLength"] = min_length
    if max_length is not None:
        schema["maxLength"] = max_length
    return schema


def enum(values: Iterable[Enum], description: str) -> Schema:
    return {"type": "string", "enum": [v.value for v in values], "description": description}


def number(description: str, **limits: float) -> Schema:
    return {"type": "number", "description": description, **limits}


def integer(description: str, **limits: int) -> Schema:
    return {"type": "integer", "description": description, **limits}


def boolean(description: str) -> Schema:
    return {"type": "boolean", "description": description}


def array(items: Schema, description: str, **limits: int) -> Schema:
    return {"type": "array", "items": items, "description": description, **limits}


def any_json(description: str) -> Schema:
    """Any JSON value (checked with json_problem as a whole, like GraphQL's JSON scalar)."""
    return {"description": description}


def json_object(description: str) -> Schema:
    """A free-form JSON object (checked with json_problem as a whole, like GraphQL's JSON scalar)."""
    return {"type": "object", "description": description}


def nullable(schema: Schema) -> Schema:
    """The same, or null: an optional argument may be left out or given as null."""
    widened = dict(schema)
    kind = widened.get("type")
    if isinstance(kind, str):
        widened["type"] = [kind, "null"]
    if "enum" in widened:
        widened["enum"] = [*widened["enum"], None]
    return widened


def obj(
    properties: dict[str, Schema], required: Iterable[str] = (), description: str | None = None
) -> Schema:
    """An object with exactly these properties (unknown ones are refused)."""
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required := list(required):
        schema["required"] = required
    if description:
        schema["description"] = description
    return schema


def output(properties: dict[str, Schema], required: Iterable[str] = ()) -> Schema:
    """An output object: these properties, more may be added later."""
    schema: Schema = {"type": "object", "properties": properties}
    if required := list(required):
        schema["required"] = required
    return schema


# -- checking a call --


class ArgumentCheck:
    """Checks one tool's arguments; see the module docstring."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._shape = Draft202012Validator(_without_limits(schema))

    def problems(self, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
        """The arguments (whole-number floats given for integers made ints) and what is wrong with them."""
        errors = sorted(self._shape.iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if errors:
            return arguments, [_shape_problem(e) for e in errors[:10]]
        found: list[Problem] = []
        cleaned = _walk(arguments, self.schema, [], found)
        return cleaned, found


def _without_limits(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_limits(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _LIMITS:
            continue
        if key == "properties":
            out[key] = {name: _without_limits(s) for name, s in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf"):
            out[key] = _without_limits(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _name(path: list[str]) -> str:
    return ".".join(path) or "the arguments"


def _shape_problem(error: ValidationError) -> Problem:
    path = [str(p) for p in error.absolute_path]
    explain = _SHAPE_PROBLEMS.get(str(error.validator))
    if explain is None:
        return _problem(path, "is not valid here")
    return explain(path, error.validator_value, error.instance, error.schema)


def _missing(path: list[str], expected: Any, instance: Any, schema: Any) -> Problem:
    missing = next((m for m in expected if m not in (instance or {})), "")
    return _problem([*path, str(missing)], "is required")


def _unknown(path: list[str], expected: Any, instance: Any, schema: Any) -> Problem:
    allowed = set((schema.get("properties") or {}).keys())
    extra = sorted(k for k in (instance or {}) if k not in allowed)
    name = clipped(extra[0], 100) if extra else "?"
    where = f" of {_name(path)}" if path else ""
    message = f"{name!r} is not an argument{where}; allowed: {', '.join(sorted(allowed))}"
    return Problem(ErrorCode.VALIDATION_FAILED, message, [*path, name])


def _not_one_of(path: list[str], expected: Any, instance: Any, schema: Any) -> Problem:
    values = ", ".join(str(v) for v in expected if v is not None)
    return _problem(path, f"must be one of: {values}")


def _wrong_type(path: list[str], expected: Any, instance: Any, schema: Any) -> Problem:
    wanted = " or ".join(expected) if isinstance(expected, list) else expected
    return _problem(path, f"must be {'an' if str(wanted)[0] in 'aeiou' else 'a'} {wanted}")


# What each JSON Schema keyword's failure means to a caller, by the keyword that failed.
_SHAPE_PROBLEMS: dict[str, Callable[[list[str], Any, Any, Any], Problem]] = {
    "required": _missing,
    "additionalProperties": _unknown,
    "enum": _not_one_of,
    "type": _wrong_type,
}


def _problem(path: list[str], why: str) -> Problem:
    return Problem(ErrorCode.VALIDATION_FAILED, f"{_name(path)} {why}", path)


def _walk(value: Any, schema: Schema, path: list[str], found: list[Problem]) -> Any:
    """The value with integers normalised; adds every value no database should see to ``found``."""
    if value is None or isinstance(value, bool):
        return value
    kinds = schema.get("type")
    kinds = {kinds} if isinstance(kinds, str) else set(kinds or [])
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        return {k: _walk(v, props.get(k, {}), [*path, k], found) for k, v in value.items()}
    if isinstance(value, list) and "items" in schema:
        return [_walk(v, schema["items"], [*path, str(i)], found) for i, v in enumerate(value)]
    if not kinds or not kinds <= _SCALARS:
        # A JSON value (a result's data, a branching value): checked as a whole, as GraphQL does.
        if why := json_problem(value):
            found.append(_problem(path, why))
        return value
    return _scalar(value, kinds, path, found)


def _scalar(value: Any, kinds: set[str], path: list[str], found: list[Problem]) -> Any:
    if isinstance(value, str):
        if why := text_problem(value):
            found.append(_problem(path, why))
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            found.append(_problem(path, f"is {value}: a number must be finite"))
        elif "integer" in kinds and value.is_integer():
            return int(value)
    return value


class Vocabulary:
    """The arguments every domain's tools share, their descriptions stating this server's limits."""

    def __init__(
        self, max_text_bytes: int, max_result_bytes: int, short_text: int, max_steps: int = 0
    ) -> None:
        self.text_max = max_text_bytes
        self.result_max = max_result_bytes
        self.short_max = short_text
        self.max_steps = max_steps  # the most steps a plan or hop may be given at once
        self.text_limit = f"at most {max_text_bytes} bytes of UTF-8"
        self.result_limit = f"at most {max_result_bytes} bytes"
        self.name_limit = f"at most {short_text} bytes of UTF-8"

    @classmethod
    def of(cls, settings: Settings) -> Vocabulary:
        return cls(settings.max_text_bytes, settings.max_result_bytes, SHORT_TEXT, settings.max_steps)

    def id_arg(self, what: str) -> Schema:
        return text(f"The {what}'s id.", 36)

    # Text limits are in maxLength, counted in UTF-8 bytes (the server's instructions say so once).
    def long_text(self, description: str) -> Schema:
        return text(f"{description}.", self.text_max)

    def short_text(self, description: str) -> Schema:
        return text(f"{description}.", self.short_max)

    def large_text(self, description: str) -> Schema:
        return text(f"{description}; {self.result_limit}.", self.result_max)

    def json_value(self, description: str) -> Schema:
        return any_json(f"{description}; any JSON value, {self.result_limit}.")

    def json_obj(self, description: str) -> Schema:
        return json_object(f"{description}; a JSON object, {self.result_limit}.")


# -- describing results --

STR: Schema = {"type": "string"}
STR_OR_NULL: Schema = {"type": ["string", "null"]}
NUM_OR_NULL: Schema = {"type": ["number", "null"]}
INT: Schema = {"type": "integer"}
INT_OR_NULL: Schema = {"type": ["integer", "null"]}
BOOL: Schema = {"type": "boolean"}
IDS: Schema = {"type": "array", "items": STR}
ANY: Schema = {}


def states(values: Iterable[Enum]) -> Schema:
    return {"type": "string", "enum": [v.value for v in values]}


def items(schema: Schema) -> Schema:
    return {"type": "array", "items": schema}


def or_null(schema: Schema) -> Schema:
    if schema.get("type") == "object":
        return {**schema, "type": ["object", "null"]}  # `required` binds objects only
    return {"anyOf": [schema, {"type": "null"}]}


class Shape:
    """One kind of row as a tool shows it: each output key and its schema, the value read from the
    row's attribute of the same name in snake_case (``ident``, the key holding the row's ``id``, and
    ``renamed`` say where else). ``of(row)`` is the value; ``schema`` its output schema, which requires
    what a next call needs (the row's ids and its status) and leaves the rest undeclared: a whole
    row's schema (the fields' types and state enums), repeated in every tool that answers with the
    row, more than doubled the tool list. ``fields`` keeps each field's type for the reader."""

    def __init__(
        self,
        fields: dict[str, Schema],
        required: Iterable[str],
        *,
        ident: str | None = None,
        renamed: dict[str, str] | None = None,
    ) -> None:
        self.schema: Schema = {
            "type": "object",
            "required": [k for k in required if k.endswith("Id") or k == "status"],
        }
        named = {ident: "id"} if ident else {}
        named |= renamed or {}
        self.attributes = {key: named.get(key) or _snake(key) for key in fields}

    def of(self, row: Any) -> dict[str, Any]:
        return {key: _plain(getattr(row, attr)) for key, attr in self.attributes.items()}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _plain(value: Any) -> Any:
    """A column's value as JSON: times in ISO 8601, lists copied."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list):
        return list(value)
    return value
