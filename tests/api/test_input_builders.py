"""Every input type of the schema builds the same object through its planned builder as through
Strawberry's own conversion (server/api/input_builders.py)."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import strawberry
from strawberry.scalars import JSON
from strawberry.types.arguments import convert_argument
from strawberry.types.base import StrawberryList, StrawberryObjectDefinition, StrawberryOptional
from strawberry.types.enum import StrawberryEnumDefinition

from server.api import input_builders
from server.api.schema import Mutation, Query, Subscription, _schema
from server.config import Settings


def _input_definitions() -> list[StrawberryObjectDefinition]:
    found: dict[int, StrawberryObjectDefinition] = {}

    def visit(type_: Any) -> None:
        while isinstance(type_, StrawberryOptional | StrawberryList):
            type_ = type_.of_type
        definition = getattr(type_, "__strawberry_definition__", None)
        if not isinstance(definition, StrawberryObjectDefinition) or not definition.is_input:
            return
        if id(definition) in found:
            return
        found[id(definition)] = definition
        for f in definition.fields:
            visit(f.resolve_type(type_definition=definition))

    for root in (Query, Mutation, Subscription):
        for field in root.__strawberry_definition__.fields:  # type: ignore[attr-defined]
            for argument in field.arguments:
                visit(argument.type)
    return list(found.values())


INPUTS = _input_definitions()


def _graphql_name(definition_field: Any) -> str:
    return input_builders.CachedNameConverter().from_field(definition_field)


def _sample(type_: Any, full: bool, depth: int = 0) -> Any:
    """A value of ``type_`` as graphql-core hands it to a resolver: ``full`` fills every optional field."""
    if isinstance(type_, StrawberryOptional):
        return _sample(type_.of_type, full, depth) if full else None
    if isinstance(type_, StrawberryList):
        return [_sample(type_.of_type, full, depth), _sample(type_.of_type, full, depth)]
    if type_ is JSON:
        return {"key": [1, "two", None], "nested": {"x": 0.5}}
    if type_ is strawberry.ID:
        return "01J0000000000000000000000A"
    if type_ is bool:
        return True
    if type_ is int:
        return 7
    if type_ is float:
        return 0.25
    if type_ is str:
        return "text"
    if type_ is datetime.datetime:
        return datetime.datetime(2026, 12, 1, 12, 30, tzinfo=datetime.UTC)
    if isinstance(type_, StrawberryEnumDefinition):
        return list(type_.wrapped_cls)[-1]
    definition = getattr(type_, "__strawberry_definition__", None)
    if isinstance(definition, StrawberryObjectDefinition) and definition.is_input and depth < 4:
        return _raw_input(definition, full, depth + 1)
    raise AssertionError(f"no sample for {type_!r}: add one")


def _raw_input(definition: StrawberryObjectDefinition, full: bool, depth: int = 0) -> dict[str, Any]:
    value = {}
    for f in definition.fields:
        resolved = f.resolve_type(type_definition=definition)
        required = not isinstance(resolved, StrawberryOptional)
        if required or full:
            value[_graphql_name(f)] = _sample(resolved, full, depth)
    return value


@contextmanager
def _strawberry_only() -> Iterator[None]:
    """Strawberry's own conversion: every planned builder taken off for the block."""
    saved = {id(d): d.from_input for d in INPUTS}
    for d in INPUTS:
        if isinstance(d.from_input, input_builders._Builder):
            d.from_input = None
    try:
        yield
    finally:
        for d in INPUTS:
            d.from_input = saved[id(d)]


def _registry() -> Any:
    settings = Settings()
    schema = _schema(settings.max_tokens, settings.max_query_depth, settings.max_aliases)
    return schema.schema_converter.scalar_registry, schema.config  # type: ignore[attr-defined]


def _convert(definition: StrawberryObjectDefinition, value: Any) -> Any:
    registry, config = _registry()
    return convert_argument(value, definition.origin, registry, config)


def test_every_input_type_has_a_planned_builder() -> None:
    assert len(INPUTS) >= 20
    missing = [d.name for d in INPUTS if not isinstance(d.from_input, input_builders._Builder)]
    assert missing == []


@pytest.mark.parametrize("full", [True, False], ids=["every-field", "required-only"])
@pytest.mark.parametrize("definition", INPUTS, ids=[d.name for d in INPUTS])
def test_the_builder_builds_what_strawberry_builds(
    definition: StrawberryObjectDefinition, full: bool
) -> None:
    raw = _raw_input(definition, full)
    ours = _convert(definition, raw)
    with _strawberry_only():
        theirs = _convert(definition, raw)
    assert type(ours) is type(theirs) is definition.origin
    assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
    # Every field is set, with the same types (an enum stays an enum, a nested input its class).
    for f in dataclasses.fields(ours):
        assert type(getattr(ours, f.name)) is type(getattr(theirs, f.name)), f.name


@strawberry.input
class Item:
    name: str


@strawberry.input
class Holder:
    tags: list[str]
    items: list[Item]
    note: str | None  # no default: Strawberry's implicit None when the value leaves it out
    maybe_tags: list[str] | None = strawberry.UNSET


@strawberry.type
class _HolderQuery:
    @strawberry.field
    def echo(self, holder: Holder) -> str:
        return ""


def test_lists_are_copies_unset_stays_unset_and_a_left_out_nullable_is_none() -> None:
    input_builders.install([_HolderQuery])
    assert isinstance(Item.__strawberry_definition__.from_input, input_builders._Builder)  # type: ignore[attr-defined]
    tags = ["a", "b"]
    registry, config = _registry()
    built = convert_argument({"tags": tags, "items": [{"name": "x"}]}, Holder, registry, config)
    assert built.tags == tags
    assert built.tags is not tags
    assert built.items == [Item(name="x")]
    assert isinstance(built.items[0], Item)
    assert built.maybe_tags is strawberry.UNSET
    assert built.note is None


def test_the_name_converter_names_as_strawberrys() -> None:
    plain = strawberry.schema.name_converter.NameConverter()
    cached = input_builders.CachedNameConverter()
    for name in ("step_id", "result_data", "x", "a_b_c_d", "already", "_private", "with__double"):
        assert cached.apply_naming_config(name) == plain.apply_naming_config(name)
        assert cached.apply_naming_config(name) == plain.apply_naming_config(name)  # a cached answer


def test_strawberry_calls_the_builder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook is what Strawberry's conversion calls (a Strawberry that stopped would fall back to its
    own conversion silently, correct but slow again)."""
    definition = next(d for d in INPUTS if d.name == "SubmitStepResultInput")
    builder = definition.from_input
    assert isinstance(builder, input_builders._Builder)
    calls = []

    def counting(cls: type, value: Any, context: Any) -> Any:
        calls.append(value)
        return builder(cls, value, context)

    monkeypatch.setattr(definition, "from_input", counting)
    raw = _raw_input(definition, full=False)
    built = _convert(definition, raw)
    assert calls == [raw]
    assert built.step_id == raw["stepId"]
