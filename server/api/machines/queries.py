"""The stateMachines query: every registered machine as data, straight from ``server/machines``."""

from __future__ import annotations

from typing import Any

import strawberry

from ...machines.machine import Machine
from ...machines.registry import MACHINES


@strawberry.type(description="One state of a machine.")
class MachineState:
    name: str = strawberry.field(description="The state as the API spells it in status fields.")
    initial: bool = strawberry.field(description="True for the state every object starts in.")
    final: bool = strawberry.field(description="True when nothing leaves this state.")


@strawberry.type(description="An edge the machine's table allows.")
class MachineTransition:
    from_: str = strawberry.field(name="from", description="The state it leaves.")
    to: str = strawberry.field(description="The state it enters.")


@strawberry.type(description="A state machine of the engine: its states and every allowed transition.")
class StateMachine:
    domain: str = strawberry.field(description="research plans, workflows, missions, ...")
    entity: str = strawberry.field(description="The entity type events name it by: plan, step, ...")
    description: str = strawberry.field(description="What the machine governs, and its special edges.")
    initial: str = strawberry.field(description="The state every object starts in.")
    states: list[MachineState] = strawberry.field(description="Every state, in declaration order.")
    transitions: list[MachineTransition] = strawberry.field(
        description="Every allowed (from, to) pair; any other change is refused as INVALID_TRANSITION."
    )

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
