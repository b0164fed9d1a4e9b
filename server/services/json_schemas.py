"""Users' JSON Schemas (tool parameter schemas), checked so that no schema or value can stall the server.

Three guards, each for a way a schema could make the server do unbounded work:

- Regular expressions (``pattern``, ``patternProperties``, and the ``additionalProperties`` that depends
  on them) run on RE2, whose matching time is linear in the text: no pattern can backtrack
  catastrophically. A pattern RE2 cannot compile (lookaround, backreferences) is refused when the schema
  is registered. JSON Schema's dialect is ECMA-262; RE2 reads the same syntax except for those features,
  and ECMA's ``\\uXXXX`` escapes are translated to RE2's ``\\x{XXXX}``.
- Every check spends steps from a budget (``schema_check_steps``): one per keyword evaluated, plus the
  size of the keyword's value and of the strings a pattern reads. A schema whose checking would exceed
  the budget (``anyOf`` nested to an exponential number of branches, ``uniqueItems`` over a huge array)
  is refused with VALIDATION_FAILED instead of running on.
- The checking runs on a worker thread of its own, so the event loop serves other requests meanwhile.

References (``$ref``, ``$dynamicRef``) must resolve inside the schema itself: nothing is fetched from the
network (jsonschema would otherwise fetch an ``http`` reference, a request to any address a user names).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import re2
from jsonschema import FormatChecker, ValidationError, validators
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012, specification_with

from ..echo import clipped, shown

DEFAULT = validators.Draft202012Validator
MAX_REPORTED = 20  # problems reported for one value; more are summarised in one line
PATTERN_STEP_CHARACTERS = 64  # a pattern spends one step per this many characters it reads
REFERENCE_STEPS = 10  # following a reference costs about ten other keywords' time
REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would otherwise print every refused pattern to stderr

R = TypeVar("R")
Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterator[ValidationError] | None]


class PatternError(ValueError):
    """A pattern RE2 cannot compile; the message says why."""


class TooMuchWork(Exception):
    """Checking spent its whole budget."""


@dataclass
class _Budget:
    left: int


_BUDGET: ContextVar[_Budget | None] = ContextVar("schema_check_budget", default=None)


def _spend(steps: int) -> None:
    budget = _BUDGET.get()
    if budget is None:
        return
    budget.left -= steps
    if budget.left < 0:
        raise TooMuchWork


def _run_with_budget(steps: int, fn: Callable[[], R]) -> R:
    token = _BUDGET.set(_Budget(steps))
    try:
        return fn()
    finally:
        _BUDGET.reset(token)


# -- patterns --


def _from_ecma(pattern: str) -> str:
    """ECMA-262's ``\\uXXXX`` escapes in RE2's spelling; everything else as written."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            code = pattern[i + 2 : i + 6]
            if pattern[i + 1] == "u" and len(code) == 4 and all(c in "0123456789abcdefABCDEF" for c in code):
                out.append(f"\\x{{{code}}}")
                i += 6
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> Any:
    """``pattern`` compiled by RE2 (cached), or PatternError saying why RE2 cannot run it."""
    try:
        return re2.compile(_from_ecma(pattern), _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(str(reason)) from None


def _search(pattern: str, text: str) -> bool:
    _spend(1 + len(text) // PATTERN_STEP_CHARACTERS)
    return compile_pattern(pattern).search(text) is not None


# -- keywords that read patterns, and others whose own cost is not one step --


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{shown(instance)} does not match {shown(pattern)}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [k for k in instance if k not in declared and not any(_search(p, k) for p in patterns)]
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif additional is False and extras:
        names = ", ".join(shown(k) for k in sorted(extras)[:10])
        more = f" and {len(extras) - 10} more" if len(extras) > 10 else ""
        verb = "was" if len(extras) == 1 else "were"
        yield ValidationError(f"Additional properties are not allowed ({names}{more} {verb} unexpected)")


def _canonical(value: Any) -> Any:
    """A hashable form in which two values are equal exactly when JSON Schema calls them equal."""
    if isinstance(value, bool) or value is None:
        return (0, value)
    if isinstance(value, int | float):
        return (1, value)  # 1 and 1.0 are the same number
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, list):
        return (3, tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return (4, frozenset((k, _canonical(v)) for k, v in value.items()))
    return (5, repr(value))


def _unique_items(
    validator: Any, unique: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    # jsonschema compares unhashable items pairwise: quadratic in the array's length.
    if not unique or not validator.is_type(instance, "array"):
        return
    _spend(len(instance))
    seen: set[Any] = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield ValidationError(f"{shown(instance)} has non-unique elements")
            return
        seen.add(key)


_OVERRIDES: dict[str, Keyword] = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "uniqueItems": _unique_items,
}


def _budgeted(name: str, keyword: Keyword) -> Keyword:
    """``keyword`` spending one step, plus the size of its value, and the length of each error it makes."""

    base = REFERENCE_STEPS if name in REFERENCES else 1

    def run(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        _spend(base + (len(value) if isinstance(value, list | dict) else 0))
        for error in keyword(validator, value, instance, schema) or ():
            _spend(1 + len(error.message) // 256)
            yield error

    return run


@functools.cache
def _safe(base: type[Validator]) -> type[Validator]:
    """``base`` (one draft's validator) with RE2 patterns and every keyword on the budget."""
    keywords = {name: _OVERRIDES.get(name) or cast(Keyword, fn) for name, fn in base.VALIDATORS.items()}
    extended = validators.extend(base, {name: _budgeted(name, fn) for name, fn in keywords.items()})  # type: ignore[no-untyped-call]
    return cast(type[Validator], extended)


def _validator_class(schema: Any) -> type[Validator]:
    return validators.validator_for(schema, default=DEFAULT)


def _inner_dialect(schema: dict[str, Any]) -> list[str] | None:
    """Where a ``$schema`` appears below the top of ``schema`` (in a subschema or in data), if it does.

    jsonschema picks the validator class afresh for every subschema that names a ``$schema``: the
    library's own class, with Python's backtracking ``re`` and no budget. So a schema names its draft
    once, at the top, and is checked without it (the class already chosen).
    """
    stack: list[tuple[Any, list[str]]] = [(v, [k]) for k, v in schema.items()]
    while stack:
        value, path = stack.pop()
        _spend(1)
        if isinstance(value, dict):
            if "$schema" in value:
                return path
            stack.extend((v, [*path, k]) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, [*path, str(i)]) for i, v in enumerate(value))
    return None


# -- registration: is it a schema this server can run? --


def _is_pattern(value: object) -> bool:
    if isinstance(value, str):
        compile_pattern(value)
    return True


_PATTERN_FORMATS = FormatChecker(formats=())
_PATTERN_FORMATS.checks("regex", raises=PatternError)(_is_pattern)


def _where(field: str, path: Any) -> str:
    return ".".join([field, *(str(p) for p in path)])


def _structure_problem(schema: dict[str, Any], field: str) -> str | None:
    """The first way ``schema`` breaks its draft's metaschema or has a pattern RE2 cannot run."""
    base = _validator_class(schema)
    meta_class = _safe(_validator_class(base.META_SCHEMA))
    meta = meta_class(base.META_SCHEMA, format_checker=_PATTERN_FORMATS, registry=Registry())
    for error in meta.iter_errors(schema):
        where = _where(field, error.absolute_path)
        if isinstance(error.cause, PatternError):
            return (
                f"{where}: {shown(error.instance)} is not a pattern this server can run "
                f"(RE2 syntax: no lookaround, no backreferences): {error.cause}"
            )
        return f"{field} is not a valid JSON Schema: {clipped(error.message, 300)} (at {where})"
    return None


def _reference_problem(schema: dict[str, Any], field: str) -> str | None:
    """A reference that does not resolve inside ``schema``, or a combination that would bypass RE2."""
    spec = specification_with(schema.get("$schema", ""), default=DRAFT202012)
    root = spec.create_resource(schema)
    registry: Registry[Any] = Registry().with_resource(root.id() or "", root).crawl()
    found: set[str] = set()

    def walk(resource: Resource[Any], resolver: Any) -> str | None:
        _spend(1)
        contents = resource.contents
        if isinstance(contents, dict):
            found.update(k for k in ("patternProperties", "unevaluatedProperties") if k in contents)
            for keyword in REFERENCES:
                ref = contents.get(keyword)
                if not isinstance(ref, str):
                    continue
                try:
                    resolver.lookup(ref)
                except Unresolvable:
                    return (
                        f"{field}: {keyword} {shown(ref)} does not resolve inside the schema "
                        "(references to other documents are not followed)"
                    )
        for sub in resource.subresources():
            if problem := walk(sub, resolver.in_subresource(sub)):
                return problem
        return None

    if problem := walk(root, registry.resolver_with_root(root)):
        return problem
    if found == {"patternProperties", "unevaluatedProperties"}:
        # jsonschema evaluates unevaluatedProperties' patternProperties with Python's backtracking re.
        return f"{field}: unevaluatedProperties cannot be combined with patternProperties in one schema"
    return None


def _schema_problems(schema: Any, field: str) -> list[str]:
    if not isinstance(schema, dict):
        return [f"{field} must be a JSON Schema object"]
    if not isinstance(schema.get("$schema", ""), str):
        return [f"{field}.$schema must be a string naming a JSON Schema draft"]
    if (inner := _inner_dialect(schema)) is not None:
        return [f"{_where(field, inner)}: $schema may appear only at the top of the schema"]
    problem = _structure_problem(schema, field) or _reference_problem(schema, field)
    return [problem] if problem else []


# -- checking values --


def _value_problems(schema: dict[str, Any], value: Any) -> list[tuple[list[str], str]]:
    if _inner_dialect(schema) is not None:  # stored before that was refused
        raise PatternError("$schema below the top of the schema")
    draft = _safe(_validator_class(schema))
    validator = draft({k: v for k, v in schema.items() if k != "$schema"}, registry=Registry())
    errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    found = [([str(p) for p in e.absolute_path], clipped(e.message, 300)) for e in errors[:MAX_REPORTED]]
    if len(errors) > MAX_REPORTED:
        found.append(([], f"and {len(errors) - MAX_REPORTED} more problems"))
    return found


def _guarded(fn: Callable[[], list[R]], refusal: Callable[[str], R], field: str, steps: int) -> list[R]:
    try:
        return _run_with_budget(steps, fn)
    except TooMuchWork:
        return [refusal(f"{field}: checking it against the schema needs more than {steps} steps (the limit)")]
    except RecursionError:
        return [refusal(f"{field}: the schema nests or recurses too deep to check")]
    except PatternError as exc:
        return [refusal(f"{field}: the schema has what this server cannot run ({exc}); register it again")]
    except Unresolvable as exc:
        return [refusal(f"{field}: the schema has a reference that does not resolve: {shown(str(exc))}")]


_WORKERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="schema-check")


async def _off_loop(fn: Callable[[], R]) -> R:
    return await asyncio.get_running_loop().run_in_executor(_WORKERS, fn)


def schema_problems_now(schema: Any, field: str, steps: int) -> list[str]:
    """Why ``schema`` is not a JSON Schema this server accepts (empty if it is), on the calling thread."""
    return _guarded(lambda: _schema_problems(schema, field), lambda m: m, field, steps)


def value_problems_now(
    schema: dict[str, Any], value: Any, field: str, steps: int
) -> list[tuple[list[str], str]]:
    """(path inside ``value``, message) for each way ``value`` breaks ``schema``, on the calling thread."""
    return _guarded(lambda: _value_problems(schema, value), lambda m: ([], m), field, steps)


async def schema_problems(schema: Any, field: str, steps: int) -> list[str]:
    """:func:`schema_problems_now` on a worker thread: the event loop is not held while it runs."""
    return await _off_loop(lambda: schema_problems_now(schema, field, steps))


async def value_problems(
    schema: dict[str, Any], value: Any, field: str, steps: int
) -> list[tuple[list[str], str]]:
    """:func:`value_problems_now` on a worker thread: the event loop is not held while it runs."""
    return await _off_loop(lambda: value_problems_now(schema, value, field, steps))
