"""workAvailable: wakes an idle worker when workflow work may have become claimable."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from typing import Annotated, Any

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from ...errors import ServiceError
from ...realtime import LoggedEvent
from ...services.acting import check_acting_agent
from ...services.workflows.wakeups import wakes
from ..context import Context
from ..descriptions import NAME_LIMIT
from ..errors import top_level_error
from ..events.streams import FeedStream
from ..events.subscriptions import start_position

I = Info[Context, Any]  # noqa: E741
After = Annotated[
    int | None,
    strawberry.argument(
        description="Replay the wake-ups of events after this seq first (0: from the start); omitted: "
        "only wake-ups from now on. Must be >= 0."
    ),
]


@strawberry.type(description="Work may have become claimable for you: claim now (claimWorkflowStep).")
class WorkAvailable:
    seq: int = strawberry.field(description="The event's seq: resume with `after` it.")
    workflow_id: strawberry.ID = strawberry.field(description="The workflow it happened in.")
    reason: str = strawberry.field(
        description="What happened: workflow_executing, step_completed, step_skipped, step_pending, "
        "retry_due, compensation_planned or compensation_completed."
    )

    @staticmethod
    def of(agent: str, workflow_id: str | None, event: LoggedEvent) -> WorkAvailable | None:
        reason = wakes(event, agent, workflow_id)
        if reason is None:
            return None
        return WorkAvailable(seq=event.seq, workflow_id=strawberry.ID(event.root_id), reason=reason)


@strawberry.type
class WorkSubscriptions:
    @strawberry.subscription(
        description="A wake-up whenever a step or compensation may have become claimable for `agent`: a "
        "workflow starts executing (a slot freed, a reviewer answered), a step that another step depends "
        "on completes or is skipped, a retry's back-off ends, a compensation's turn comes. A hint: the "
        "claim decides. Subscribe, then claim until NONE, then wait for the next wake-up; nothing between "
        "is missed. Live wake-ups that happen together come as one, the latest (a replay comes whole). "
        "Resume with `after` like `events`. Your tenant only."
    )
    async def work_available(
        self,
        info: I,
        agent: Annotated[
            str,
            strawberry.argument(
                description=f"Your agent name, as you claim with; a key bound to other agents is "
                f"FORBIDDEN; {NAME_LIMIT}."
            ),
        ],
        workflow_id: Annotated[
            strawberry.ID | None,
            strawberry.argument(description="Only this workflow's work; omitted: any of the tenant's."),
        ] = None,
        after: After = None,
    ) -> AsyncIterator[WorkAvailable]:
        ctx = info.context
        try:
            check_acting_agent(ctx.principal, agent)
        except ServiceError as exc:
            raise top_level_error(exc) from None
        if workflow_id is not None and len(str(workflow_id)) > 64:
            raise GraphQLError("workflowId is not an id", extensions={"code": "VALIDATION_FAILED"})
        start = await start_position(info, after)
        wid = str(workflow_id) if workflow_id is not None else None
        identity = ("workAvailable", agent, wid)
        select = partial(WorkAvailable.of, agent, wid)
        # Live wake-ups that reach the server's feed together are one message, the latest: a hint,
        # resumed after its seq, loses nothing by it, and a busy worker is not sent one per event.
        # A replay (`after`) comes whole.
        return FeedStream(
            ctx.runtime.feed, ctx.principal.tenant_id, start, select, identity, latest_only=True
        )
