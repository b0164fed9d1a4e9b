"""One check of every argument of every root field before its resolver runs (server/limits.py).

Text with a NUL or a lone surrogate, a Float that is NaN or ±Infinity (the literal ``1e309`` is
one), a JSON value with either or nested too deeply: none reaches a service, so SQLite and
PostgreSQL refuse exactly the same inputs. A mutation answers with a VALIDATION_FAILED userError on
the input field, nothing written; a query or a subscription with a top-level error carrying the same
code and field, as ``run_query`` does. Lengths stay with the services, which know each field's limit.
"""

from __future__ import annotations

import inspect
import math
import weakref
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import FieldExtension
from strawberry.extensions.field_extension import AsyncExtensionResolver, SyncExtensionResolver
from strawberry.scalars import JSON
from strawberry.schema.name_converter import NameConverter
from strawberry.types import Info, get_object_definition
from strawberry.types.base import StrawberryList, StrawberryOptional
from strawberry.types.field import StrawberryField

from ..errors import ErrorCode, Problem
from ..limits import json_problem, text_problem
from .errors import UserError


class InputCheck(FieldExtension):
    """Refuses a root field's arguments that no database should see; see the module docstring."""

    def apply(self, field: StrawberryField) -> None:
        self.field = field

    def resolve(self, next_: SyncExtensionResolver, source: Any, info: Info, **kwargs: Any) -> Any:
        problems = argument_problems(self.field, kwargs, info.schema.config.name_converter)
        return self._refuse(problems) if problems else next_(source, info, **kwargs)

    async def resolve_async(
        self, next_: AsyncExtensionResolver, source: Any, info: Info, **kwargs: Any
    ) -> Any:
        problems = argument_problems(self.field, kwargs, info.schema.config.name_converter)
        if problems:
            return self._refuse(problems)
        # A subscription's resolver returns an async generator, which is not awaited.
        result = next_(source, info, **kwargs)
        return await result if inspect.isawaitable(result) else result

    def _refuse(self, problems: list[Problem]) -> Any:
        payload = self.field.type
        definition = get_object_definition(payload)
        if definition is not None and any(f.python_name == "user_errors" for f in definition.fields):
            return payload(user_errors=[UserError.from_problem(p) for p in problems])  # type: ignore[call-arg,operator]
        first = problems[0]
        raise GraphQLError(first.message, extensions={"code": first.code.value, "field": first.field})


def check_every_argument(*roots: type) -> None:
    """Puts the check on every field of these root types (once, however often a schema is built).

    First in the list is innermost in Strawberry's chain: permissions run before it, so a caller who
    may not use the field hears FORBIDDEN, whatever the arguments hold.
    """
    for root in roots:
        definition = get_object_definition(root, strict=True)
        for field in definition.fields:
            if not any(isinstance(e, InputCheck) for e in field.extensions):
                field.extensions.insert(0, InputCheck())


def argument_problems(field: StrawberryField, kwargs: dict[str, Any], names: NameConverter) -> list[Problem]:
    """Every argument value no database should see, each on its input field's path.

    Paths follow the services' userErrors: the fields of an ``input`` object are named without it.
    """
    found: list[Problem] = []
    for python_name, type_, name in _arguments(field, names):
        if python_name in kwargs:
            path = [] if name == "input" else [name]
            _walk(kwargs[python_name], type_, path, names, found)
    return found


# What the walk reads of a field's arguments and an input type's fields, worked out once per schema
# (its name converter): Strawberry resolves a field's type from its annotation on every read of
# ``.type``. Keyed by identity, each entry holding what it is keyed by (so an id is never reused while
# the entry lives); a schema's entries go with its converter.
_Walked = tuple[tuple[str, Any, str], ...]
_Known = dict[int, tuple[object, _Walked]]
_WALKED: weakref.WeakKeyDictionary[NameConverter, _Known] = weakref.WeakKeyDictionary()


def _arguments(field: StrawberryField, names: NameConverter) -> _Walked:
    return _walked(
        field, names, lambda: ((a.python_name, a.type, names.from_argument(a)) for a in field.arguments)
    )


def _fields(definition: Any, names: NameConverter) -> _Walked:
    return _walked(
        definition, names, lambda: ((f.python_name, f.type, names.from_field(f)) for f in definition.fields)
    )


def _walked(
    owner: object, names: NameConverter, make: Callable[[], Iterable[tuple[str, Any, str]]]
) -> _Walked:
    known = _WALKED.setdefault(names, {})
    entry = known.get(id(owner))
    if entry is None:
        entry = known[id(owner)] = (owner, tuple(make()))
    return entry[1]


def _walk(value: Any, type_: Any, path: list[str], names: NameConverter, found: list[Problem]) -> None:
    if value is None or value is strawberry.UNSET or isinstance(value, bool | int | Enum):
        return
    if isinstance(type_, StrawberryOptional):
        _walk(value, type_.of_type, path, names, found)
    elif isinstance(type_, StrawberryList) and isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, type_.of_type, [*path, str(i)], names, found)
    elif type_ is JSON:
        if why := json_problem(value):
            found.append(_problem(path, why))
    elif isinstance(value, str):
        if why := text_problem(value):
            found.append(_problem(path, why))
    elif isinstance(value, float):
        if not math.isfinite(value):
            found.append(_problem(path, f"is {value}: a number must be finite"))
    elif (definition := get_object_definition(value)) is not None:
        for python_name, type_, name in _fields(definition, names):
            _walk(getattr(value, python_name, None), type_, [*path, name], names, found)


def _problem(path: list[str], why: str) -> Problem:
    return Problem(ErrorCode.VALIDATION_FAILED, f"{'.'.join(path) or 'the value'} {why}", path)
