"""Every per-operation hook of the schema in one Strawberry extension.

The schema used to register seven extensions (the token limit, the parser cache, the depth and alias
rules, the validation cache, error masking, hidden suggestions, the operation log). Strawberry builds
each one per operation and, for each of its four stages, looks up every extension's hook and wraps it
in a context manager: that machinery, not the work the hooks do, was most of their cost. One extension
does the same work in the same order with one object and one hook (see
docs/decisions/0033-per-request-costs.md, 0060-operation-lines-and-one-hook.md).

What each part does is unchanged:

- **Token limit**: graphql-core's parser stops at ``max_tokens`` (``parse_options``), as Strawberry's
  ``MaxTokensLimiter`` set it.
- **Parse and validation caches**: bounded LRU caches shared by every operation of the process, as
  Strawberry's ``ParserCache`` and ``ValidationCache`` kept them. A document over the token limit raises
  and is not cached; the validation key is the document's text, its parse options, the schema and the
  rules.
- **Depth and alias limits**: their validation rules are added to every operation's.
- **Errors**: an unexpected error becomes "Unexpected error." with the request id; any other loses
  graphql-core's "Did you mean ...?" and is clipped to ``MESSAGE_LIMIT``.
- **Operation log**: one metrics sample and one log record per operation (``log_operation``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema, parse
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from ..echo import clipped
from ..metrics import record_user_errors
from ..request_id import current_request_id
from .errors import UNEXPECTED_ERROR, should_mask_error
from .oplog import log_operation, user_error_codes
from .strawberry_internals import graphql_core_schema

CACHE_SIZE = 512  # parsed and validated documents kept, each cache
_SUGGESTION = re.compile(r"\s*Did you mean [^?]*\?")

cached_parse: Callable[..., DocumentNode] = lru_cache(maxsize=CACHE_SIZE)(parse)


@lru_cache(maxsize=CACHE_SIZE)
def cached_validate(
    schema: GraphQLSchema, query: str, options: tuple[tuple[str, Any], ...], rules: tuple[Any, ...]
) -> list[GraphQLError]:
    """The validation errors of ``query`` as parsed with ``options``.

    Keyed by the query's text, not its parsed document: a document's hash walks its whole tree on every
    lookup (the nodes are hashed by value), a string's is computed once and kept by the string.
    """
    return validate_document(schema, cached_parse(query, **dict(options)), rules)


def masked(error: GraphQLError) -> GraphQLError:
    """What the client sees of an unexpected error: no message, no cause, the request id to quote."""
    return GraphQLError(
        message=UNEXPECTED_ERROR,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions={"requestId": current_request_id() or "-"},
    )


def shown_errors(errors: list[GraphQLError]) -> list[GraphQLError]:
    """The errors as they leave the server: unexpected ones masked, the others without suggestions
    (they would reveal schema names) and clipped (graphql-core repeats a variable's whole value when
    it cannot coerce it). ``disable_field_suggestions`` only covers unknown fields; graphql-core also
    suggests arguments, types, enum values and input fields."""
    shown: list[GraphQLError] = []
    for error in errors:
        if should_mask_error(error):
            shown.append(masked(error))
        else:
            error.message = clipped(_SUGGESTION.sub("", error.message))
            shown.append(error)
    return shown


class OperationHooks(SchemaExtension):
    """Built per operation by ``hooks_factory``; holds nothing but the limits it was given."""

    def __init__(self, max_tokens: int, rules: tuple[type[ASTValidationRule], ...]) -> None:
        self.max_tokens = max_tokens
        self.rules = rules

    def on_operation(self) -> Iterator[None]:
        ctx = self.execution_context
        started = time.perf_counter()
        ctx.parse_options["max_tokens"] = self.max_tokens
        ctx.validation_rules = ctx.validation_rules + self.rules
        # Parsed and validated here, through the caches, rather than in on_parse and on_validate
        # hooks: Strawberry builds and enters a context manager per hook per operation, which cost
        # more than the cached lookups. Strawberry skips its own parse when the document is set and
        # its own validation when the errors are; it still checks the operation type in between.
        if ctx.query and ctx.graphql_document is None:
            try:
                ctx.graphql_document = cached_parse(ctx.query, **ctx.parse_options)
            except GraphQLError:
                pass  # Strawberry's own parse, with the same options, reports it
            else:
                ctx.pre_execution_errors = cached_validate(
                    graphql_core_schema(ctx.schema),
                    ctx.query,
                    tuple(sorted(ctx.parse_options.items())),
                    tuple(ctx.validation_rules),
                )
        yield
        result = ctx.result
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = shown_errors(errors)  # type: ignore[union-attr]
        codes = user_error_codes(getattr(result, "data", None))
        outcome = "error" if errors else "user_error" if codes else "ok"
        # A document that did not parse has no operation type (Strawberry's property raises).
        op_type = ctx.operation_type.value if ctx.graphql_document is not None else "unknown"
        record_user_errors(codes)
        log_operation(ctx.context, ctx.operation_name, op_type, started, outcome, ctx.graphql_document)


def hooks_factory(max_tokens: int, rules: list[type[ASTValidationRule]]) -> Callable[[], OperationHooks]:
    frozen = tuple(rules)

    def build() -> OperationHooks:
        return OperationHooks(max_tokens, frozen)

    return build


__all__ = ["CACHE_SIZE", "OperationHooks", "hooks_factory", "masked", "shown_errors"]
