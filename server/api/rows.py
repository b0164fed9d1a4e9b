"""Row → GraphQL object: one mapping for every type whose fields are its row's columns.

A Strawberry type is a dataclass; its init fields (not the resolvers) are read from the row's attribute
of the same name, and a field annotated with an enum (or an optional one) gets the enum member for the
stored value. Only what differs from the row — another name, a computed value — is written out, as an
override. The field list of each type is worked out once.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any, TypeVar, cast

T = TypeVar("T")


def from_row(cls: type[T], row: object, /, **overrides: Any) -> T:
    """An instance of the Strawberry type ``cls`` from ``row``; ``overrides`` give the fields whose
    value is not the row's attribute of the same name."""
    values: dict[str, Any] = {}
    for name, convert in _columns(cast(type, cls)):
        if name in overrides:
            continue
        value = getattr(row, name)
        values[name] = convert(value) if convert is not None and value is not None else value
    values.update(overrides)
    return cls(**values)


@cache
def _columns(cls: type) -> tuple[tuple[str, Callable[[Any], Any] | None], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((field.name, _enum_of(hints[field.name])) for field in dataclasses.fields(cls) if field.init)


def _enum_of(annotation: Any) -> type[Enum] | None:
    """The enum an annotation names (``E`` or ``E | None``), if it names one."""
    candidates = typing.get_args(annotation) if isinstance(annotation, types.UnionType) else (annotation,)
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, Enum):
            return candidate
    return None
