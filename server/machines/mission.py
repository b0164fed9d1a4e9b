"""Mission, hop, tool step and asset machines: seed 004's tables plus DESIGN.md's rejection and retry.

The seed's rows are copied as they stand. "Any -> CANCELLED" (and, for assets, "Any -> EXPIRED") is
an edge from every state that is not final. The extensions DESIGN.md decides (rejection and retry as
transitions with a recorded reason, never as extra states) are listed separately below, so the seed's
table stays readable on its own; docs/decisions/0002-missions.md explains each one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import TypeVar

from .machine import Action, Deadline, Guard, Machine


class MissionStatus(StrEnum):
    PROPOSED = "PROPOSED"
    APPROVED = "APPROVED"
    BUILDING_HOP = "BUILDING_HOP"
    HOP_READY = "HOP_READY"
    EXECUTING_HOP = "EXECUTING_HOP"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class HopStatus(StrEnum):
    PLAN_PROPOSED = "PLAN_PROPOSED"
    READY_FOR_IMPLEMENTATION = "READY_FOR_IMPLEMENTATION"
    IMPLEMENTATION_PROPOSED = "IMPLEMENTATION_PROPOSED"
    READY_FOR_EXECUTION = "READY_FOR_EXECUTION"
    EXECUTING = "EXECUTING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class ToolStepStatus(StrEnum):
    PROPOSED = "PROPOSED"
    READY_TO_CONFIGURE = "READY_TO_CONFIGURE"
    READY_TO_EXECUTE = "READY_TO_EXECUTE"
    EXECUTING = "EXECUTING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class AssetStatus(StrEnum):
    PROPOSED = "PROPOSED"
    PENDING = "PENDING"
    IN_PROGRESS = "IN_PROGRESS"
    READY = "READY"
    ERROR = "ERROR"
    EXPIRED = "EXPIRED"


M, H, T, A = MissionStatus, HopStatus, ToolStepStatus, AssetStatus
E = TypeVar("E", bound=StrEnum)


def _table(
    states: type[E],
    edges: Iterable[tuple[E, E]],
    final: frozenset[E],
    any_to: E,
) -> dict[E, frozenset[E]]:
    """Rows for every state: the listed edges, plus ``any_to`` from every non-final state."""
    table: dict[E, set[E]] = {s: set() for s in states}
    for source, target in edges:
        table[source].add(target)
    for state in states:
        if state not in final and state is not any_to:
            table[state].add(any_to)
    return {s: frozenset(targets) for s, targets in table.items()}


def _merge(*tables: Mapping[E, frozenset[E]]) -> dict[E, frozenset[E]]:
    merged: dict[E, frozenset[E]] = {}
    for table in tables:
        for state, targets in table.items():
            merged[state] = merged.get(state, frozenset()) | targets
    return merged


# --- seed 004, "Complete State Transition Validation" -------------------------------------------------

SEED_MISSION_EDGES = (
    (M.PROPOSED, M.APPROVED),
    (M.APPROVED, M.BUILDING_HOP),
    (M.BUILDING_HOP, M.HOP_READY),
    (M.HOP_READY, M.EXECUTING_HOP),
    (M.EXECUTING_HOP, M.APPROVED),
    (M.EXECUTING_HOP, M.COMPLETED),
    (M.EXECUTING_HOP, M.FAILED),
)
SEED_HOP_EDGES = (
    (H.PLAN_PROPOSED, H.READY_FOR_IMPLEMENTATION),
    (H.READY_FOR_IMPLEMENTATION, H.IMPLEMENTATION_PROPOSED),
    (H.IMPLEMENTATION_PROPOSED, H.READY_FOR_EXECUTION),
    (H.READY_FOR_EXECUTION, H.EXECUTING),
    (H.EXECUTING, H.COMPLETED),
    (H.EXECUTING, H.FAILED),
    (H.READY_FOR_IMPLEMENTATION, H.FAILED),
)
SEED_TOOL_STEP_EDGES = (
    (T.PROPOSED, T.READY_TO_CONFIGURE),
    (T.READY_TO_CONFIGURE, T.READY_TO_EXECUTE),
    (T.READY_TO_EXECUTE, T.EXECUTING),
    (T.EXECUTING, T.COMPLETED),
    (T.EXECUTING, T.FAILED),
    (T.READY_TO_CONFIGURE, T.FAILED),
)
SEED_ASSET_EDGES = (
    (A.PROPOSED, A.PENDING),
    (A.PENDING, A.IN_PROGRESS),
    (A.IN_PROGRESS, A.READY),
    (A.IN_PROGRESS, A.ERROR),
    (A.READY, A.ERROR),
)

# --- DESIGN.md "Missions": rejection and retry as transitions -----------------------------------------

# Rejecting a hop plan cancels the hop (the seed's Any -> CANCELLED) and returns the mission to APPROVED.
MISSION_REJECTION_EDGES = ((M.BUILDING_HOP, M.APPROVED),)
# Retrying the failed hop returns the mission to the state it failed from.
MISSION_RETRY_EDGES = ((M.FAILED, M.EXECUTING_HOP),)
# Rejecting an implementation returns the hop to READY_FOR_IMPLEMENTATION.
HOP_REJECTION_EDGES = ((H.IMPLEMENTATION_PROPOSED, H.READY_FOR_IMPLEMENTATION),)
HOP_RETRY_EDGES = ((H.FAILED, H.EXECUTING), (H.FAILED, H.READY_FOR_IMPLEMENTATION))
TOOL_STEP_RETRY_EDGES = ((T.FAILED, T.EXECUTING), (T.FAILED, T.READY_TO_CONFIGURE))
# A person rejecting a proposed asset records the reason in ERROR (the asset's only failure state).
# A retry returns a rejected asset to PROPOSED (to be reviewed again) and a processing failure or a
# corruption to IN_PROGRESS (a corrupted asset is made again, not declared READY).
ASSET_REJECTION_EDGES = ((A.PROPOSED, A.ERROR),)
ASSET_RETRY_EDGES = ((A.ERROR, A.PROPOSED), (A.ERROR, A.IN_PROGRESS))

MISSION_FINAL = frozenset({M.COMPLETED, M.CANCELLED})
HOP_FINAL = frozenset({H.COMPLETED, H.CANCELLED})
TOOL_STEP_FINAL = frozenset({T.COMPLETED, T.CANCELLED})
ASSET_FINAL = frozenset({A.EXPIRED})

VALID_MISSION_TRANSITIONS = _merge(
    _table(M, SEED_MISSION_EDGES, MISSION_FINAL, M.CANCELLED),
    _table(M, MISSION_REJECTION_EDGES + MISSION_RETRY_EDGES, MISSION_FINAL, M.CANCELLED),
)
VALID_HOP_TRANSITIONS = _merge(
    _table(H, SEED_HOP_EDGES, HOP_FINAL, H.CANCELLED),
    _table(H, HOP_REJECTION_EDGES + HOP_RETRY_EDGES, HOP_FINAL, H.CANCELLED),
)
VALID_TOOL_STEP_TRANSITIONS = _table(
    T, SEED_TOOL_STEP_EDGES + TOOL_STEP_RETRY_EDGES, TOOL_STEP_FINAL, T.CANCELLED
)
VALID_ASSET_TRANSITIONS = _table(
    A, SEED_ASSET_EDGES + ASSET_REJECTION_EDGES + ASSET_RETRY_EDGES, ASSET_FINAL, A.EXPIRED
)

# Retry returns FAILED (ERROR) to the state it failed from (DESIGN.md), keyed by that state.
MISSION_RETRY_TARGET = {M.EXECUTING_HOP: M.EXECUTING_HOP}
HOP_RETRY_TARGET = {H.EXECUTING: H.EXECUTING, H.READY_FOR_IMPLEMENTATION: H.READY_FOR_IMPLEMENTATION}
TOOL_STEP_RETRY_TARGET = {T.EXECUTING: T.EXECUTING, T.READY_TO_CONFIGURE: T.READY_TO_CONFIGURE}
ASSET_RETRY_TARGET = {A.PROPOSED: A.PROPOSED, A.IN_PROGRESS: A.IN_PROGRESS, A.READY: A.IN_PROGRESS}

# --- actions: who may do what from which state (the services apply them by name) ---------------------

REASON = "status_reason"  # every mission-domain row keeps the reason for its current state


def _not_final(states: type[E], final: frozenset[E]) -> frozenset[E]:
    return frozenset(states) - final


MISSION_ACTIONS = (
    Action("approve", frozenset({M.PROPOSED}), "only a proposed mission can be approved", M.APPROVED),
    Action(
        "reject",
        frozenset({M.PROPOSED}),
        "only a proposed mission can be rejected (cancel it instead)",
        M.CANCELLED,
    ),
    Action("cancel", _not_final(M, MISSION_FINAL), "a finished mission cannot be cancelled", M.CANCELLED),
    # Assets outlive their mission's end, but only a mission that is not finished takes new ones.
    Action(
        "take_asset", _not_final(M, MISSION_FINAL), "a finished mission takes no new assets", internal=True
    ),
    Action(
        "build_hop",
        frozenset({M.APPROVED}),
        "a hop is proposed only for an APPROVED mission (one hop at a time)",
        M.BUILDING_HOP,
    ),
)
HOP_ACTIONS = (
    Action(
        "approve_plan",
        frozenset({H.PLAN_PROPOSED}),
        "only a proposed plan can be approved",
        H.READY_FOR_IMPLEMENTATION,
    ),
    Action("reject_plan", frozenset({H.PLAN_PROPOSED}), "only a proposed plan can be rejected", H.CANCELLED),
    Action("cancel", _not_final(H, HOP_FINAL), "a finished hop cannot be cancelled", H.CANCELLED),
    Action(
        "propose_implementation",
        frozenset({H.READY_FOR_IMPLEMENTATION}),
        "an implementation is proposed for a hop READY_FOR_IMPLEMENTATION",
        H.IMPLEMENTATION_PROPOSED,
    ),
    Action(
        "approve_implementation",
        frozenset({H.IMPLEMENTATION_PROPOSED}),
        "only a proposed implementation can be approved",
        H.READY_FOR_EXECUTION,
    ),
    Action(
        "reject_implementation",
        frozenset({H.IMPLEMENTATION_PROPOSED}),
        "only a proposed implementation can be rejected",
        H.READY_FOR_IMPLEMENTATION,
    ),
    Action(
        "fail_implementation",
        frozenset({H.READY_FOR_IMPLEMENTATION}),
        "only a hop READY_FOR_IMPLEMENTATION can fail its implementation",
        H.FAILED,
    ),
    Action(
        "start", frozenset({H.READY_FOR_EXECUTION}), "only a hop READY_FOR_EXECUTION can start", H.EXECUTING
    ),
    Action("retry", frozenset({H.FAILED}), "only a FAILED one can be retried"),
)
TOOL_STEP_ACTIONS = (
    Action(
        "select_tool",
        frozenset({T.PROPOSED}),
        "a tool is selected for a PROPOSED tool step",
        T.READY_TO_CONFIGURE,
    ),
    Action(
        "configure",
        frozenset({T.READY_TO_CONFIGURE}),
        "parameters are configured for a tool step READY_TO_CONFIGURE",
        T.READY_TO_EXECUTE,
    ),
    Action(
        "start", frozenset({T.READY_TO_EXECUTE}), "only a tool step READY_TO_EXECUTE can start", T.EXECUTING
    ),
    Action("complete", frozenset({T.EXECUTING}), "only an EXECUTING tool step can complete", T.COMPLETED),
    Action(
        "fail",
        frozenset({T.EXECUTING, T.READY_TO_CONFIGURE}),
        "only an EXECUTING or READY_TO_CONFIGURE tool step can fail",
        T.FAILED,
    ),
    Action("cancel", _not_final(T, TOOL_STEP_FINAL), "a finished tool step cannot be cancelled", T.CANCELLED),
    Action("retry", frozenset({T.FAILED}), "only a FAILED one can be retried"),
    # Retrying a hop that failed in execution runs again the steps that failed executing.
    Action(
        "retry_with_hop",
        frozenset({T.FAILED}),
        "only a FAILED tool step is retried with its hop",
        guards=(
            Guard(
                "failed_from",
                frozenset({T.EXECUTING.value}),
                "it failed {value}, not executing: it is retried on its own",
            ),
        ),
    ),
)
# An asset past its ``expires_at`` takes no more changes; the expiry timer moves it to EXPIRED. The
# one rule, seen from both sides: every act needs the time not to have come, expiring needs it to have.
_LIVE = Deadline(
    "expires_at", False, "its TTL ran out at {value}; it is about to expire", names=A.EXPIRED.value
)
_DUE = Deadline("expires_at", True, "its TTL has not run out ({value})")
ASSET_ACTIONS = (
    Action(
        "accept", frozenset({A.PROPOSED}), "only a proposed asset can be accepted", A.PENDING, guards=(_LIVE,)
    ),
    Action(
        "start_processing",
        frozenset({A.PENDING}),
        "only a pending asset can be processed",
        A.IN_PROGRESS,
        guards=(_LIVE,),
    ),
    Action(
        "complete_processing",
        frozenset({A.IN_PROGRESS}),
        "only an asset in progress can become ready",
        A.READY,
        guards=(_LIVE,),
    ),
    Action(
        "reject", frozenset({A.PROPOSED}), "only a proposed asset can be rejected", A.ERROR, guards=(_LIVE,)
    ),
    Action(
        "fail",
        frozenset({A.IN_PROGRESS, A.READY}),
        "only an asset in progress or ready can fail",
        A.ERROR,
        guards=(_LIVE,),
    ),
    Action("retry", frozenset({A.ERROR}), "only an asset in ERROR can be retried", guards=(_LIVE,)),
    Action(
        "expire",
        _not_final(A, ASSET_FINAL),
        "an expired asset cannot expire again",
        A.EXPIRED,
        guards=(_DUE,),
    ),
)

MISSION_MACHINE = Machine(
    entity="mission",
    initial=M.PROPOSED,
    transitions=VALID_MISSION_TRANSITIONS,
    final=MISSION_FINAL,
    actions=MISSION_ACTIONS,
    stamps={M.COMPLETED: ("completed_at",)},
    failure=M.FAILED,
    retry_targets=MISSION_RETRY_TARGET,
    reason_column=REASON,
    description="Mission lifecycle (seed 004). FAILED is not final: retrying the failed hop returns the "
    "mission to EXECUTING_HOP; BUILDING_HOP -> APPROVED is a rejected hop plan; any state that is not "
    "final can be CANCELLED.",
)

HOP_MACHINE = Machine(
    entity="hop",
    initial=H.PLAN_PROPOSED,
    transitions=VALID_HOP_TRANSITIONS,
    final=HOP_FINAL,
    actions=HOP_ACTIONS,
    stamps={H.EXECUTING: ("started_at",), H.COMPLETED: ("completed_at",)},
    failure=H.FAILED,
    retry_targets=HOP_RETRY_TARGET,
    reason_column=REASON,
    description="Hop lifecycle (seed 004). IMPLEMENTATION_PROPOSED -> READY_FOR_IMPLEMENTATION is a "
    "rejected implementation; FAILED returns by retry to the state it failed from; a rejected plan "
    "is CANCELLED.",
)

TOOL_STEP_MACHINE = Machine(
    entity="tool_step",
    initial=T.PROPOSED,
    transitions=VALID_TOOL_STEP_TRANSITIONS,
    final=TOOL_STEP_FINAL,
    actions=TOOL_STEP_ACTIONS,
    stamps={T.EXECUTING: ("started_at",), T.COMPLETED: ("completed_at",)},
    failure=T.FAILED,
    retry_targets=TOOL_STEP_RETRY_TARGET,
    reason_column=REASON,
    description="Tool step lifecycle (seed 004). FAILED returns by retry to the state it failed from "
    "(READY_TO_CONFIGURE or EXECUTING).",
)

ASSET_MACHINE = Machine(
    entity="asset",
    initial=A.PROPOSED,
    transitions=VALID_ASSET_TRANSITIONS,
    final=ASSET_FINAL,
    actions=ASSET_ACTIONS,
    stamps={A.READY: ("ready_at",)},
    failure=A.ERROR,
    retry_targets=ASSET_RETRY_TARGET,
    reason_column=REASON,
    description="Asset lifecycle (seed 004). PROPOSED -> ERROR is a rejected proposal; ERROR returns by "
    "retry to PROPOSED (rejected) or IN_PROGRESS (failed or corrupted); the expiry timer moves every "
    "other state to EXPIRED once `expires_at` passes.",
)
