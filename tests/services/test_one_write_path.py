"""One write path: a column a machine owns (the state, what entering a state stamps or computes, the
state it failed from, the reason for its state: ``Machine.owned_columns``) is set only by
``services/transitions.py``, never by a service beside it.

The scan walks every service module for ``row.column = ...``, ``tx.write(row, column=...)``, a bulk
``.values(column=...)`` and a dict literal keyed by the column (the values of a bulk UPDATE or INSERT).
New rows (``Model(status=...)``) are not assignments: a row is created in its machine's initial state.
The places listed below set such a column of another kind of row, or without a change of state, and
say why.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import server.services
from server.machines.registry import MACHINES

OWNED = frozenset(c for _, machine in MACHINES for c in machine.owned_columns())
WRITE_PATH = "transitions"
WRITERS = ("write", "values")  # tx.write(row, ...), update(...).values(...)

# (module, function, column) -> why it is set there.
OUTSIDE: dict[tuple[str, str, str], str] = {
    ("workflows.reports", "heartbeat_workflow_step", "timeout_at"): "a heartbeat renews a running "
    "step's deadline (no state change; entering running computes the first one)",
    ("workflows.progress", "conclude_step_failure", "timeout_at"): "an escalated step waits for a "
    "reviewer: only its own timeout is left (no state change)",
    ("plans.execution", "_resume", "started_at"): "a resumed plan's in-progress steps get a fresh clock "
    "(they stay in progress)",
    ("webhooks.delivery", "record_many", "status"): "a webhook delivery is a log, not an entity with a "
    "machine (docs/decisions.md, 'Webhook deliveries are a log'): its one writer records an attempt",
    ("webhooks.endpoints", "_queue", "status"): "a webhook delivery is a log (docs/decisions.md): a "
    "redelivery queues it again",
    ("retention.archive", "delete_through", "status"): "a webhook delivery is a log (docs/decisions.md): "
    "the retry of an archived event fails",
}


@dataclass(frozen=True)
class Assignment:
    module: str
    function: str
    column: str
    line: int


def _columns(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.attr for t in targets if isinstance(t, ast.Attribute) and t.attr in OWNED]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITERS:
        return [k.arg for k in node.keywords if k.arg in OWNED]
    if isinstance(node, ast.Dict):
        keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        return [k for k in keys if k in OWNED]
    return []


def assignments(package: object = server.services) -> Iterator[Assignment]:
    prefix = server.services.__name__ + "."
    for info in pkgutil.walk_packages(server.services.__path__, prefix):
        module = importlib.import_module(info.name)
        assert module.__file__ is not None
        tree = ast.parse(Path(module.__file__).read_text())
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            columns = _columns(node)
            if not columns:
                continue
            up = parents.get(node)
            while up is not None and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
                up = parents.get(up)
            function = up.name if up is not None else "<module>"
            for column in columns:
                yield Assignment(info.name.removeprefix(prefix), function, column, node.lineno)


def test_only_the_write_path_sets_a_column_a_machine_owns() -> None:
    stray = [
        f"server/services/{a.module.replace('.', '/')}.py:{a.line} in {a.function} sets {a.column}"
        for a in assignments()
        if a.module != WRITE_PATH and (a.module, a.function, a.column) not in OUTSIDE
    ]
    assert not stray, "declare it on the machine (stamps, clears, computed) and use apply/enter:\n" + (
        "\n".join(stray)
    )


def test_every_listed_exception_still_sets_its_column() -> None:
    seen = {(a.module, a.function, a.column) for a in assignments()}
    assert not set(OUTSIDE) - seen


def test_the_write_path_sets_the_state() -> None:
    """The scan sees the one writer itself (so it would see any other)."""
    assert "status" in OWNED
    assert any(a.module == WRITE_PATH and a.column == "status" for a in assignments())


def test_the_scan_finds_each_way_of_setting_a_column() -> None:
    tree = ast.parse(
        "row.status = 'x'\n"
        "tx.write(row, completed_at=now)\n"
        "update(T).values(status='x')\n"
        "values = {'status': 'x'}\n"
        "Row(status='x')\n"
        "row.name = 'x'\n"
    )
    found = [(node.lineno, c) for node in ast.walk(tree) for c in _columns(node)]
    assert sorted(found) == [(1, "status"), (2, "completed_at"), (3, "status"), (4, "status")]
