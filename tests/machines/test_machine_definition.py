"""Machine definition checks (python-statemachine style): a bad table is refused when it is defined."""

from __future__ import annotations

from enum import StrEnum

import pytest

from server.machines.errors import InvalidMachine, InvalidTransition
from server.machines.machine import Machine
from server.machines.plan import (
    PLAN_MACHINE,
    STEP_MACHINE,
    VALID_PLAN_TRANSITIONS,
    VALID_STEP_TRANSITIONS,
    PlanStatus,
    StepStatus,
)


class Light(StrEnum):
    OFF = "off"
    ON = "on"
    BROKEN = "broken"
    SPARE = "spare"


def _machine(
    transitions: dict[Light, frozenset[Light]],
    initial: Light = Light.OFF,
    final: frozenset[Light] = frozenset({Light.BROKEN}),
) -> Machine[Light]:
    return Machine(entity="light", initial=initial, transitions=transitions, final=final)


# off <-> on, either may break; broken is final.
GOOD = {
    Light.OFF: frozenset({Light.ON, Light.BROKEN}),
    Light.ON: frozenset({Light.OFF, Light.BROKEN}),
    Light.BROKEN: frozenset[Light](),
}


def test_well_formed_machine_is_accepted() -> None:
    machine = _machine(GOOD)
    assert set(machine.states) == {Light.OFF, Light.ON, Light.BROKEN}
    assert machine.can(Light.OFF, Light.ON)
    assert not machine.can(Light.BROKEN, Light.OFF)


def test_check_returns_target_for_allowed_edge_and_raises_with_entity_id_otherwise() -> None:
    machine = _machine(GOOD)
    assert machine.check(Light.OFF, Light.ON) == Light.ON
    with pytest.raises(InvalidTransition) as caught:
        machine.check(Light.BROKEN, Light.ON, entity_id="lamp-7")
    assert (caught.value.entity, caught.value.from_state, caught.value.to_state) == ("light", "broken", "on")
    assert caught.value.entity_id == "lamp-7"
    assert "lamp-7" in str(caught.value)


def test_initial_state_without_a_row_is_refused() -> None:
    transitions = {Light.ON: frozenset({Light.BROKEN}), Light.BROKEN: frozenset[Light]()}
    with pytest.raises(InvalidMachine, match="initial state off has no row"):
        _machine(transitions, initial=Light.OFF)


def test_transition_to_a_state_without_a_row_is_refused() -> None:
    transitions = {
        Light.OFF: frozenset({Light.ON, Light.BROKEN, Light.SPARE}),
        Light.ON: frozenset({Light.OFF, Light.BROKEN}),
        Light.BROKEN: frozenset[Light](),
    }
    with pytest.raises(InvalidMachine, match=r"off leads to unknown states .*spare"):
        _machine(transitions)


def test_final_state_with_exits_is_refused() -> None:
    transitions = {**GOOD, Light.BROKEN: frozenset({Light.OFF})}
    with pytest.raises(InvalidMachine, match="final state broken has exits"):
        _machine(transitions)


def test_non_final_state_without_exits_is_refused_as_a_trap() -> None:
    transitions = {
        Light.OFF: frozenset({Light.ON, Light.SPARE}),
        Light.ON: frozenset({Light.BROKEN}),
        Light.BROKEN: frozenset[Light](),
        Light.SPARE: frozenset[Light](),
    }
    with pytest.raises(InvalidMachine, match="spare is a trap"):
        _machine(transitions)


def test_state_unreachable_from_initial_is_refused() -> None:
    # spare has an exit (so it is no trap) but nothing leads to it.
    transitions = {**GOOD, Light.SPARE: frozenset({Light.OFF})}
    with pytest.raises(InvalidMachine, match=r"unreachable states .*spare"):
        _machine(transitions)


def test_unreachable_final_state_is_refused() -> None:
    transitions = {**GOOD, Light.SPARE: frozenset[Light]()}
    with pytest.raises(InvalidMachine, match="unreachable"):
        _machine(transitions, final=frozenset({Light.BROKEN, Light.SPARE}))


def test_plan_machine_passes_its_definition_checks() -> None:
    rebuilt = Machine(
        entity="plan",
        initial=PlanStatus.PLANNING,
        transitions=VALID_PLAN_TRANSITIONS,
        final=frozenset({PlanStatus.COMPLETED, PlanStatus.FAILED}),
    )
    assert rebuilt.edges() == PLAN_MACHINE.edges()
    assert PLAN_MACHINE.initial == PlanStatus.PLANNING


def test_step_machine_passes_its_definition_checks() -> None:
    rebuilt = Machine(
        entity="step",
        initial=StepStatus.PENDING,
        transitions=VALID_STEP_TRANSITIONS,
        final=frozenset({StepStatus.COMPLETED, StepStatus.SKIPPED}),
    )
    assert rebuilt.edges() == STEP_MACHINE.edges()
    assert STEP_MACHINE.initial == StepStatus.PENDING


def test_step_machine_would_be_refused_if_failed_were_final_with_its_retry_exit() -> None:
    with pytest.raises(InvalidMachine, match="final state failed has exits"):
        Machine(
            entity="step",
            initial=StepStatus.PENDING,
            transitions=VALID_STEP_TRANSITIONS,
            final=frozenset({StepStatus.COMPLETED, StepStatus.SKIPPED, StepStatus.FAILED}),
        )
