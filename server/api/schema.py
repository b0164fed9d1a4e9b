"""The root schema: domains compose here; protection is on by default."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionContext

from ..config import Settings
from ..echo import clipped
from .errors import MaskUnexpectedErrors, log_errors
from .events.queries import EventQueries
from .events.subscriptions import EventSubscriptions
from .machines.queries import MachineQueries
from .missions.mutations import MissionMutations
from .missions.queries import MissionQueries
from .missions.subscriptions import MissionSubscriptions
from .oplog import OperationLogExtension
from .plans.inbox import ReviewInboxQueries
from .plans.mutations import PlanMutations
from .plans.queries import PlanQueries
from .workflows.mutations import WorkflowMutations
from .workflows.queries import WorkflowQueries, WorkflowSubscriptions

VALIDATION_CACHE_SIZE = 512
_SUGGESTION = re.compile(r"\s*Did you mean [^?]*\?")


class HideSuggestions(SchemaExtension):
    """No "Did you mean ...?" in any error: suggestions would reveal schema names. And no error message
    longer than ``MESSAGE_LIMIT``: graphql-core repeats a variable's whole value when it cannot coerce it.

    ``disable_field_suggestions`` only covers unknown fields; graphql-core also suggests arguments,
    types, enum values and input fields, and Strawberry does not pass ``hide_suggestions`` on.
    """

    def on_operation(self) -> Iterator[None]:
        yield
        for error in getattr(self.execution_context.result, "errors", None) or []:
            error.message = clipped(_SUGGESTION.sub("", error.message))


@strawberry.type
class Query(PlanQueries, ReviewInboxQueries, MissionQueries, WorkflowQueries, EventQueries, MachineQueries):
    pass


@strawberry.type
class Mutation(PlanMutations, MissionMutations, WorkflowMutations):
    pass


@strawberry.type
class Subscription(EventSubscriptions, MissionSubscriptions, WorkflowSubscriptions):
    pass


class FlightdeckSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        log_errors(errors, execution_context)


def build_schema(settings: Settings) -> strawberry.Schema:
    # Factories: Strawberry builds fresh extensions per operation (the parse and validation caches
    # live at module level, so they survive that). The validation cache is keyed by the rule classes
    # too, and the depth and alias limiters make a new class per instance: built once here, their
    # rules stay the same objects, or every operation would miss the cache and be validated again.
    limit_rules = [
        *QueryDepthLimiter(max_depth=settings.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules,
    ]
    extensions: list[Callable[[], SchemaExtension] | type[SchemaExtension]] = [
        lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
        lambda: ParserCache(maxsize=VALIDATION_CACHE_SIZE),
        lambda: AddValidationRules(limit_rules),
        lambda: ValidationCache(maxsize=VALIDATION_CACHE_SIZE),
        MaskUnexpectedErrors,
        HideSuggestions,
        OperationLogExtension,
    ]
    return FlightdeckSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=extensions,
        config=StrawberryConfig(disable_field_suggestions=True),
    )
