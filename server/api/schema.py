"""The root schema: domains compose here; protection is on by default."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import strawberry
from strawberry.extensions import (
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig

from ..config import Settings
from .errors import should_mask_error
from .events.queries import EventQueries
from .events.subscriptions import EventSubscriptions
from .missions.mutations import MissionMutations
from .missions.queries import MissionQueries
from .missions.subscriptions import MissionSubscriptions
from .oplog import OperationLogExtension
from .plans.mutations import PlanMutations
from .plans.queries import PlanQueries

_SUGGESTION = re.compile(r"\s*Did you mean [^?]*\?")


class HideSuggestions(SchemaExtension):
    """No "Did you mean ...?" in any error: suggestions would reveal schema names.

    ``disable_field_suggestions`` only covers unknown fields; graphql-core also suggests arguments,
    types, enum values and input fields, and Strawberry does not pass ``hide_suggestions`` on.
    """

    def on_operation(self) -> Iterator[None]:
        yield
        for error in getattr(self.execution_context.result, "errors", None) or []:
            error.message = _SUGGESTION.sub("", error.message)


@strawberry.type
class Query(PlanQueries, EventQueries, MissionQueries):
    pass


@strawberry.type
class Mutation(PlanMutations, MissionMutations):
    pass


@strawberry.type
class Subscription(EventSubscriptions, MissionSubscriptions):
    pass


def build_schema(settings: Settings) -> strawberry.Schema:
    # Factories: Strawberry builds fresh extensions per operation (the parse and validation caches
    # live at module level, so they survive that).
    extensions: list[Callable[[], SchemaExtension] | type[SchemaExtension]] = [
        lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
        lambda: ParserCache(maxsize=512),
        lambda: QueryDepthLimiter(max_depth=settings.max_query_depth),
        lambda: MaxAliasesLimiter(max_alias_count=settings.max_aliases),
        lambda: ValidationCache(maxsize=512),
        lambda: MaskErrors(should_mask_error=should_mask_error),
        HideSuggestions,
        OperationLogExtension,
    ]
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=extensions,
        config=StrawberryConfig(disable_field_suggestions=True),
    )
