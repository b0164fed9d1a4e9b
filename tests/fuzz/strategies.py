"""Hypothesis strategies for operations over the whole schema (hypothesis-graphql, plus hostile values).

Scalars are overridden so that generated operations reach past the first check: ids come mostly from
a pool of real ids (seeded, then harvested from answers) of every kind, strings mix plain text, words
the schema expects (tool names, media types, durations) and hostile strings, numbers include the
edges. Half of the operations send their arguments as variables, half as literals: the two take
different paths through graphql-core.
"""

from __future__ import annotations

import random
from typing import Any

import graphql
from hypothesis import strategies as st
from hypothesis_graphql import nodes

from .oracle import Request
from .target import kind_of

AIMED = 0.7  # the share of id arguments pointed at a real id of their kind

WORKFLOW_YAML = """\
metadata: {name: fuzz}
spec:
  steps:
    - {name: a}
    - {name: b, dependsOn: [a]}
"""
USEFUL_STRINGS = [
    "web_search",
    "fuzzer",
    "analyst",
    "text/markdown",
    "text/plain",
    "fuzz-session",
    "research",
    "a",
    "b",
    "5m",
    "30m",
    "1s",
    "confidence",
    WORKFLOW_YAML,
]
HOSTILE_STRINGS = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "\x1b[31mred\x1b[0m",
    "\u202egnp.exe",
    "\t\n\r\x0b\x0c",
    "\x7f\x01\x02",
    "'; DROP TABLE events; --",
    "x" * 201,
    "é" * 201,
    "😀" * 60,
    "x" * 70_000,
    "%s%n%x",
    "{{7*7}}${7*7}",
    "../../../etc/passwd",
    "\ufeff",
    "null",
    "NaN",
    "-Infinity",
    "1e309",
]
MALFORMED_IDS = ["", "not-an-id", "1 OR 1=1", "00000000-0000-0000-0000-00000000000g", "{}", "x" * 10_000]
FLOAT_EDGES = ["0.0", "-0.0", "1e308", "-1e308", "1e-400", "5e-324", "1e309", "-1e309", "0.5", "1.0", "1"]
INT_EDGES = [0, -1, 1, 2, 3, 100, 101, 2**31 - 1, -(2**31)]


def _weighted(*pairs: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    return st.one_of(*(s for weight, s in pairs for _ in range(weight)))


def strings() -> st.SearchStrategy[graphql.ValueNode]:
    text = st.text(st.characters(codec=None), max_size=40)
    return _weighted(
        (5, text), (4, st.sampled_from(USEFUL_STRINGS)), (2, st.sampled_from(HOSTILE_STRINGS))
    ).map(nodes.String)


def ids(pool: list[str]) -> st.SearchStrategy[graphql.ValueNode]:
    """Mostly real ids of any kind (so of the wrong kind, too), then random and malformed ones."""
    from_pool = st.integers(min_value=0, max_value=10**9).map(lambda i: pool[i % len(pool)] if pool else "")
    return _weighted(
        (8, from_pool.map(nodes.String)),
        (1, st.uuids().map(lambda u: nodes.String(str(u)))),
        (1, st.sampled_from(MALFORMED_IDS).map(nodes.String)),
        (1, st.integers().map(nodes.Int)),
    )


def floats() -> st.SearchStrategy[graphql.ValueNode]:
    return _weighted(
        (3, st.floats(allow_nan=False, allow_infinity=False).map(nodes.Float)),
        (2, st.floats(min_value=0, max_value=1).map(nodes.Float)),
        (2, st.sampled_from(FLOAT_EDGES).map(lambda v: graphql.FloatValueNode(value=v))),
    )


def ints() -> st.SearchStrategy[graphql.ValueNode]:
    return _weighted(
        (2, st.integers(min_value=-(2**31), max_value=2**31 - 1).map(nodes.Int)),
        (2, st.sampled_from(INT_EDGES).map(nodes.Int)),
    )


def _json_node(value: Any) -> graphql.ValueNode:
    if value is None:
        return nodes.Null
    if isinstance(value, bool):
        return nodes.Boolean(value)
    if isinstance(value, int):
        return nodes.Int(value)
    if isinstance(value, float):
        return nodes.Float(value)
    if isinstance(value, str):
        return nodes.String(value)
    if isinstance(value, list):
        return nodes.List([_json_node(v) for v in value])
    fields = [
        graphql.ObjectFieldNode(name=graphql.NameNode(value=k), value=_json_node(v)) for k, v in value.items()
    ]
    return nodes.Object(fields)


def _nested(depth: int) -> graphql.ValueNode:
    node: graphql.ValueNode = nodes.Int(1)
    for _ in range(depth):
        node = nodes.List([node])
    return node


SEARCH_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
JSON_SAMPLES = [
    {"query": "lithium"},
    SEARCH_SCHEMA,
    {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10}}},
    {"type": "string", "pattern": "^[a-z]+$", "maxLength": 20},
    {"$ref": "#/definitions/nope"},
    {"type": "object", "additionalProperties": False},
    {},
    [],
]


def json_values() -> st.SearchStrategy[graphql.ValueNode]:
    names = st.text(st.characters(codec=None), max_size=8)
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),  # JSON ints are not bound to 32 bits: huge ones included
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(st.characters(codec=None), max_size=20),
    )
    trees = st.recursive(
        leaves,
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(names, kids, max_size=4),
        max_leaves=12,
    )
    return _weighted(
        (4, trees.map(_json_node)),
        (3, st.sampled_from(JSON_SAMPLES).map(_json_node)),
        (1, st.sampled_from(["1e309", "-1e309"]).map(lambda v: graphql.FloatValueNode(value=v))),
        (1, st.sampled_from([100, 300]).map(_nested)),
    )


def datetimes() -> st.SearchStrategy[graphql.ValueNode]:
    return st.one_of(
        st.datetimes().map(lambda d: nodes.String(d.isoformat() + "Z")),
        st.sampled_from(["", "yesterday", "9999-12-31T23:59:59Z"]).map(nodes.String),
    )


def scalars(pool: list[str]) -> dict[str, st.SearchStrategy[graphql.ValueNode]]:
    return {
        "ID": ids(pool),
        "String": strings(),
        "Float": floats(),
        "Int": ints(),
        "JSON": json_values(),
        "DateTime": datetimes(),
    }


def keep(document: graphql.DocumentNode) -> graphql.DocumentNode:
    """``print_ast`` for hypothesis-graphql: keep the document (it is printed after hoisting)."""
    return document


class _AimIds(graphql.Visitor):
    """Points most id arguments (``planId: ...``, ``hopId: ...``) at a real id of their own kind."""

    def __init__(self, ids_by_kind: dict[str, list[str]], rnd: random.Random) -> None:
        super().__init__()
        self.ids_by_kind = ids_by_kind
        self.rnd = rnd

    def _aimed(self, name: str, value: graphql.ValueNode) -> graphql.ValueNode | None:
        pool = self.ids_by_kind.get(kind_of(name) or "") if name.endswith("Id") else None
        if not pool or not isinstance(value, graphql.StringValueNode | graphql.IntValueNode):
            return None
        if self.rnd.random() >= AIMED:
            return None
        return nodes.String(self.rnd.choice(pool))

    def enter_argument(self, node: graphql.ArgumentNode, *_: Any) -> graphql.ArgumentNode | None:
        value = self._aimed(node.name.value, node.value)
        return None if value is None else graphql.ArgumentNode(name=node.name, value=value)

    def enter_object_field(self, node: graphql.ObjectFieldNode, *_: Any) -> graphql.ObjectFieldNode | None:
        value = self._aimed(node.name.value, node.value)
        return None if value is None else graphql.ObjectFieldNode(name=node.name, value=value)


def aim_ids(
    document: graphql.DocumentNode, ids_by_kind: dict[str, list[str]], rnd: random.Random
) -> graphql.DocumentNode:
    aimed: graphql.DocumentNode = graphql.visit(document, _AimIds(ids_by_kind, rnd))
    return aimed


def root_field(document: graphql.DocumentNode) -> str:
    (operation,) = document.definitions
    assert isinstance(operation, graphql.OperationDefinitionNode)
    names = [s.name.value for s in operation.selection_set.selections if isinstance(s, graphql.FieldNode)]
    return ",".join(names)


def as_request(
    schema: graphql.GraphQLSchema,
    kind: str,
    document: graphql.DocumentNode,
    hoist: bool,
    who: str,
) -> Request:
    """The document as literals, or with its root fields' arguments moved into variables."""
    label = root_field(document)
    document = _with_user_errors(schema, document)
    variables: dict[str, Any] = {}
    if hoist:
        document, variables = _hoist(schema, document)
    return Request(label, kind, graphql.print_ast(document), variables, who)


_USER_ERRORS = (
    graphql.parse("{ userErrors { code field message } }").definitions[0].selection_set.selections[0]
)  # type: ignore[attr-defined]


def _with_user_errors(schema: graphql.GraphQLSchema, document: graphql.DocumentNode) -> graphql.DocumentNode:
    """Every payload selects its userErrors: a refusal that did not ask for them would pass for success."""
    (operation,) = document.definitions
    assert isinstance(operation, graphql.OperationDefinitionNode)
    root = schema.get_root_type(operation.operation)
    selections = []
    for selection in operation.selection_set.selections:
        field = (
            root.fields.get(selection.name.value)
            if root and isinstance(selection, graphql.FieldNode)
            else None
        )
        payload = graphql.get_named_type(field.type) if field else None
        if (
            isinstance(selection, graphql.FieldNode)
            and selection.selection_set is not None
            and isinstance(payload, graphql.GraphQLObjectType)
            and "userErrors" in payload.fields
        ):
            kept = [
                s
                for s in selection.selection_set.selections
                if getattr(s, "name", None) is None or s.name.value != "userErrors"
            ]  # type: ignore[attr-defined]
            selection = graphql.FieldNode(
                alias=selection.alias,
                name=selection.name,
                arguments=selection.arguments,
                directives=selection.directives,
                selection_set=graphql.SelectionSetNode(selections=(*kept, _USER_ERRORS)),
            )
        selections.append(selection)
    replaced = graphql.OperationDefinitionNode(
        operation=operation.operation,
        name=operation.name,
        variable_definitions=operation.variable_definitions,
        directives=operation.directives,
        selection_set=graphql.SelectionSetNode(selections=tuple(selections)),
    )
    return graphql.DocumentNode(definitions=(replaced,))


def _hoist(
    schema: graphql.GraphQLSchema, document: graphql.DocumentNode
) -> tuple[graphql.DocumentNode, dict[str, Any]]:
    (operation,) = document.definitions
    assert isinstance(operation, graphql.OperationDefinitionNode)
    root = schema.get_root_type(operation.operation)
    assert root is not None
    definitions: list[graphql.VariableDefinitionNode] = []
    variables: dict[str, Any] = {}
    selections = []
    for i, selection in enumerate(operation.selection_set.selections):
        assert isinstance(selection, graphql.FieldNode)
        field = root.fields.get(selection.name.value)
        arguments = []
        for argument in selection.arguments or ():
            spec = field.args.get(argument.name.value) if field else None
            if spec is None:  # an unknown argument (negative mode): leave it as it is
                arguments.append(argument)
                continue
            name = f"v{i}_{argument.name.value}"
            variables[name] = graphql.value_from_ast_untyped(argument.value)
            definitions.append(
                graphql.VariableDefinitionNode(
                    variable=graphql.VariableNode(name=graphql.NameNode(value=name)),
                    type=graphql.parse_type(str(spec.type)),
                )
            )
            arguments.append(
                graphql.ArgumentNode(
                    name=argument.name, value=graphql.VariableNode(name=graphql.NameNode(value=name))
                )
            )
        selections.append(
            graphql.FieldNode(
                alias=selection.alias,
                name=selection.name,
                arguments=tuple(arguments),
                directives=selection.directives,
                selection_set=selection.selection_set,
            )
        )
    hoisted = graphql.OperationDefinitionNode(
        operation=operation.operation,
        name=operation.name,
        variable_definitions=tuple(definitions),
        directives=operation.directives,
        selection_set=graphql.SelectionSetNode(selections=tuple(selections)),
    )
    return graphql.DocumentNode(definitions=(hoisted,)), variables
