"""Every state machine of the engine, in one list: the docs, the API and the tests read it from here."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from .decision import DECISION_MACHINE
from .machine import Machine
from .mission import ASSET_MACHINE, HOP_MACHINE, MISSION_MACHINE, TOOL_STEP_MACHINE
from .mission_coordination import HOP_STEP_TABLE, MISSION_HOP_TABLE
from .plan import PLAN_MACHINE, STEP_MACHINE
from .skill import SKILL_MACHINE
from .workflow import COMPENSATION_MACHINE, WORKFLOW_MACHINE, WORKFLOW_STEP_MACHINE

# (domain, machine). A new domain appends its machines here and nowhere else.
MACHINES: tuple[tuple[str, Machine[Any]], ...] = (
    ("research plans", PLAN_MACHINE),
    ("research plans", STEP_MACHINE),
    ("research plans", SKILL_MACHINE),
    ("workflows", WORKFLOW_MACHINE),
    ("workflows", WORKFLOW_STEP_MACHINE),
    ("workflows", COMPENSATION_MACHINE),
    ("missions", MISSION_MACHINE),
    ("missions", HOP_MACHINE),
    ("missions", TOOL_STEP_MACHINE),
    ("missions", ASSET_MACHINE),
    ("decisions", DECISION_MACHINE),
)


# (domain, title, what the table says, {state of one entity: states of another it allows}): tables that
# tie two machines together. The docs render them after their domain's machines.
COORDINATION: tuple[tuple[str, str, str, Mapping[Any, frozenset[StrEnum]]], ...] = (
    (
        "missions",
        "mission and hop",
        "The states the mission's hop in progress (neither COMPLETED nor CANCELLED) may be in; for a "
        "COMPLETED mission, its final hop. Enforced in the transaction of every mission mutation.",
        MISSION_HOP_TABLE,
    ),
    (
        "missions",
        "hop and tool steps",
        "The states the hop's live tool steps (those not CANCELLED) may be in. Enforced in the "
        "transaction of every mission mutation.",
        HOP_STEP_TABLE,
    ),
)


def machine_by_entity(entity: str) -> Machine[Any]:
    for _, machine in MACHINES:
        if machine.entity == entity:
            return machine
    raise KeyError(entity)
