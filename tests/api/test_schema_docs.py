"""The schema documents itself: every type, field, argument, input field and enum value has a description.

GraphiQL's docs explorer is where GraphQL users read the API; an undocumented name there is a gap.
Only graphql's own introspection types and the built-in scalars are exempt.
"""

from __future__ import annotations

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    introspection_types,
    specified_scalar_types,
)

from server.api.schema import build_schema
from server.config import Settings

EXEMPT = set(introspection_types) | set(specified_scalar_types)


def _blank(description: str | None) -> bool:
    return description is None or not description.strip()


def undocumented(schema: GraphQLSchema) -> list[str]:
    """Every coordinate (``Type``, ``Type.field``, ``Type.field(arg:)``, ``Enum.VALUE``) without one."""
    missing: list[str] = []
    for name, named in sorted(schema.type_map.items()):
        if name in EXEMPT:
            continue
        missing += _undocumented_type(named)
    return missing


def _undocumented_type(named: GraphQLNamedType) -> list[str]:
    missing = [named.name] if _blank(named.description) else []
    if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
        for field_name, field in named.fields.items():
            if _blank(field.description):
                missing.append(f"{named.name}.{field_name}")
            missing += [
                f"{named.name}.{field_name}({arg_name}:)"
                for arg_name, arg in field.args.items()
                if _blank(arg.description)
            ]
    elif isinstance(named, GraphQLInputObjectType):
        missing += [f"{named.name}.{n}" for n, f in named.fields.items() if _blank(f.description)]
    elif isinstance(named, GraphQLEnumType):
        missing += [f"{named.name}.{n}" for n, v in named.values.items() if _blank(v.description)]
    elif isinstance(named, GraphQLUnionType):
        pass  # a union has no members of its own to describe beyond its name
    return missing


def test_every_type_field_argument_and_enum_value_has_a_description() -> None:
    missing = undocumented(build_schema(Settings())._schema)
    assert not missing, f"{len(missing)} schema elements have no description:\n" + "\n".join(missing)


def test_the_check_sees_an_undocumented_field_argument_and_enum_value() -> None:
    # The walk itself must be able to fail: a schema with gaps of every kind is reported in full.
    from graphql import build_schema as parse_sdl

    sdl = '''
        """Documented."""
        type Query {
          """Documented."""
          thing(limit: Int): Thing
        }
        type Thing { id: ID! }
        input Filter { name: String }
        enum Color { RED }
        """  """
        scalar Blank
    '''
    found = undocumented(parse_sdl(sdl))
    assert found == [
        "Blank",
        "Color",
        "Color.RED",
        "Filter",
        "Filter.name",
        "Query.thing(limit:)",
        "Thing",
        "Thing.id",
    ]
