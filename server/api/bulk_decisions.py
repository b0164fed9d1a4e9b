"""decideReviews: many reviewers' decisions in one request, each in its own transaction."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ..errors import ErrorCode
from ..services.bulk_decisions import ReviewKind, decide_one
from .context import Context
from .descriptions import TEXT_LIMIT, described_enum, user_errors
from .errors import UserError, run_mutation
from .permissions import CanDecide

I = Info[Context, Any]  # noqa: E741

described_enum(
    ReviewKind,
    "ReviewKind",
    "What a review decides on, in every domain.",
    {
        ReviewKind.PLAN_STEP: "A plan step AWAITING_INPUT (as submitUserDecision APPROVE or REJECT).",
        ReviewKind.WORKFLOW_STEP: "A workflow step waiting for a reviewer (approveWorkflowStep, "
        "rejectWorkflowStep).",
        ReviewKind.MISSION: "A PROPOSED mission (approveMission, rejectMission).",
        ReviewKind.HOP_PLAN: "A hop's proposed plan (approveHopPlan, rejectHopPlan).",
        ReviewKind.HOP_IMPLEMENTATION: "A hop's proposed implementation (approveHopImplementation, "
        "rejectHopImplementation).",
        ReviewKind.ASSET: "A PROPOSED asset (acceptAsset, rejectAsset).",
    },
)


@strawberry.input(description="One decision of decideReviews.")
class ReviewDecisionInput:
    kind: ReviewKind = strawberry.field(description="What is decided on.")
    id: strawberry.ID = strawberry.field(description="Its id (the step, mission, hop or asset).")
    approve: bool = strawberry.field(description="True approves (accepts an asset); false rejects.")
    reason: str | None = strawberry.field(
        default=None,
        description=f"Required to reject anything but a plan step; kept as the comment of a workflow "
        f"step's approval; {TEXT_LIMIT}.",
    )


@strawberry.type(description="What became of one decision of decideReviews.")
class ReviewDecisionResult:
    index: int = strawberry.field(description="Its position in `decisions`, from 0.")
    kind: ReviewKind = strawberry.field(description="What was decided on.")
    subject_id: strawberry.ID = strawberry.field(description="The id it was given, of what was decided on.")
    decided: bool = strawberry.field(description="True when the decision was taken and committed.")
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="decideReviews' results, one per decision in the order given.")
class DecideReviewsPayload:
    results: list[ReviewDecisionResult] = strawberry.field(
        default_factory=list, description="One per decision, in the order given."
    )
    decided: int = strawberry.field(default=0, description="How many were taken.")
    refused: int = strawberry.field(default=0, description="How many were refused (see their userErrors).")
    user_errors: list[UserError] = user_errors()


@strawberry.type
class BulkDecisionMutations:
    @strawberry.mutation(
        permission_classes=[CanDecide],
        description="Take up to FLIGHTDECK_MAX_PAGE_SIZE (100 by default) reviewers' decisions in one "
        "request, in the order given. Each is exactly the single mutation of its kind, in its own "
        "transaction: a refused one (no longer waiting, unknown, another tenant's: NOT_FOUND) changes "
        "nothing and the others are taken. Reviewer or admin keys.",
    )
    async def decide_reviews(
        self,
        info: I,
        decisions: Annotated[
            list[ReviewDecisionInput], strawberry.argument(description="The decisions, 1 to the page size.")
        ],
    ) -> DecideReviewsPayload:
        limit = info.context.runtime.settings.max_page_size
        if not 1 <= len(decisions) <= limit:
            problem = f"decisions must hold 1 to {limit} items, not {len(decisions)}"
            error = UserError(code=ErrorCode.VALIDATION_FAILED, message=problem, field=["decisions"])
            return DecideReviewsPayload(user_errors=[error])
        results = []
        for index, d in enumerate(decisions):
            decide = partial(
                decide_one, kind=d.kind, item_id=str(d.id), approve=d.approve, reason=d.reason or ""
            )
            _, errors = await run_mutation(info, decide)
            at = ["decisions", str(index)]
            results.append(
                ReviewDecisionResult(
                    index=index,
                    kind=d.kind,
                    subject_id=d.id,
                    decided=not errors,
                    user_errors=[replace(e, field=[*at, *e.field]) for e in errors],
                )
            )
        decided = sum(r.decided for r in results)
        return DecideReviewsPayload(results=results, decided=decided, refused=len(results) - decided)
