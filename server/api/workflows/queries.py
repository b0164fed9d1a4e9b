"""Workflow queries and the workflowUpdated subscription."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...machines.workflow import WorkflowStatus
from ...services.workflows import gates as workflow_gates
from ...services.workflows import queries as workflow_queries
from ..context import Context
from ..descriptions import PAGE_AFTER, PAGE_FIRST
from ..errors import run_query
from ..events.snapshots import root_snapshots
from ..listing import (
    FILTER_ARG,
    NEWEST_FIRST_ARG,
    ORDER_ARG,
    ListFilter,
    ListOrderBy,
    ReviewInboxFilter,
    ReviewOrder,
    ReviewOrderArg,
    list_query,
    table_connection,
    waiting_query,
)
from ..pagination import Connection, list_connection
from .types import WorkflowStepType, WorkflowType

I = Info[Context, Any]  # noqa: E741


@strawberry.type
class WorkflowQueries:
    @strawberry.field(description="One workflow by id; null when it does not exist in your tenant.")
    async def workflow(
        self, info: I, id: Annotated[strawberry.ID, strawberry.argument(description="The workflow's id.")]
    ) -> WorkflowType | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: workflow_queries.get_workflow(s, tenant, str(id)))
        return WorkflowType.from_row(row) if row else None

    @strawberry.field(
        description="Workflows, newest first unless `orderBy` says otherwise; `first` is capped."
    )
    async def workflows(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 20,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        status: Annotated[
            list[WorkflowStatus] | None,
            strawberry.argument(description="Only workflows in one of these states; omitted or empty: all."),
        ] = None,
        filter: Annotated[ListFilter | None, strawberry.argument(description=FILTER_ARG)] = None,
        order_by: Annotated[ListOrderBy | None, strawberry.argument(description=ORDER_ARG)] = None,
    ) -> Connection[WorkflowType]:
        query = list_query(status, filter, order_by)
        return await table_connection(
            info, workflow_queries.WORKFLOWS, query, first, after, WorkflowType.from_row
        )

    @strawberry.field(description="One workflow step by id; null when it does not exist in your tenant.")
    async def workflow_step(
        self, info: I, id: Annotated[strawberry.ID, strawberry.argument(description="The step's id.")]
    ) -> WorkflowStepType | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: workflow_queries.get_step(s, tenant, str(id)))
        return WorkflowStepType.from_row(row) if row else None

    @strawberry.field(
        description="Steps waiting for a reviewer (approval gates, governance escalations), oldest first "
        "(newest with `newestFirst`); `orderBy: DEADLINE` puts the nearest decision deadline first, "
        "the steps with no decision (governance escalations) after every gate."
    )
    async def workflow_steps_awaiting_review(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 20,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        filter: Annotated[
            ReviewInboxFilter | None, strawberry.argument(description="Only what matches; omitted: all.")
        ] = None,
        newest_first: Annotated[bool, strawberry.argument(description=NEWEST_FIRST_ARG)] = False,
        order_by: ReviewOrderArg = ReviewOrder.WAITING,
    ) -> Connection[WorkflowStepType]:
        tenant = info.context.principal.tenant_id
        wanted = waiting_query(filter, newest_first, order_by)
        if wanted.by_deadline:
            return await list_connection(
                info,
                lambda session, size: workflow_gates.gates_by_deadline(session, tenant, size, after, wanted),
                lambda session: workflow_queries.count_awaiting_review(session, tenant, wanted),
                workflow_gates.gate_cursor,
                lambda gate: WorkflowStepType.from_row(gate.step),
                first,
            )
        return await list_connection(
            info,
            lambda session, size: workflow_queries.awaiting_review(session, tenant, size, after, wanted),
            lambda session: workflow_queries.count_awaiting_review(session, tenant, wanted),
            workflow_queries.review_cursor,
            WorkflowStepType.from_row,
            first,
        )


@strawberry.type
class WorkflowSubscriptions:
    @strawberry.subscription(
        description="The workflow now, then again after every change to it or its steps."
    )
    async def workflow_updated(
        self,
        info: I,
        id: Annotated[
            strawberry.ID,
            strawberry.argument(
                description="The workflow's id; NOT_FOUND ends the stream if it is not yours."
            ),
        ],
    ) -> AsyncGenerator[WorkflowType, None]:
        tenant = info.context.principal.tenant_id

        snapshots = root_snapshots(
            info,
            "workflow",
            str(id),
            lambda s: workflow_queries.get_workflow(s, tenant, str(id)),
            WorkflowType.from_row,
        )
        async with aclosing(snapshots) as workflows:
            async for workflow in workflows:
                yield workflow
