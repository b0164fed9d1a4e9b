"""The registry lists every machine once, and docs/state-machines.md is what the code renders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.machines.docs import render_all, render_machine
from server.machines.plan import PLAN_MACHINE, STEP_MACHINE
from server.machines.registry import MACHINES, machine_by_entity
from server.machines.workflow import WORKFLOW_STEP_MACHINE

DOC = Path(__file__).resolve().parents[2] / "docs" / "state-machines.md"


def test_every_entity_is_registered_once() -> None:
    entities = [m.entity for _, m in MACHINES]
    assert len(entities) == len(set(entities))
    assert {"plan", "step", "skill_execution"} <= set(entities)


def test_machine_by_entity_finds_registered_machines_and_refuses_others() -> None:
    assert machine_by_entity("plan") is PLAN_MACHINE
    with pytest.raises(KeyError):
        machine_by_entity("no-such-machine")


def test_rendered_machine_has_one_table_row_per_state_and_one_arrow_per_edge() -> None:
    text = render_machine(PLAN_MACHINE)
    states, actions = text.split("| action | from | to | only when |")
    rows = [line for line in states.splitlines() if line.startswith("| `")]
    assert len(rows) == len(PLAN_MACHINE.states)
    named = re.findall(r"^\| `(\w+)` \|", actions.split("```")[0], flags=re.M)
    assert named == [a.name for a in PLAN_MACHINE.actions]
    arrows = re.findall(r"^    (\w+) --> (\w+)$", text, flags=re.M)
    assert set(arrows) == {(a.value, b.value) for a, b in PLAN_MACHINE.edges()}
    assert "[*] --> planning" in text


def test_rendered_actions_say_where_each_goes_and_on_what_condition() -> None:
    text = render_machine(WORKFLOW_STEP_MACHINE)
    assert "| `approve` | `running` | `completed` | `blocked_on` is `approval` |" in text
    assert "| `heartbeat` | `running` | (stays: a check) | `blocked_on` is none |" in text
    assert (
        "| `fail` | `in_progress`, `pending` | `failed` (through `in_progress` if need be) |  |"
        in render_machine(STEP_MACHINE)
    )


def test_docs_state_machines_md_is_not_stale() -> None:
    assert DOC.read_text() == render_all(), "docs/state-machines.md is stale: run `make docs` and commit it"
