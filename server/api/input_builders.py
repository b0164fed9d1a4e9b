"""Input objects built from a plan made once per type, through Strawberry's ``from_input`` hook.

Strawberry converts a mutation's input object field by field on every call: for each field it resolves
the type annotation, derives the GraphQL name (``to_camel_case``) and walks the type with a chain of
``isinstance`` checks, about 8 % of a plan-step transition's CPU in-process. What it computes depends on
the type alone, so each input type here gets a builder made on its first use: per field, its GraphQL
name, its Python name and a converter for its resolved type. The converters do what Strawberry's
``convert_argument`` does for the types our schema uses: scalars and enums as graphql-core parsed
them, ``None`` and ``UNSET`` as they are, lists copied item by item, nested inputs by their own builder.
Any other type (``Maybe``, a lazy or generic type, a ``GlobalID``) is handed to Strawberry's own
conversion (``InputContext.convert``), so nothing it would accept converts differently.

``tests/api/test_input_builders.py`` builds every input type of the schema both ways and compares.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import strawberry
from strawberry.relay.types import GlobalID
from strawberry.scalars import is_scalar
from strawberry.schema.name_converter import NameConverter
from strawberry.types.arguments import InputContext
from strawberry.types.base import (
    StrawberryList,
    StrawberryMaybe,
    StrawberryObjectDefinition,
    StrawberryOptional,
    get_object_definition,
    has_object_definition,
)
from strawberry.types.enum import StrawberryEnumDefinition, has_enum_definition

_Convert = Callable[[Any, InputContext], Any]
_Plan = list[tuple[str, str, _Convert | None]]


class CachedNameConverter(NameConverter):
    """Strawberry's naming, computed once per Python name (it is called per field on every request)."""

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one converter per schema, kept for its lifetime
    def apply_naming_config(self, name: str) -> str:
        return super().apply_naming_config(name)


def install(roots: Iterable[type]) -> None:
    """Give every input type reachable from the root types' field arguments a builder (``_Builder``)."""
    seen: set[int] = set()
    for root in roots:
        for field in get_object_definition(root, strict=True).fields:
            for argument in field.arguments:
                _install_in(argument.type, seen)


def _install_in(type_: Any, seen: set[int]) -> None:
    while isinstance(type_, StrawberryOptional | StrawberryList):
        type_ = type_.of_type
    if not has_object_definition(type_):
        return
    definition = type_.__strawberry_definition__
    if not definition.is_input or id(definition) in seen:
        return
    seen.add(id(definition))
    if definition.from_input is None:
        definition.from_input = _Builder(definition)
    for field in definition.fields:
        _install_in(field.resolve_type(type_definition=definition), seen)


class _Builder:
    """``from_input`` for one input type: its fields' plan, made at the first call (the schema's name
    converter and scalars are known by then), then a dict walk and the class's constructor."""

    def __init__(self, definition: StrawberryObjectDefinition) -> None:
        self.definition = definition
        self.plan: _Plan | None = None
        self.defaults: dict[str, None] = {}

    def __call__(self, cls: type, value: Mapping[str, Any], context: InputContext) -> Any:
        plan = self.plan
        if plan is None:
            plan = self._plan(context)
        kwargs: dict[str, Any] = dict(self.defaults)
        for graphql_name, python_name, convert in plan:
            if graphql_name in value:
                item = value[graphql_name]
                kwargs[python_name] = item if convert is None else convert(item, context)
        return cls(**kwargs)

    def _plan(self, context: InputContext) -> _Plan:
        definition = self.definition
        names = context.config.name_converter
        # Strawberry's implicit None for every field without a default: graphql-core has checked that
        # the required ones are present, so only the nullable ones are ever left at it.
        self.defaults = {
            f.python_name: None
            for f in definition.fields
            if f.default_value is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        plan: _Plan = []
        for f in definition.fields:
            name = names.from_field(f)
            resolved = f.resolve_type(type_definition=definition)
            plan.append((name, f.python_name, _converter(resolved, context.scalar_registry, name)))
        self.plan = plan
        return plan


def _converter(type_: Any, scalars: Mapping[object, Any], key: str | int) -> _Convert | None:
    """A converter for values of ``type_`` at ``key`` of its input; None when they pass unchanged."""
    if isinstance(type_, StrawberryMaybe):
        return _strawberry(type_, key)
    if isinstance(type_, StrawberryOptional):
        inner = _converter(type_.of_type, scalars, key)
        if inner is None:
            return None
        return lambda v, c: v if v is None or v is strawberry.UNSET else inner(v, c)
    if isinstance(type_, StrawberryList):
        item = _converter(type_.of_type, scalars, key)
        if item is None:
            # Copied: graphql-core gives the same default list to every request that omits the value.
            return lambda v, c: v if v is None or v is strawberry.UNSET else list(v)
        return lambda v, c: v if v is None or v is strawberry.UNSET else [item(x, c) for x in v]
    if (
        (is_scalar(type_, scalars) and type_ is not GlobalID)
        or isinstance(type_, StrawberryEnumDefinition)
        or has_enum_definition(type_)
    ):
        return None
    if has_object_definition(type_):
        builder = type_.__strawberry_definition__.from_input
        if isinstance(builder, _Builder):
            cls = type_
            return lambda v, c: v if v is None or v is strawberry.UNSET else builder(cls, v, c)
    return _strawberry(type_, key)


def _strawberry(type_: Any, key: str | int) -> _Convert:
    """Strawberry's own conversion, for a type this module does not plan for."""
    return lambda v, c: c.convert(v, type_, key)
