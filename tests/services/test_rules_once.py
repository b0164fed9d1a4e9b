"""Every rule once, in the machine: the services compare a state with a state enum's members only in
SQL filters and in the derivations listed here; anywhere else the comparison restates a machine's rule
(which states an act may start from), which the service should ask the machine instead
(``transitions.allowed`` / ``require``).

A comparison counts when one side names a state enum of a machine, one of its members, a set of them
or a machine; it is a SQL filter when it compares a mapped class's ``status`` column (``Model.status``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import server.machines
import server.services
from server.machines.machine import Machine

# (module, function) -> why comparing states there is a derivation, not a rule of when an act may start.
DERIVATIONS: dict[tuple[str, str], str] = {
    ("decisions.waiting", "ended"): "whether a decision is still open: the long poll's answer",
    ("decisions.waiting", "find_decision"): "picks the open decision among a subject's",
    ("decisions.waiting", "wait_for_decision"): "whether a decision is still open: the long poll's answer",
    ("missions.assets", "<module>"): "the expiry query's status list, from the machine's final states",
    ("missions.rows", "live"): "a hop's live tool steps (cancelled ones are history)",
    ("missions.rows", "settle_mission"): "event data: whether the hop that completed was the final one",
    ("plans.execution", "start_next_step"): "nextStep's outcome, read off the plan's state",
    ("plans.execution", "_resume"): "picks the steps a stalled plan had in progress",
    ("plans.execution", "submit_step_result"): "event data: why a pending step walks through in_progress",
    ("plans.execution", "_plan_complete"): "the completed steps' results for the answer",
    ("plans.queries", "plan_progress"): "counts finished steps for progress",
    ("plans.reads", "prior_results"): "the completed steps' results a step reads",
    ("plans.reads", "step_context"): "the completed steps' results a step reads",
    ("plans.review", "submit_user_decision"): "the plan follows its steps: none awaits input any more",
    ("plans.rows", "settle_plan"): "the plan follows its steps (settle_plan's derivation)",
    ("workflows.claims", "_nothing_in"): "why a claim found nothing: a hint for the worker",
    ("workflows.claims", "_nothing_anywhere"): "why a claim found nothing: a hint for the worker",
    ("workflows.claims", "next_compensation"): "compensations run one at a time, in order",
    ("workflows.control", "cancel_workflow"): "event data: whether the workflow was blocked",
    ("workflows.timeouts", "time_out_workflow"): "event data: whether the workflow was blocked",
    ("workflows.timeouts", "mark_retries_due"): "picks the pending steps whose back-off is over",
    ("workflows.rows", "step_act"): "event data: whether finishing the step can make work claimable",
    ("workflows.progress", "<module>"): "the verdict's aggregate query (counts of step states)",
    ("workflows.progress", "apply_verdict"): "picks the failed steps the verdict is about",
    ("workflows.progress", "begin_compensation"): "picks the completed steps to undo",
    ("workflows.wakeups", "wake_reason"): "whether a transition event makes work claimable",
}


@dataclass(frozen=True)
class Comparison:
    module: str
    function: str
    line: int
    text: str
    sql: bool


def _state_enums() -> set[type]:
    found = set()
    for info in pkgutil.iter_modules(server.machines.__path__):
        module = importlib.import_module(f"server.machines.{info.name}")
        found |= {type(v.initial) for v in vars(module).values() if isinstance(v, Machine)}
    return found


ENUMS = _state_enums()


def _is_state(value: Any) -> bool:
    if isinstance(value, Machine) or (inspect.isclass(value) and value in ENUMS):
        return True
    if isinstance(value, StrEnum):
        return type(value) in ENUMS
    if isinstance(value, frozenset | set | tuple | list) and value:
        return all(isinstance(v, StrEnum) and type(v) in ENUMS for v in value)
    return False


def _names_a_state(node: ast.AST, names: dict[str, Any]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names and _is_state(names[n.id]) for n in ast.walk(node))


def _is_sql(node: ast.Compare) -> bool:
    """``Model.status == ...``: a mapped class's column, so a SQL expression, not a row's value."""
    return any(
        isinstance(n, ast.Attribute)
        and n.attr == "status"
        and isinstance(n.value, ast.Name)
        and n.value.id[:1].isupper()
        for n in ast.walk(node)
    )


def comparisons(package: Any = server.services) -> Iterator[Comparison]:
    """Every comparison against a state in the package's modules."""
    prefix = package.__name__ + "."
    for info in pkgutil.walk_packages(package.__path__, prefix):
        module = importlib.import_module(info.name)
        assert module.__file__ is not None
        tree = ast.parse(Path(module.__file__).read_text())
        names = vars(module)
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            if not any(_names_a_state(side, names) for side in (node.left, *node.comparators)):
                continue
            function, up = "<module>", parents.get(node)
            while up is not None and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
                up = parents.get(up)
            if up is not None:
                function = up.name
            yield Comparison(
                info.name.removeprefix(prefix), function, node.lineno, ast.unparse(node), _is_sql(node)
            )


def test_no_service_restates_a_machine_rule() -> None:
    restated = [
        f"server/services/{c.module.replace('.', '/')}.py:{c.line} in {c.function}: {c.text}"
        for c in comparisons()
        if not c.sql and (c.module, c.function) not in DERIVATIONS
    ]
    assert not restated, "ask the machine (transitions.allowed/require) instead of comparing states:\n" + (
        "\n".join(restated)
    )


def test_every_listed_derivation_still_compares_states() -> None:
    """A listed place that no longer compares states comes off the list (it would excuse a new one)."""
    seen = {(c.module, c.function) for c in comparisons() if not c.sql}
    assert not set(DERIVATIONS) - seen


def test_the_scan_sees_a_restated_rule() -> None:
    """The scan itself: a service comparing a row's status with a state is found, a SQL filter is not
    counted as one."""
    tree = ast.parse(
        "def waits(asset):\n"
        "    return asset.status == AssetStatus.PROPOSED\n"
        "def query():\n"
        "    return Asset.status == AssetStatus.PROPOSED.value\n"
    )
    from server.machines.mission import AssetStatus

    names = {"AssetStatus": AssetStatus}
    found = [
        (n.lineno, _is_sql(n))
        for n in ast.walk(tree)
        if isinstance(n, ast.Compare)
        and _names_a_state(n.left, names) | _names_a_state(n.comparators[0], names)
    ]
    assert sorted(found) == [(2, False), (4, True)]
