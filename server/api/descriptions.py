"""What the schema says about itself: shared phrases and enums whose every value is described.

GraphiQL's docs explorer reads these; a test fails on any type, field, argument or enum value without
one. The engine's enums live in ``server/machines`` and the services, which know nothing of GraphQL, so
their value descriptions are kept here and attached when the GraphQL enum is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, TypeVar

import strawberry
from strawberry.types.enum import StrawberryEnumDefinition

E = TypeVar("E", bound=Enum)

# Limits the services enforce (server/config.py); a value over one is VALIDATION_FAILED.
TEXT_LIMIT = "at most FLIGHTDECK_MAX_TEXT_BYTES (64 KiB by default) of UTF-8"
RESULT_LIMIT = "at most FLIGHTDECK_MAX_RESULT_BYTES (1 MiB by default)"
NAME_LIMIT = "at most 200 bytes"
PAGE_FIRST = "How many to return: at least 1, at most FLIGHTDECK_MAX_PAGE_SIZE (100 by default)."
PAGE_AFTER = "Return what comes after this cursor (an edge's `cursor` or `pageInfo.endCursor`); "
PAGE_AFTER += "omit it for the first page."

CURSOR = "Opaque position of this edge: pass it as `after` to continue from here."
EDGES = "One page of results, in the connection's order."
PAGE_INFO = "Whether there is a next page, and the cursor to ask for it."
TOTAL_COUNT = "How many items match in all pages, not only this one."
USER_ERRORS = "Why the mutation changed nothing; empty when it succeeded."

ID = "Unique identifier (a UUID), stable for the object's life; `node(id:)` refetches it."
CREATED_AT = "When it was created (UTC)."
UPDATED_AT = "When anything about it last changed (UTC)."


def edge_node(what: str) -> str:
    return f"The {what} at this position."


def user_errors() -> Any:
    """The ``userErrors`` field every payload has: business errors as data, nothing written."""
    return strawberry.field(default_factory=list, description=USER_ERRORS)


def described_enum(cls: type[E], name: str, description: str, values: Mapping[E, str]) -> type[E]:
    """``strawberry.enum`` for an enum defined outside the API, with a description for every value.

    Strawberry takes value descriptions only from ``strawberry.enum_value`` inside the class itself;
    the machines must stay free of GraphQL, so the descriptions are set on the definition it made.
    """
    missing = [member.name for member in cls if member not in values]
    if missing:
        raise ValueError(f"{name}: no description for {', '.join(missing)}")
    annotated: Any = strawberry.enum(cls, name=name, description=description)
    definition: StrawberryEnumDefinition = annotated.__strawberry_definition__
    for value in definition.values:
        value.description = values[cls(value.value)]
    return cls
