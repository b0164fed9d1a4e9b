"""The root schema: domains compose here; protection is on by default."""

from __future__ import annotations

import functools

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaxAliasesLimiter, QueryDepthLimiter
from strawberry.scalars import JSON
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionContext

from ..config import Settings
from . import input_builders
from .bulk_decisions import BulkDecisionMutations
from .counts import CountQueries
from .decisions.resolvers import DecisionMutations, DecisionQueries
from .errors import log_errors
from .events.queries import EventQueries
from .events.subscriptions import EventSubscriptions
from .input_check import check_every_argument
from .machines.queries import MachineQueries
from .mcp_log_queries import McpToolCallLogQueries
from .missions.mutations import MissionMutations
from .missions.queries import MissionQueries
from .missions.subscriptions import MissionSubscriptions
from .node_queries import NODE_TYPES, NodeQueries
from .operation_hooks import hooks_factory
from .oplog_queries import OperationLogQueries
from .plans.inbox import ReviewInboxQueries
from .plans.mutations import PlanMutations
from .plans.queries import PlanQueries
from .webhooks.resolvers import WebhookMutations, WebhookQueries
from .wire_json import JSON_SCALAR
from .workflows.mutations import WorkflowMutations
from .workflows.queries import WorkflowQueries, WorkflowSubscriptions
from .workflows.subscriptions import WorkSubscriptions


@strawberry.type(
    description="Reads. Everything is scoped to your API key's tenant: another tenant's objects are "
    "null or absent, as if they did not exist."
)
class Query(
    PlanQueries,
    ReviewInboxQueries,
    MissionQueries,
    WorkflowQueries,
    EventQueries,
    MachineQueries,
    OperationLogQueries,
    WebhookQueries,
    McpToolCallLogQueries,
    NodeQueries,
    DecisionQueries,
    CountQueries,
):
    pass


@strawberry.type(
    description="Changes. Each runs in one transaction: business errors come back as `userErrors` and "
    "then nothing was written. Agent keys drive work, reviewer keys decide, admin keys do both; viewer "
    "keys only read (a forbidden call is a FORBIDDEN error)."
)
class Mutation(
    PlanMutations,
    MissionMutations,
    WorkflowMutations,
    DecisionMutations,
    WebhookMutations,
    BulkDecisionMutations,
):
    pass


@strawberry.type(
    description="Streams over WebSocket (graphql-transport-ws), scoped to your tenant. Event streams "
    "resume without gaps from the last seq you saw."
)
class Subscription(EventSubscriptions, MissionSubscriptions, WorkflowSubscriptions, WorkSubscriptions):
    pass


check_every_argument(Query, Mutation, Subscription)
input_builders.install((Query, Mutation, Subscription))


class FlightdeckSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        log_errors(errors, execution_context)


def build_schema(settings: Settings) -> strawberry.Schema:
    return _schema(settings.max_tokens, settings.max_query_depth, settings.max_aliases)


# Building the schema is ~0.1 s of CPU and depends on these three settings only; a process that creates
# several applications (tests, one per server) shares it. It holds no per-application state: the
# runtime reaches resolvers through the request context.
@functools.lru_cache(maxsize=4)
def _schema(max_tokens: int, max_depth: int, max_aliases: int) -> strawberry.Schema:
    # One extension for every per-operation hook (operation_hooks.py), built by a factory per operation
    # (Strawberry's rule: no state shared between operations). The validation cache is keyed by the
    # rule classes too, and the depth and alias limiters make a new class per instance: built once
    # here, their rules stay the same objects, or every operation would miss the cache.
    limit_rules = [
        *QueryDepthLimiter(max_depth=max_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=max_aliases).validation_rules,
    ]
    return FlightdeckSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=NODE_TYPES,
        extensions=[hooks_factory(max_tokens, limit_rules)],
        config=StrawberryConfig(
            disable_field_suggestions=True, name_converter=input_builders.CachedNameConverter()
        ),
        scalar_overrides={JSON: JSON_SCALAR},
    )
