"""The stateMachines query: every registered machine as data, straight from ``server/machines``."""

from __future__ import annotations

from typing import Any

import strawberry

from ...machines.machine import Machine
from ...machines.registry import MACHINES


@strawberry.type(description="One state of a machine.")
class MachineState:
    name: str
    initial: bool
    final: bool


@strawberry.type(description="An edge the machine's table allows.")
class MachineTransition:
    from_: str = strawberry.field(name="from")
    to: str


@strawberry.type(description="A state machine of the engine: its states and every allowed transition.")
class StateMachine:
    domain: str = strawberry.field(description="research plans, workflows, missions, ...")
    entity: str = strawberry.field(description="The entity type events name it by: plan, step, ...")
    description: str
    initial: str
    states: list[MachineState]
    transitions: list[MachineTransition]

    @staticmethod
    def of(domain: str, machine: Machine[Any]) -> StateMachine:
        return StateMachine(
            domain=domain,
            entity=machine.entity,
            description=machine.description,
            initial=str(machine.initial),
            states=[
                MachineState(name=str(s), initial=s == machine.initial, final=s in machine.final)
                for s in machine.states
            ],
            transitions=[MachineTransition(from_=str(a), to=str(b)) for a, b in machine.edges()],
        )


@strawberry.type
class MachineQueries:
    @strawberry.field(description="Every state machine of the engine, in registry order.")
    def state_machines(self) -> list[StateMachine]:
        return [StateMachine.of(domain, machine) for domain, machine in MACHINES]
