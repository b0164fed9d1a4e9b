"""Many reviewers' decisions in one call: each item is the same service call one decision would make, in
its own transaction, so a refused item (taken by someone else, no longer waiting) leaves the others done.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Any

from .missions import assets, implementation, proposals
from .plans.inputs import Decision
from .plans.review import submit_user_decision
from .runtime import Tx
from .workflows.review import approve_workflow_step, reject_workflow_step


class ReviewKind(StrEnum):
    """What waits for the decision: the reviews of every domain."""

    PLAN_STEP = "plan_step"
    WORKFLOW_STEP = "workflow_step"
    MISSION = "mission"
    HOP_PLAN = "hop_plan"
    HOP_IMPLEMENTATION = "hop_implementation"
    ASSET = "asset"


Call = Callable[[Tx, str, str], Awaitable[Any]]


def _plan_step(decision: Decision) -> Call:
    return lambda tx, item_id, reason: submit_user_decision(tx, item_id, decision, reason or None)


# (kind, approve?) -> the one service call that decision makes; ``reason`` is required where its
# single-item mutation requires it (the service checks it).
DECIDE: dict[tuple[ReviewKind, bool], Call] = {
    (ReviewKind.PLAN_STEP, True): _plan_step(Decision.APPROVE),
    (ReviewKind.PLAN_STEP, False): _plan_step(Decision.REJECT),
    (ReviewKind.WORKFLOW_STEP, True): lambda tx, i, r: approve_workflow_step(tx, i, r or None),
    (ReviewKind.WORKFLOW_STEP, False): reject_workflow_step,
    (ReviewKind.MISSION, True): lambda tx, i, _r: proposals.approve_mission(tx, i),
    (ReviewKind.MISSION, False): proposals.reject_mission,
    (ReviewKind.HOP_PLAN, True): lambda tx, i, _r: proposals.approve_hop_plan(tx, i),
    (ReviewKind.HOP_PLAN, False): proposals.reject_hop_plan,
    (ReviewKind.HOP_IMPLEMENTATION, True): lambda tx, i, _r: implementation.approve_hop_implementation(tx, i),
    (ReviewKind.HOP_IMPLEMENTATION, False): implementation.reject_hop_implementation,
    (ReviewKind.ASSET, True): lambda tx, i, _r: assets.accept_asset(tx, i),
    (ReviewKind.ASSET, False): assets.reject_asset,
}


async def decide_one(tx: Tx, kind: ReviewKind, item_id: str, approve: bool, reason: str) -> None:
    """One item's decision, exactly as its own mutation takes it."""
    await DECIDE[(kind, approve)](tx, item_id, reason)
