"""Shared work for event subscriptions: each distinct subscription renders each event once.

Strawberry executes a subscription's selection set once per subscriber per event, then encodes it once
per subscriber, and wakes every subscriber's generator for every event. With a thousand dashboards on
the same stream that is a thousand identical executions per event. Subscriptions to ``events`` and
``stallAlerts`` that select the same fields with the same filter (and tenant) have the same answer for
the same event, because events are immutable, whatever position each started from: they form a group
(``fanout_group.py``) whose driver renders each event once and writes the bytes to every member.

Only well-formed documents that validate take this path; anything else (errors included) goes through
Strawberry's own handler unchanged, so error reporting stays Strawberry's.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterable, Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    Node,
    OperationDefinitionNode,
    OperationType,
    Visitor,
    parse,
    print_ast,
    specified_rules,
    validate,
    visit,
)
from graphql.execution import Executor, create_source_event_stream, execute_subscription_event
from strawberry import Schema
from strawberry.extensions import MaxAliasesLimiter, QueryDepthLimiter
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler

from ..api import wire_json
from ..api.context import Context
from ..api.errors import should_mask_error, truncated_error
from ..api.events.streams import FeedStream
from ..api.oplog import log_operation
from ..api.revocation import ClosesOnRevocation
from ..api.strawberry_internals import graphql_core_schema, websocket_scope, websocket_send_text
from ..config import Settings
from ..metrics import SUBSCRIPTIONS, WEBSOCKETS
from ..services.retention.truncation import HistoryTruncated
from .fanout_group import Group, Member, run_member
from .feed import LoggedEvent
from .frames import Disconnected, frame_writer

SHARED_FIELDS = frozenset({"events", "stallAlerts"})


@dataclass(frozen=True)
class Prepared:
    key: str  # equal for subscriptions that render every event alike: they share a group
    name: str | None
    stream: FeedStream
    schema: GraphQLSchema
    document: DocumentNode
    operation_name: str | None
    variables: dict[str, Any] | None
    context: Context
    # For an ``events`` selection of plain Event fields: how to write the payload's JSON text without
    # graphql-core (a replay renders every event of the log; executing each cost ~100 us).
    projection: Callable[[Any], str] | None = None

    def event_executor(self, payload: Any) -> Executor[Context] | list[GraphQLError]:
        """A new executor for one event.

        Not ``build_per_event_executor``: its copies share the parent's memo of collected sub-fields,
        keyed by the identity of lists made anew for every event, so a group's long-lived executor
        grew by one entry per rendered event and held them all.
        """
        return Executor.build(
            self.schema,
            self.document,
            root_value=payload,
            context_value=self.context,
            raw_variable_values=self.variables,
            operation_name=self.operation_name,
            hide_suggestions=True,
        )


class Fanout:
    def __init__(self, schema: Schema, settings: Settings) -> None:
        self.schema = schema
        self.settings = settings
        self._rules = [
            *specified_rules,
            *QueryDepthLimiter(max_depth=settings.max_query_depth).validation_rules,
            *MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules,
        ]
        self._rendered: OrderedDict[tuple[str, int], str] = OrderedDict()
        # Renders are kept for members catching up from the feed's ring, so no more than it holds.
        self._cache_size = settings.feed_ring_size
        self.renders = 0
        self.sends = 0
        self._document = lru_cache(maxsize=512)(self._parse_and_validate)
        self.groups: dict[str, Group] = {}

    def _parse_and_validate(self, query: str) -> DocumentNode | None:
        try:
            document = parse(query, max_tokens=self.settings.max_tokens)
        except GraphQLError:
            return None
        if validate(graphql_core_schema(self.schema), document, self._rules):
            return None
        return document

    def root_field(self, query: str, operation_name: str | None) -> str:
        """The subscription's root field (``events``, ``workflowUpdated``, ...), or ``invalid``."""
        document = self._document(query)
        if document is None:
            return "invalid"
        for definition in document.definitions:
            if isinstance(definition, OperationDefinitionNode) and (
                operation_name is None or (definition.name and definition.name.value == operation_name)
            ):
                for selection in definition.selection_set.selections:
                    if isinstance(selection, FieldNode):
                        return selection.name.value
        return "invalid"

    async def prepare(
        self, query: str, variables: dict[str, Any] | None, operation_name: str | None, context: Context
    ) -> Prepared | None:
        """The shared path for this operation, or None to leave it to Strawberry."""
        document = self._document(query)
        operation = _shared_subscription(document, operation_name) if document is not None else None
        if document is None or operation is None:
            return None
        executor = Executor.build(
            graphql_core_schema(self.schema),
            document,
            context_value=context,
            raw_variable_values=variables,
            operation_name=operation_name,
            hide_suggestions=True,
        )
        if isinstance(executor, list):
            return None
        stream = create_source_event_stream(executor)
        if not isinstance(stream, AsyncIterable):
            stream = await stream  # type: ignore[misc]
        if not isinstance(stream, FeedStream):
            if isinstance(stream, AsyncIterable) and hasattr(stream, "aclose"):
                await stream.aclose()
            return None
        # What decides the rendering of an event: the tenant, which events (field and filter) and the
        # fields selected under what response key; not where the subscriber starts.
        field = operation.selection_set.selections[0]
        assert isinstance(field, FieldNode)
        response_key = field.alias.value if field.alias else field.name.value
        selected = print_ast(field.selection_set) if field.selection_set else ""
        key = json.dumps([stream.tenant_id, stream.identity, response_key, selected], default=str)
        name = operation.name.value if operation.name else None
        projected = _projection(field) if stream.accepts is not None else None
        return Prepared(
            key,
            name,
            stream,
            graphql_core_schema(self.schema),
            document,
            operation_name,
            variables,
            context,
            projected,
        )

    def acquire_group(self, prepared: Prepared) -> Group:
        group = self.groups.get(prepared.key)
        if group is None or not group.alive:
            group = self.groups[prepared.key] = Group(self, prepared)
        group.refs += 1
        return group

    def release_group(self, group: Group, member: Member) -> None:
        if group.leave(member):
            if self.groups.get(group.prepared.key) is group:
                del self.groups[group.prepared.key]
            group.task.cancel()

    async def render(self, prepared: Prepared, payload: Any) -> str:
        """The encoded ``payload`` part of a ``next`` message for this event, made once per key."""
        cache_key = (prepared.key, int(payload.seq))
        text = self._rendered.get(cache_key)
        if text is not None:
            return text
        if prepared.projection is not None:
            text = prepared.projection(payload)
        else:
            executor = prepared.event_executor(payload)
            if isinstance(executor, list):  # cannot happen: the same arguments built the stream's executor
                raise executor[0]
            result = execute_subscription_event(executor)
            if not isinstance(result, ExecutionResult):
                result = await result  # type: ignore[misc]
            body: dict[str, Any] = {"data": result.data}
            if result.errors:
                body["errors"] = [_masked(e).formatted for e in result.errors]
            text = wire_json.dumps(body, default=str)
        self.renders += 1
        self._rendered[cache_key] = text
        if len(self._rendered) > self._cache_size:
            self._rendered.popitem(last=False)
        return text

    async def render_batch(
        self, prepared: Prepared, events: Sequence[LoggedEvent]
    ) -> list[tuple[LoggedEvent, str]]:
        """Each of ``events`` the subscription delivers, in order, with its rendered payload."""
        rendered: list[tuple[LoggedEvent, str]] = []
        stream = prepared.stream
        if prepared.projection is not None and stream.accepts is not None:
            # Straight from the logged event: no GraphQL object is built for it.
            accepts = stream.accepts
            for event in events:
                if accepts(event):
                    rendered.append((event, await self.render(prepared, event)))
            return rendered
        for event in events:
            payload = stream.select(event)
            if payload is not None:
                rendered.append((event, await self.render(prepared, payload)))
        return rendered


# Every field of Event and how GraphQL serializes it from an event, as JSON text: IDs as strings, DateTime
# as ISO 8601 (Strawberry's serializer), JSON as it is; strings ASCII-escaped as json.dumps writes them.
# A test renders each both ways and compares the bytes.
_ascii = json.encoder.encode_basestring_ascii


def _string(value: str | None) -> str:
    return "null" if value is None else _ascii(value)


_EVENT_FIELDS: dict[str, Callable[[Any], str]] = {
    "__typename": lambda e: '"Event"',
    "seq": lambda e: str(int(e.seq)),
    "kind": lambda e: _string(e.kind),
    "entityType": lambda e: _string(e.entity_type),
    "entityId": lambda e: _ascii(str(e.entity_id)),
    "rootType": lambda e: _string(e.root_type),
    "rootId": lambda e: _ascii(str(e.root_id)),
    "fromState": lambda e: _string(e.from_state),
    "toState": lambda e: _string(e.to_state),
    "actor": lambda e: _string(e.actor),
    "data": lambda e: wire_json.dumps(e.data, default=str),
    "createdAt": lambda e: _ascii(e.created_at.isoformat()),
}


def _projection(field: FieldNode) -> Callable[[Any], str] | None:
    """How to render ``events { ... }`` straight to the JSON text of ``{"data": {key: {...}}}``, when it
    selects nothing but plain Event fields."""
    if field.name.value != "events" or field.selection_set is None:
        return None
    readers: dict[str, Callable[[Any], str]] = {}
    for selection in field.selection_set.selections:
        if not isinstance(selection, FieldNode) or selection.arguments or selection.selection_set:
            return None  # fragments and anything with arguments go through graphql-core
        read = _EVENT_FIELDS.get(selection.name.value)
        if read is None:
            return None
        readers.setdefault(selection.alias.value if selection.alias else selection.name.value, read)
    pairs = [(_ascii(key) + ":", read) for key, read in readers.items()]
    response_key = field.alias.value if field.alias else field.name.value
    head = '{"data":{' + _ascii(response_key) + ":{"
    return lambda event: head + ",".join([key + read(event) for key, read in pairs]) + "}}}"


def _masked(error: GraphQLError) -> GraphQLError:
    return GraphQLError("Unexpected error.", path=error.path) if should_mask_error(error) else error


def _shared_subscription(
    document: DocumentNode, operation_name: str | None
) -> OperationDefinitionNode | None:
    """The operation to run, if it is a subscription to one shared field; else None."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(document.definitions) != len(operations):
        return None  # fragments: fine in principle, but keep the shared path simple
    if operation_name is not None:
        operations = [o for o in operations if o.name is not None and o.name.value == operation_name]
    if len(operations) != 1 or operations[0].operation is not OperationType.SUBSCRIPTION:
        return None
    selections = operations[0].selection_set.selections
    shared = (
        len(selections) == 1
        and isinstance(selections[0], FieldNode)
        and selections[0].name.value in SHARED_FIELDS
        and not selections[0].directives
        and not _uses_variables_or_directives(selections[0].selection_set)
    )
    return operations[0] if shared else None


def _uses_variables_or_directives(node: Node | None) -> bool:
    """Whether the selection under the field could render differently per subscriber."""
    if node is None:
        return False
    found = False

    class Finder(Visitor):
        def enter_variable(self, *_: Any) -> None:
            nonlocal found
            found = True

        def enter_directive(self, *_: Any) -> None:
            nonlocal found
            found = True

    visit(node, Finder())
    return found


class FanoutTransportWSHandler(ClosesOnRevocation, BaseGraphQLTransportWSHandler[Context, None]):
    async def handle(self) -> None:
        WEBSOCKETS.inc()
        try:
            await super().handle()
        finally:
            WEBSOCKETS.dec()

    async def run_operation(self, operation: Any) -> None:
        fanout: Fanout = self.view.fanout  # type: ignore[attr-defined]
        active = SUBSCRIPTIONS.labels(fanout.root_field(operation.query, operation.operation_name))
        active.inc()
        try:
            await self._run_operation(operation, fanout)
        finally:
            active.dec()

    async def _run_operation(self, operation: Any, fanout: Fanout) -> None:
        prepared = await fanout.prepare(
            operation.query, operation.variables, operation.operation_name, self.context
        )
        if prepared is None:
            await super().run_operation(operation)
            return

        def is_active() -> bool:
            return not operation.completed and self.operations.get(operation.id) is operation

        frames = frame_writer(websocket_scope(self), websocket_send_text(self))
        member = Member(operation.id, frames, prepared.stream.start, is_active)
        started = time.perf_counter()
        failed = False
        try:
            await run_member(fanout, prepared, member)
        except HistoryTruncated as exc:
            # Events after its position were archived while it caught up: it is told, and its
            # operation ends, rather than being handed the events after the hole.
            self.operations.pop(operation.id, None)
            failed = True
            with contextlib.suppress(Exception):  # the socket may be gone too
                await self.send_message(
                    {"id": operation.id, "type": "error", "payload": [truncated_error(exc).formatted]}
                )
        except Exception as error:  # the socket went away, or the stream failed
            self.operations.pop(operation.id, None)
            if not _is_disconnect(error):
                failed = True
                await self.handle_task_exception(error)
        finally:
            # This path skips Strawberry's extensions, so it records the operation itself.
            outcome = "error" if failed else "ok"
            log_operation(self.context, prepared.name, "subscription", started, outcome, prepared.document)


def _is_disconnect(error: Exception) -> bool:
    names = {"WebSocketDisconnect", "WebSocketDisconnected", "ClientDisconnected"}
    return isinstance(error, Disconnected) or type(error).__name__ in names
