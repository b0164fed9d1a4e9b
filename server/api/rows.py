"""Row → GraphQL object: one mapping for every type whose fields are its row's columns.

A Strawberry type is a dataclass; its init fields (not the resolvers) are read from the row's attribute
of the same name, and a field annotated with an enum (or an optional one) gets the enum member for the
stored value. Only what differs from the row — another name, a computed value — is written out, as an
override. The field list of each type is worked out once.
"""

from __future__ import annotations

import dataclasses
import operator
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
    names, read, enums = _columns(cast(type, cls), frozenset(overrides))
    values = dict(zip(names, _read(read, type(row), names, row), strict=True))
    for name, enum in enums:
        if (value := values[name]) is not None:
            values[name] = enum(value)
    values.update(overrides)
    return cls(**values)


def _read(read: Callable[[object], tuple[Any, ...]], kind: type, names: tuple[str, ...], row: Any) -> Any:
    """The named values of ``row``: from its ``__dict__`` when each is a loaded column of a mapped row
    (what the ORM's own attribute access returns then, without its descriptor per attribute); any
    other way (an expired column, a property) through the attributes."""
    direct = _direct(kind, names)
    if direct is not None:
        try:
            return direct(row.__dict__)
        except KeyError:  # expired or never loaded: the attribute loads it (or raises) as it would
            pass
    return read(row)


@cache
def _direct(kind: type, names: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]] | None:
    mapper = getattr(kind, "__mapper__", None)
    if mapper is None:
        return None
    columns = {p.key for p in mapper.column_attrs if not p.deferred}
    if not names or not columns.issuperset(names):
        return None
    getter = operator.itemgetter(*names)
    return getter if len(names) > 1 else lambda values: (getter(values),)


@cache
def _columns(
    cls: type, overridden: frozenset[str]
) -> tuple[tuple[str, ...], Callable[[object], tuple[Any, ...]], tuple[tuple[str, type[Enum]], ...]]:
    """The init fields read from the row, one getter reading them all, and those holding an enum."""
    hints = typing.get_type_hints(cls)
    names = tuple(f.name for f in dataclasses.fields(cls) if f.init and f.name not in overridden)
    getter = operator.attrgetter(*names)
    read = getter if len(names) > 1 else lambda row: (getter(row),)
    enums = tuple((name, enum) for name in names if (enum := _enum_of(hints[name])) is not None)
    return names, read, enums


def _enum_of(annotation: Any) -> type[Enum] | None:
    """The enum an annotation names (``E`` or ``E | None``), if it names one."""
    candidates = typing.get_args(annotation) if isinstance(annotation, types.UnionType) else (annotation,)
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, Enum):
            return candidate
    return None
