"""``availableActions``: what the caller may do with an object now, from the machines and the caller's role.

Each entity lists the mutations a person or an agent calls on it and the machine action each one takes.
An action is offered when the entity's machine lets it start from the object's state (its guards and
retry targets included) and the caller's key passes the mutation's own permission classes: the rule
lives once, in the machine and on the mutation, and the dashboard draws its buttons from the answer
instead of a copy of either. The service still checks everything else when the mutation is called
(a parent's state, the coordination rules, who holds a claim), so an offered action can be refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import strawberry
from strawberry.types import Info

from ..machines.machine import Machine
from ..machines.mission import ASSET_MACHINE, HOP_MACHINE, MISSION_MACHINE, TOOL_STEP_MACHINE
from ..machines.plan import PLAN_MACHINE, STEP_MACHINE
from ..machines.workflow import WORKFLOW_MACHINE, WORKFLOW_STEP_MACHINE
from .context import Context

AVAILABLE_ACTIONS = (
    "What you may do with it now: each mutation whose machine action may start from its state and "
    "whose role your key has, in a fixed order; empty when nothing is open to you. The mutation still "
    "checks the rest when called (a parent's state, coordination rules, who holds a claim)."
)


@strawberry.type(
    description="A mutation the caller may call on an object now, and the machine action it takes."
)
class AvailableAction:
    mutation: str = strawberry.field(description="The mutation's name, e.g. cancelWorkflow.")
    action: str = strawberry.field(
        description="The machine action it takes (docs/state-machines.md), e.g. cancel; tells apart the "
        "choices of one mutation (submitUserDecision: approve, reject, modify, skip)."
    )


@dataclass(frozen=True)
class Offers:
    """An entity's machine and its (mutation, machine action) pairs, in the order they are offered;
    ``parent``: the parent's machine and the action of it that must be open for any of these (a plan
    step's mutations check that the plan may still ``work``: a completed or failed plan is final)."""

    machine: Machine[Any]
    pairs: tuple[tuple[str, str], ...]
    parent: tuple[Machine[Any], str] | None = None

    def __post_init__(self) -> None:
        for _, action in self.pairs:
            self.machine.action(action)  # a KeyError at import for an action the machine lacks
        if self.parent is not None:
            self.parent[0].action(self.parent[1])


PLAN = Offers(PLAN_MACHINE, (("startNextStep", "work"), ("modifyPlan", "modify"), ("failPlan", "fail")))
PLAN_STEP = Offers(
    STEP_MACHINE,
    (
        ("submitStepResult", "submit_result"),
        ("requestUserReview", "request_review"),
        ("submitUserDecision", "approve"),
        ("submitUserDecision", "modify"),
        ("submitUserDecision", "skip"),
        ("submitUserDecision", "reject"),
        ("retryStep", "retry"),
    ),
    parent=(PLAN_MACHINE, "work"),
)
WORKFLOW = Offers(
    WORKFLOW_MACHINE,
    (("startWorkflow", "start"), ("cancelWorkflow", "cancel"), ("rerunWorkflow", "rerun")),
)
WORKFLOW_STEP = Offers(
    WORKFLOW_STEP_MACHINE,
    (
        ("approveWorkflowStep", "approve"),
        ("approveWorkflowStep", "override"),
        ("rejectWorkflowStep", "reject"),
        ("completeWorkflowStep", "complete"),
        ("failWorkflowStep", "report_failure"),
        ("heartbeatWorkflowStep", "heartbeat"),
    ),
)
MISSION = Offers(
    MISSION_MACHINE,
    (
        ("approveMission", "approve"),
        ("rejectMission", "reject"),
        ("proposeHop", "build_hop"),
        ("cancelMission", "cancel"),
    ),
)
HOP = Offers(
    HOP_MACHINE,
    (
        ("approveHopPlan", "approve_plan"),
        ("rejectHopPlan", "reject_plan"),
        ("proposeHopImplementation", "propose_implementation"),
        ("failHopImplementation", "fail_implementation"),
        ("approveHopImplementation", "approve_implementation"),
        ("rejectHopImplementation", "reject_implementation"),
        ("startHop", "start"),
        ("retryHop", "retry"),
        ("cancelHop", "cancel"),
    ),
)
TOOL_STEP = Offers(
    TOOL_STEP_MACHINE,
    (
        ("selectTool", "select_tool"),
        ("configureToolStep", "configure"),
        ("completeToolStep", "complete"),
        ("failToolStep", "fail"),
        ("retryToolStep", "retry"),
    ),
)
ASSET = Offers(
    ASSET_MACHINE,
    (
        ("acceptAsset", "accept"),
        ("rejectAsset", "reject"),
        ("startAssetProcessing", "start_processing"),
        ("completeAssetProcessing", "complete_processing"),
        ("failAsset", "fail"),
        ("retryAsset", "retry"),
    ),
)
ALL_OFFERS = (PLAN, PLAN_STEP, WORKFLOW, WORKFLOW_STEP, MISSION, HOP, TOOL_STEP, ASSET)


def offered(
    offers: Offers, state: Any, failed_from: Any, facts: dict[str, Any], parent_state: Any = None
) -> list[tuple[str, str]]:
    """The pairs whose action the machine lets start from ``state`` (pure: no role yet); none when
    the parent's machine does not let its action start from ``parent_state``."""
    if offers.parent is not None:
        parent, needed = offers.parent
        if parent_state is None or not parent.allows(needed, type(parent.initial)(parent_state)):
            return []
    machine = offers.machine
    return [(m, a) for m, a in offers.pairs if machine.allows(a, state, failed_from, facts)]


@cache
def _permissions(schema: Any, mutation: str) -> tuple[type, ...]:
    field = schema.get_field_for_type(mutation, "Mutation")
    if field is None:
        raise LookupError(f"no mutation {mutation}")  # a typo in the table above: the schema test fails
    return tuple(field.permission_classes)


def _may_call(info: Info[Context, Any], mutation: str) -> bool:
    return all(p().has_permission(None, info) for p in _permissions(info.schema, mutation))


def available_actions(
    info: Info[Context, Any], offers: Offers, obj: Any, parent_state: Any = None
) -> list[AvailableAction]:
    """``obj`` (a GraphQL object built from a row) as the machine sees it: its status, the state it
    failed from and the columns the actions' guards read; ``parent_state``: its parent's status, when
    ``offers`` has a parent rule."""
    guarded = {g.column for _, a in offers.pairs for g in offers.machine.action(a).guards}
    facts = {column: getattr(obj, column, None) for column in guarded}
    pairs = offered(offers, obj.status, getattr(obj, "failed_from", None), facts, parent_state)
    return [AvailableAction(mutation=m, action=a) for m, a in pairs if _may_call(info, m)]
