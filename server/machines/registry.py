"""Every state machine of the engine, in one list: the docs, the API and the tests read it from here."""

from __future__ import annotations

from typing import Any

from .machine import Machine
from .mission import ASSET_MACHINE, HOP_MACHINE, MISSION_MACHINE, TOOL_STEP_MACHINE
from .plan import PLAN_MACHINE, STEP_MACHINE
from .skill import SKILL_MACHINE

# (domain, machine). A new domain appends its machines here and nowhere else.
MACHINES: tuple[tuple[str, Machine[Any]], ...] = (
    ("research plans", PLAN_MACHINE),
    ("research plans", STEP_MACHINE),
    ("research plans", SKILL_MACHINE),
    ("missions", MISSION_MACHINE),
    ("missions", HOP_MACHINE),
    ("missions", TOOL_STEP_MACHINE),
    ("missions", ASSET_MACHINE),
)


def machine_by_entity(entity: str) -> Machine[Any]:
    for _, machine in MACHINES:
        if machine.entity == entity:
            return machine
    raise KeyError(entity)
